// Waiting for something to exist at the broker (a proposal, an execution reference): a probe asked
// again until it answers, or a deadline. pcx wait, the example programs and the tools use it.

export interface WaitOptions {
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Between probes (default 500 ms). */
  intervalMs?: number;
}

/** The first value `probe` answers other than undefined; rejects naming `what` at the deadline. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, options: WaitOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
  }
}
