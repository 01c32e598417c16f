// Replay: recorded histories of the entity workflows must replay without nondeterminism against
// the current workflow code. test/histories/ holds histories recorded from earlier versions (a
// change that breaks running workflows fails here); this run's fresh histories are replayed too.
// Record new fixtures with: RECORD_HISTORIES=1 npx jest test/replay.test.ts
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { activeRelationship, Connector, freshOrgs, sleep, testEnv } from './helpers';

const FIXTURES = join(__dirname, 'histories');
// Keep replay workers quiet; the expected nondeterminism of the second test is asserted, not logged.
Runtime.install({ logger: new DefaultLogger('ERROR') });
const workflowsPath = require.resolve('../workflows');

async function replay(histories: Array<{ workflowId: string; history: any }>) {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath }, histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

test('recorded and fresh relationship histories replay without nondeterminism', async () => {
  const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
  // A lifecycle with every kind of step: create, commands, a refused command, a timer, continue-as-new.
  const r = await activeRelationship(a, b, { effectiveUntil: new Date(Date.now() + 4000).toISOString() });
  let v = 3;
  await a.command(`/partner-relationships/${r.id}/suspend`, v++, { reason: 'replay' });
  await a.command(`/partner-relationships/${r.id}/reactivate`, 99); // refused by the validator: not in history
  await a.command(`/partner-relationships/${r.id}/reactivate`, v++);
  await a.command(`/partner-relationships/${r.id}/suspend`, v++, { reason: 'replay again' });
  for (let i = 0; i < 40 && (await a.get(`/partner-relationships/${r.id}`)).body.status !== 'terminated'; i++) await sleep(250);

  const connection = await Connection.connect({ address: testEnv().temporalAddress });
  const client = new Client({ connection });
  const fresh: Array<{ workflowId: string; history: any }> = [];
  try {
    const workflowId = `partner-relationship/${r.id}`;
    const description = await client.workflow.getHandle(workflowId).describe();
    // Every run of the chain, newest first (continue-as-new links them).
    let runId: string | undefined = description.runId;
    const seen = new Set<string>();
    while (runId && !seen.has(runId)) {
      seen.add(runId);
      const history: any = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      fresh.push({ workflowId: `${workflowId}@${runId}`, history });
      const first: any = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      runId = first?.continuedExecutionRunId || undefined;
    }
  } finally {
    await connection.close();
  }
  expect(fresh.length).toBeGreaterThanOrEqual(2); // the test broker continues-as-new after 6 commands

  if (process.env.RECORD_HISTORIES) {
    mkdirSync(FIXTURES, { recursive: true });
    fresh.forEach((h, i) => writeFileSync(join(FIXTURES, `partner-relationship-lifecycle-${i}.json`), historyToJSON(h.history)));
  }
  const recorded = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ workflowId: f, history: historyFromJSON(JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'))) }));
  expect(recorded.length).toBeGreaterThan(0);
  expect(await replay([...recorded, ...fresh])).toEqual([]);
});

test('a changed workflow is caught: replaying against code with another command order fails', async () => {
  // Guard that the replay test can fail at all: a history replayed against a workflow that
  // schedules nothing where the history has a local activity marker must be nondeterministic.
  const file = readdirSync(FIXTURES).find((f) => f.endsWith('.json'))!;
  const history = historyFromJSON(JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')));
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath: require.resolve('./fixtures/broken-workflows') }, [{ workflowId: file, history }])) {
    if (result.error) failures.push(result.error.message);
  }
  expect(failures.length).toBe(1);
});
