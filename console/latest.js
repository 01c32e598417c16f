// One run at a time of an async reading, ending with one that began after the last call: a call
// while a run is under way asks for one more run after it (however many calls came), and answers
// the promise of the whole. So the screen is never left showing a reading older than the last
// event, whichever of two overlapping readings would have answered last.

/** `fn` wrapped: one run at a time, and a last run after the last call. */
export function oneAtATime(fn) {
  let running;
  let again = false;
  return (...args) => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await fn(...args);
      } while (again);
    })().finally(() => (running = undefined));
    return running;
  };
}
