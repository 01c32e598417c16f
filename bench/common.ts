// What the benchmarks (bench/*.ts) measure with: percentiles and number formats for the reports,
// the CPU time and resident memory of a process tree read from /proc, and the report markers.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** Nearest-rank percentile; NaN for no samples. */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
export const median = (xs: number[]) => percentile(xs, 50);
export const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
export const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');

/**
 * The sum of a per-process figure over a process and all its descendants, read from /proc. The
 * broker may run as a wrapper with a child node, and the Temporal CLI starts the server as a child:
 * the tree is what the system costs.
 */
function treeSum(root: number, figure: (pid: string) => number): number {
  const procs = new Map<number, { ppid: number; value: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      procs.set(Number(name), { ppid: Number(/PPid:\s+(\d+)/.exec(status)?.[1]), value: figure(name) });
    } catch {
      /* exited meanwhile */
    }
  }
  let sum = 0;
  for (const stack = [root]; stack.length; ) {
    const pid = stack.pop()!;
    sum += procs.get(pid)?.value ?? 0;
    for (const [child, p] of procs) if (p.ppid === pid) stack.push(child);
  }
  return sum;
}

/** CPU milliseconds (user + system) of a process tree. */
export function treeCpuMs(root: number): number {
  return treeSum(root, (pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[11] utime, f[12] stime
    return (Number(f[11]) + Number(f[12])) * 10; // USER_HZ is 100 on Linux
  });
}

/** Resident memory (MiB) of a process tree. */
export function treeRssMiB(root: number): number {
  return treeSum(root, (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
}

/**
 * Puts a generated report between its markers in a hand-written document, keeping the text outside
 * them; a document without the markers (or none at all) gets them appended under `heading`.
 */
export function writeBetweenMarkers(file: string, begin: string, end: string, generated: string, heading: string): void {
  const block = `${begin}\n\n${generated}\n\n${end}`;
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const [head, rest] = existing.split(begin);
  writeFileSync(
    file,
    rest !== undefined && rest.includes(end)
      ? `${head}${block}${rest.slice(rest.indexOf(end) + end.length)}`
      : `${existing.trimEnd()}\n\n${heading}\n\n${block}\n`,
  );
}

/** Runs a benchmark's `main` once, exiting 0 or 1, stopped by a watchdog after `minutes`. */
export function runBench(log: (s: string) => void, main: () => Promise<void>, minutes: number): void {
  const watchdog = setTimeout(() => {
    log(`watchdog: ${minutes} minutes passed, stopping`);
    process.exit(1);
  }, minutes * 60_000);
  watchdog.unref();
  main().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
