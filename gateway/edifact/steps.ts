// The steps of an EDIFACT mapping (IFTMIN, IFTSTA), each declaring the segments it reads and where
// in them. What a mapping reads is its steps' declarations, never a second list kept beside them:
// the positions a message of another directory must hold D.04A's data elements at (directory.ts,
// `differences`), and the segments whose content the mapping carries (every other one is listed
// as dropped). A step is given only the segments it declares, so one that reads another fails at
// once, in the first test that runs it, instead of reading what the lists do not name.
import type { Segment } from './syntax';

/** Where a mapping reads a message: segment, element, component (from 0). */
export type ReadPosition = readonly [string, number, number];

export interface Step {
  /** The segments the step reads, each with the element and component positions (from 0) it reads in them. */
  reads: Readonly<Record<string, ReadonlyArray<readonly [number, number]>>>;
  /**
   * Whether what it reads is carried into what the message becomes. A step that only checks its
   * segments (that a NAD names no other organization) carries nothing: they count as dropped.
   */
  carries: boolean;
}

/** What a mapping's steps read with: it gives a step a reader of the segments the step declares only. */
export interface StepReader<R> {
  only(reads: Step['reads']): R;
}

/** A step of a mapping: the segments it reads and where in them, and its function, run with a reader of those segments only. */
export function step<R extends StepReader<R>, A extends unknown[], T>(reads: Step['reads'], read: (r: R, ...args: A) => T, carries = true): Step & { run: (r: R, ...args: A) => T } {
  return { reads, carries, run: (r, ...args) => read(r.only(reads), ...args) };
}

/** Every position the steps read, once, in the steps' order (two steps may read the same). */
export function readsOf(steps: Readonly<Record<string, Step>>): ReadPosition[] {
  const all = Object.values(steps).flatMap((step) => Object.entries(step.reads).flatMap(([tag, positions]) => positions.map(([e, c]): ReadPosition => [tag, e, c])));
  return all.filter(([tag, e, c], i) => all.findIndex(([t, e2, c2]) => t === tag && e2 === e && c2 === c) === i);
}

/** The segments whose content the steps carry, with the message's envelope (UNH, UNT): any other segment of a message is dropped. */
export function carriedOf(steps: Readonly<Record<string, Step>>): ReadonlySet<string> {
  return new Set(['UNH', 'UNT', ...Object.values(steps).flatMap((step) => (step.carries ? Object.keys(step.reads) : []))]);
}

/** The segments of `segments` with this tag, for a step that declares it; a step asking for another is the mapping's error, thrown. */
export function segmentsFor(step: Pick<Step, 'reads'>, segments: readonly Segment[], tag: string): Segment[] {
  if (!Object.hasOwn(step.reads, tag)) throw new Error(`a mapping step reads ${tag} segments without declaring them: add ${tag} to its reads`);
  return segments.filter((s) => s.tag === tag);
}
