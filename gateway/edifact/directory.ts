// The UN/EDIFACT directory D.04A (gateway/edifact/d04a/: the UN directory's segments and message
// structures in php-edifact/edifact-mapping's XML), read into node-edifact's definitions: each
// segment's elements (with how many are mandatory), each element's components as format strings
// (an..35, n..15), and each message's segment table (groups, mandatory, repetitions). Read once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { ElementDefinition, SegmentDefinition, SegmentTableEntry } from 'edifact';
import type { Directory } from './syntax';

const DIR = join(__dirname, 'd04a');
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', preserveOrder: true });

type Node = Record<string, any>;
const tagOf = (node: Node) => Object.keys(node).find((k) => k !== ':@')!;
const attrs = (node: Node): Record<string, string> => node[':@'] ?? {};
const children = (node: Node): Node[] => node[tagOf(node)] ?? [];
const format = (a: Record<string, string>) => `${a.type === 'n' ? 'n' : a.type === 'a' ? 'a' : 'an'}..${a.maxlength}`;
/** How many leading entries must be there: up to the last mandatory one. */
const required = (entries: Node[]) => entries.reduce((last, entry, i) => (attrs(entry).required === 'true' ? i + 1 : last), 0);

function readSegments(): Pick<Directory, 'segments' | 'elements'> {
  const root = parser.parse(readFileSync(join(DIR, 'D04A_segments.xml'), 'utf8')).find((n: Node) => tagOf(n) === 'segments');
  const segments: Record<string, SegmentDefinition> = {};
  const elements: Record<string, ElementDefinition> = {};
  for (const segment of children(root)) {
    if (tagOf(segment) !== 'segment') continue;
    const parts = children(segment).filter((n) => ['data_element', 'composite_data_element'].includes(tagOf(n)));
    segments[attrs(segment).id] = { requires: required(parts), elements: parts.map((p) => attrs(p).id) };
    for (const part of parts) {
      const id = attrs(part).id;
      if (tagOf(part) === 'data_element') elements[id] ??= { requires: 0, components: [format(attrs(part))] };
      else {
        const components = children(part).filter((n) => tagOf(n) === 'data_element');
        elements[id] ??= { requires: required(components), components: components.map((c) => format(attrs(c))) };
      }
    }
  }
  return { segments, elements };
}

function readTable(file: string): SegmentTableEntry[] {
  const root = parser.parse(readFileSync(join(DIR, file), 'utf8')).find((n: Node) => tagOf(n) === 'message');
  const entries = (nodes: Node[]): SegmentTableEntry[] =>
    nodes
      .filter((n) => ['segment', 'group'].includes(tagOf(n)))
      .map((n) => ({
        content: tagOf(n) === 'segment' ? attrs(n).id : entries(children(n)),
        mandatory: attrs(n).required === 'true',
        repetition: Number(attrs(n).maxrepeat),
      }));
  return entries(children(root));
}

let directory: Directory | undefined;

/** The D.04A directory (segments, elements, and the IFTMIN, IFTSTA and APERAK tables). */
export function d04a(): Directory {
  return (directory ??= {
    id: 'D.04A',
    ...readSegments(),
    messages: { IFTMIN: readTable('D04A_iftmin.xml'), IFTSTA: readTable('D04A_iftsta.xml'), APERAK: readTable('D04A_aperak.xml') },
  });
}
