// Runs recorded before the broker refused what can no longer be executed in time (docs/decisions.md,
// "Listings in time") replay: publish's WINDOW_PASSED is behind the Temporal patch
// `listing-publish-in-time` (as the tender's and the handover's are behind theirs), and a run whose
// history predates it decides its commands without the rule. The history is the recorded offer run
// test/histories/matching-answered-capacity-offer-0.json with its availability window made to end
// seven minutes after the publish (as the stale offer of issue 33 was published): without the
// patch its replay refuses the publish and fails on what the accepted command did.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../workflows/bundle';

jest.setTimeout(120_000);

test('an offer run that published a listing whose window was about to end, recorded before the rule, replays without nondeterminism', async () => {
  const text = readFileSync(join(__dirname, '..', 'histories', 'matching-answered-stale-publish-capacity-offer-0.json'), 'utf8');
  const commands = JSON.parse(text).events
    .filter((e: any) => e.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED')
    .map((e: any) => ({ at: e.eventTime, command: JSON.parse(Buffer.from(e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input.args.payloads[0].data, 'base64').toString()) }));
  // The history does hold a publish less than an hour before the window ended.
  const create = commands.find((c: any) => c.command.name === 'create');
  const publish = commands.find((c: any) => c.command.name === 'publish');
  expect(Date.parse(create.command.payload.availabilityWindow.end) - Date.parse(publish.at)).toBeLessThan(60 * 60_000);
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH }, [{ workflowId: 'stale-publish', history: historyFromJSON(JSON.parse(text)) }])) {
    if (result.error) failures.push(result.error.message);
  }
  expect(failures).toEqual([]);
});
