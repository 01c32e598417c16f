// One workflow per webhook subscription: it pumps (the activity pumpWebhookSubscription collects
// the subscription's new events from the outbox into deliveries and attempts every one that is
// due, in order per subject) and sleeps until the next retry is due or a poke says there is new
// work. The retry schedule is data (domain/webhooks.ts) and its waits are this workflow's timers,
// so a crash of any process loses no retry and a time-skipping test runs the whole schedule.
import { condition, continueAsNew, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../domain/activities';
import { WEBHOOK_POKE, type WebhookWorkflowInput } from '../domain/webhooks';

export const pokeSignal = defineSignal(WEBHOOK_POKE);

const { pumpWebhookSubscription } = proxyActivities<Activities>({
  // A pump stops starting attempts after about 20 s (each at most 15 s), and heartbeats, so a
  // pump whose worker died is retried within seconds, by the heartbeat timeout.
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Without pokes (a watcher that died with its worker) the workflow still pumps this often, so an
 * event is never stranded for longer, unless its input says otherwise (WEBHOOK_IDLE_PUMP_SECONDS).
 * Every subscription pays it: a minute made 1,000 subscriptions cost a worker 17 pumps a second.
 */
const IDLE_PUMP_MS = 600_000;
/** Continue-as-new well before Temporal's history limits: each pump adds about ten events. */
const HISTORY_LIMIT = 5000;

export async function webhookSubscriptionWorkflow(input: WebhookWorkflowInput): Promise<void> {
  const idle = input.idlePumpMs ?? IDLE_PUMP_MS;
  let pokes = 0;
  setHandler(pokeSignal, () => {
    pokes += 1;
  });
  for (;;) {
    const seen = pokes;
    const result = await pumpWebhookSubscription({ subscriptionId: input.subscriptionId, now: Date.now() });
    if (result.state === 'deleted') return;
    if (result.state === 'active' && result.more) continue;
    const untilDue = result.state === 'active' && result.nextDueAt !== undefined ? Math.max(0, result.nextDueAt - Date.now()) : idle;
    // An inactive subscription pumps only on a poke (its reactivation sends one) or at the idle pace.
    if (untilDue > 0) await condition(() => pokes > seen, Math.min(untilDue, idle));
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= HISTORY_LIMIT) {
      return continueAsNew<typeof webhookSubscriptionWorkflow>(input);
    }
  }
}
