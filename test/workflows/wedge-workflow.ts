// A workflow that meets the time-skipping test server's wedge (test/time-skipping/harness.ts,
// WEDGE): it waits for a nudge with a short timeout, and the nudge's handler holds the workflow
// task longer than that timeout, so the timer fires at the server while the task that cancels it
// runs. test/workflows/test-server-wedge.test.ts bundles it alone.
import { condition, defineSignal, setHandler } from '@temporalio/workflow';

export const nudge = defineSignal<[number]>('nudge');

/** Waits up to `timeoutMs` for a nudge; the nudge blocks its workflow task for the given milliseconds. */
export async function wedgeProbe(timeoutMs: number): Promise<string> {
  let nudged = false;
  setHandler(nudge, (holdMs) => {
    // Blocks this thread, as a slow task on a busy machine does (Date is frozen inside a task).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
    nudged = true;
  });
  const woken = await condition(() => nudged, timeoutMs);
  // Goes on waiting, as the broker's entity workflow does: a task that ended the run instead would
  // be failed as an unhandled command (the fired timer), which the server handles.
  await condition(() => false, '1 hour');
  return woken ? 'nudged' : 'timed out';
}
