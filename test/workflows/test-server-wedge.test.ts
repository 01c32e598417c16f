// The time-skipping test server's wedge (sdk-java #2606, #3088), which test/time-skipping/harness.ts
// detects and retries a test around (testOnHarness): a timer fires while a task of its run is in
// progress, the task's completion cancels it, the server refuses the completion and gives the run
// no further task. This file shows the server still has it and that the harness sees it in the
// runtime's log. When it fails because the run was nudged, the server was fixed: the harness's
// retry (and this file) can go.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { TEST_SERVER, wedgeWatcher } from '../time-skipping/harness';

const TASK_QUEUE = 'wedge-probe';
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
const watcher = wedgeWatcher();

beforeAll(async () => {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./wedge-workflow'), logger: quiet });
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: TEST_SERVER } } });
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUE, workflowBundle: { code } });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  watcher.stop();
  worker?.shutdown();
  await running;
  await env?.teardown();
});

test('a timer that fires during the task that cancels it wedges the run; the harness reads it in the log', async () => {
  // A plain client: awaiting nothing through it unlocks time skipping, so time runs at real speed.
  const handle = await env.client.workflow.start('wedgeProbe', { taskQueue: TASK_QUEUE, workflowId: `wedge-probe-${Date.now()}`, args: [300] });
  const events = async () => (await handle.fetchHistory()).events ?? [];
  for (let i = 0; i < 200 && !(await events()).some((e) => e.timerStartedEventAttributes); i++) await new Promise((r) => setTimeout(r, 25));
  // The nudge's task holds 1.5 s (under the worker's 2 s deadlock detection); the 300 ms timer fires at the server meanwhile.
  await handle.signal('nudge', 1_500);
  for (let i = 0; i < 150 && !watcher.wedged; i++) await new Promise((r) => setTimeout(r, 100));
  expect(watcher.wedged).toContain('invalid history builder state for action');
  // No further task: the run neither finishes nor records its timer or a failed task.
  await new Promise((r) => setTimeout(r, 2_000));
  expect((await handle.describe()).status.name).toBe('RUNNING');
  const types = (await events()).map((e) => String(e.eventType));
  expect(types.slice(-2)).toEqual([expect.stringMatching(/WORKFLOW_TASK_SCHEDULED|5/), expect.stringMatching(/WORKFLOW_TASK_STARTED|6/)]);
  // And the task's time-skipping lock stays: a skip of a day is taken at real speed, so every
  // later test of a harness on this server waits for its timeout.
  const abort = new AbortController();
  const skip = env.connection.withAbortSignal(abort.signal, () => env.sleep('1 day')).then(() => 'skipped', () => 'given up');
  expect(await Promise.race([skip, new Promise((r) => setTimeout(() => r('held'), 5_000))])).toBe('held');
  // Cancelled, not left to the teardown: a call still retried once the channel is closed throws
  // from a timer, in whichever test file runs next.
  abort.abort();
  expect(await skip).toBe('given up');
}, 60_000);
