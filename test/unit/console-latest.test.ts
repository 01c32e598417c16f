// console/latest.js: the console's views are read one reading at a time, and always once more after
// the last event (a reading that overlapped a newer one left stale lists on screen).
// @ts-ignore
import { oneAtATime } from '../../console/latest.js';

const tick = () => new Promise((r) => setTimeout(r, 5));

test('calls during a run ask for one more run after it, never two at once; the screen ends with what the last run read', async () => {
  let world = 0; // what the broker would answer
  let shown = -1; // what the screen shows
  let running = 0;
  let most = 0;
  const runs: number[] = [];
  const read = oneAtATime(async () => {
    running++;
    most = Math.max(most, running);
    const seen = world;
    runs.push(seen);
    await tick();
    shown = seen;
    running--;
  });
  const first = read();
  world = 1;
  const second = read(); // an event while the first reads
  world = 2;
  const third = read(); // and another
  expect(second).toBe(first);
  expect(third).toBe(first);
  await Promise.all([first, second, third]);
  expect({ runs, shown, most }).toEqual({ runs: [0, 2], shown: 2, most: 1 });
  // Idle again: the next call runs at once.
  world = 3;
  await read();
  expect({ runs, shown }).toEqual({ runs: [0, 2, 3], shown: 3 });
});

test('a failed run ends the wrapper\'s run, and the next call runs again', async () => {
  let fail = true;
  const read = oneAtATime(async () => {
    if (fail) throw new Error('the broker is away');
  });
  await expect(read()).rejects.toThrow('the broker is away');
  fail = false;
  await expect(read()).resolves.toBeUndefined();
});
