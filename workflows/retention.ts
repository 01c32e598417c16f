// The retention purge's clock (issue 34 part 4; docs/retention.md): one workflow for the broker
// (retentionWorkflowId: per task queue), started by the broker at boot. It asks the activity `purgeDue` to purge
// what is due at the workflow's instant, at once again while more is due, then sleeps. Nothing can
// fall due sooner than the shortest period of any policy after it became final, so a day between
// rounds loses at most a day; a poke (pokeRetention: a changed policy, a benchmark) runs a round at once.
// Its waits are timers, so a time-skipping test runs years of purges in seconds.
import { condition, continueAsNew, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../domain/activities';
import { RETENTION_POKE } from '../domain/retention';

export const retentionPokeSignal = defineSignal(RETENTION_POKE);

const { purgeDue } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/** Between rounds: a record due is purged at most this late. */
const ROUND_MS = 24 * 3600 * 1000;
/** Continue-as-new well before Temporal's history limits: a round adds about ten events. */
const HISTORY_LIMIT = 2000;

export async function retentionWorkflow(input: { roundMs?: number } = {}): Promise<void> {
  let pokes = 0;
  setHandler(retentionPokeSignal, () => {
    pokes += 1;
  });
  for (;;) {
    const seen = pokes;
    const result = await purgeDue({ now: new Date().toISOString() });
    if (result.more) continue;
    await condition(() => pokes > seen, input.roundMs ?? ROUND_MS);
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= HISTORY_LIMIT) return continueAsNew<typeof retentionWorkflow>(input);
  }
}
