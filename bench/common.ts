// What both benchmarks (bench/relationships.ts, bench/matching.ts) measure with: percentiles and
// number formats for the reports, and the CPU time of a process tree read from /proc.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

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
 * CPU milliseconds (user + system) of a process and all its descendants. The broker runs as
 * `node tsx/cli broker.ts`, which runs broker.ts in a child node: the tree is summed.
 */
export function treeCpuMs(root: number): number {
  const procs = new Map<number, { ppid: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[1] ppid, f[11] utime, f[12] stime
      procs.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      /* exited meanwhile */
    }
  }
  let ticks = 0;
  for (const stack = [root]; stack.length; ) {
    const pid = stack.pop()!;
    ticks += procs.get(pid)?.ticks ?? 0;
    for (const [child, p] of procs) if (p.ppid === pid) stack.push(child);
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

/**
 * Puts a generated report between its markers in a hand-written document (appended with the
 * markers when they are not there yet); the text outside the markers is kept.
 */
export function writeBetweenMarkers(file: string, begin: string, end: string, generated: string): void {
  const text = readFileSync(file, 'utf8');
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  writeFileSync(file, i >= 0 && j > i ? `${text.slice(0, i)}${begin}\n${generated}\n${text.slice(j)}` : `${text.trimEnd()}\n\n${begin}\n${generated}\n${end}\n`);
}
