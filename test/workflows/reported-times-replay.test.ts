// A run recorded before the broker refused reported times outside the movement (docs/decisions.md,
// "Now against the movement: milestones and outcomes") replays: the refusal is behind the Temporal
// patch `execution-reported-times`, and a run whose history predates it decides its commands
// without the rule. The history is the recorded reference run
// test/histories/execution-answered-execution-reference-4.json with its two milestone commands
// dated 2008-03-05T10:00:00Z (a public example message's date, as the gateway's demo once
// recorded): without the patch its replay refuses them and fails on the search-attribute upsert
// the accepted command made.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../workflows/bundle';

jest.setTimeout(120_000);

test('a reference run that accepted a milestone dated before it, recorded before the rule, replays without nondeterminism', async () => {
  const file = join(__dirname, '..', 'histories', 'execution-answered-historic-milestone-execution-reference-4.json');
  const text = readFileSync(file, 'utf8');
  const history = historyFromJSON(JSON.parse(text));
  // The history does hold the accepted historic milestones.
  const inputs = JSON.parse(text).events
    .filter((e: any) => e.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED')
    .flatMap((e: any) => e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input.args.payloads)
    .map((p: any) => JSON.parse(Buffer.from(p.data, 'base64').toString()))
    .filter((c: any) => c.name === 'recordUpdate');
  expect(inputs.map((c: any) => c.payload.occurredAt)).toEqual(['2008-03-05T10:00:00.000Z', '2008-03-05T10:00:00.000Z']);
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH }, [{ workflowId: 'historic-milestone', history }])) {
    if (result.error) failures.push(result.error.message);
  }
  expect(failures).toEqual([]);
});
