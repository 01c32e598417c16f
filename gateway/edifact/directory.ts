// The UN/EDIFACT directories the gateway reads messages with (directories.json.gz: D.93A to D.10B,
// made from Microsoft's BizTalk EDIFACT schemas by scripts/build-edifact-directories.ts), in
// node-edifact's definitions: each segment's elements (with how many are mandatory), each
// element's components as format strings (an..35, n..15) and, of a composite, its components' data
// element ids, and the segment tables of IFTMIN and IFTSTA (of D.04A also APERAK, which the
// gateway writes).
//
// A message is checked against its own directory (the version and release its UNH names). The
// mappings are written for D.04A: a message of another directory is mapped only where the segments
// the mapping reads are defined as in D.04A (`differences`), and refused otherwise, saying which
// segment differs and how. Read once, on first use (12 kB gzipped).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ElementDefinition, SegmentDefinition, SegmentTableEntry } from 'edifact';

/** Segment and element definitions (node-edifact's form) and message segment tables. */
export interface Directory {
  id: string;
  segments: Record<string, SegmentDefinition>;
  elements: Record<string, ElementDefinition>;
  /** The data element ids of each composite's components (C502: 6313, 6321, 6155, 6154). */
  components?: Record<string, string[]>;
  messages: Record<string, SegmentTableEntry[]>;
}

const BUNDLE = join(__dirname, 'directories.json.gz');

let bundle: Record<string, Omit<Directory, 'id'>> | undefined;
const read = () => (bundle ??= JSON.parse(gunzipSync(readFileSync(BUNDLE)).toString('utf8')) as Record<string, Omit<Directory, 'id'>>);
const cache = new Map<string, Directory>();

const yearOf = (name: string) => {
  const yy = Number(name.slice(1, 3));
  return yy >= 90 ? 1900 + yy : 2000 + yy;
};

/** The directories the gateway knows, oldest first, as a UNH names them ("D96A"). */
export function knownDirectories(): string[] {
  return Object.keys(read()).sort((a, b) => yearOf(a) - yearOf(b) || (a < b ? -1 : 1));
}

/** "D.93A to D.10B": the range of directories the gateway knows, for reasons. */
export function knownRange(): string {
  const known = knownDirectories();
  const dotted = (name: string) => `${name[0]}.${name.slice(1)}`;
  return `${dotted(known[0])} to ${dotted(known[known.length - 1])}`;
}

/** A directory by the version and release a UNH names ("D" and "96A"); undefined when the gateway does not know it. */
export function directoryOf(version: string, release: string): Directory | undefined {
  const name = `${version}${release}`.toUpperCase();
  const cached = cache.get(name);
  if (cached) return cached;
  const found = read()[name];
  if (!found) return undefined;
  const directory = { id: `${version}.${release}`.toUpperCase(), ...found };
  cache.set(name, directory);
  return directory;
}

/** The D.04A directory: the mappings' and the gateway's own answers'. */
export function d04a(): Directory {
  return directoryOf('D', '04A')!;
}

/** The segments a table names, in every group. */
export function segmentsOf(table: readonly SegmentTableEntry[]): string[] {
  return table.flatMap((entry) => (typeof entry.content === 'string' ? [entry.content] : segmentsOf(entry.content)));
}

/**
 * Data elements the UN renumbered without changing what they mean: the status event code (9011
 * until D.99A, 4405 since) and its text (9010, 4404).
 */
const RENAMED: Readonly<Record<string, string>> = { '9011': '4405', '9010': '4404' };

/** The data element at a segment's element and component in a directory: 'absent' past the end of what it defines. */
function dataElementAt(directory: Directory, tag: string, e: number, c: number): string | 'absent' {
  const elements = directory.segments[tag]?.elements;
  if (!elements) return 'absent';
  const element = elements[e];
  if (element === undefined) return 'absent';
  const components = directory.components?.[element];
  if (!components) return c === 0 ? element : 'absent';
  const id = components[c];
  return id === undefined ? 'absent' : (RENAMED[id] ?? id);
}

/**
 * Where a directory holds other data elements than D.04A at the positions a mapping reads
 * (`reads`: segment, element, component, from 0), each difference a sentence; empty when the
 * mapping can read the message as written for D.04A. A position the older directory does not have
 * yet is no difference (its messages just lack it); a segment it does not have is one.
 */
export function differences(other: Directory, reads: ReadonlyArray<readonly [string, number, number]>): Array<{ segment: string; difference: string }> {
  const base = d04a();
  if (other.id === base.id) return [];
  const out: Array<{ segment: string; difference: string }> = [];
  const seen = new Set<string>();
  for (const [tag, e, c] of reads) {
    if (seen.has(tag)) continue;
    if (!other.segments[tag]) {
      seen.add(tag);
      out.push({ segment: tag, difference: `${other.id} has no segment ${tag}` });
      continue;
    }
    const [mine, theirs] = [dataElementAt(base, tag, e, c), dataElementAt(other, tag, e, c)];
    if (theirs === 'absent' || mine === theirs) continue;
    seen.add(tag);
    out.push({ segment: tag, difference: `${tag} element ${e + 1} component ${c + 1} is data element ${theirs} in ${other.id}, ${mine} in D.04A` });
  }
  return out;
}
