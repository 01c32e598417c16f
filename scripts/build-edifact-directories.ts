// Builds gateway/edifact/directories.json.gz: for every UN/EDIFACT directory from D.93A to D.10B,
// the segments of IFTMIN and IFTSTA (D.04A: and APERAK, which the gateway writes), their elements
// and components, and the messages' segment tables, in node-edifact's definitions, for the gateway
// to check a message against its own directory (gateway/edifact/directory.ts).
//
// The source is Microsoft's BizTalk EDIFACT schemas (MIT licence): one XSD per message and
// directory, generated from the UN/CEFACT directories. Run once, by hand, on a copy of that
// repository; its output is committed:
//
//   git clone --filter=blob:none --sparse https://github.com/microsoft/Integration /tmp/integration
//   git -C /tmp/integration sparse-checkout set "BizTalk Server/Schema/EDIFACT"
//   git -C /tmp/integration checkout d6c9b39
//   npx tsx scripts/build-edifact-directories.ts "/tmp/integration/BizTalk Server/Schema/EDIFACT"
//
// How a BizTalk schema says it: a segment is a global element whose recordInfo has a tag_name
// (variants of one segment, restricted to other code lists, carry a suffix: DTM_12); its fields
// are simple elements (the data element's id ends their notes: "Measurement application
// qualifier_6311") or refs to composites (C502, C506_7); a field without minOccurs="0" is
// mandatory; a group is a global element XXXLoopN; a representation is a restriction of
// EDIFACT_AN, EDIFACT_N or EDIFACT_A with its maxLength (a code list type, EDIFACT_ID_xxxx, has
// none: read as an..35, since the gateway checks codes in its mappings, not against BizTalk's lists).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';

type Node = Record<string, any>;
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', preserveOrder: true });
const tagOf = (node: Node) => Object.keys(node).find((k) => k !== ':@')!;
const attrs = (node: Node): Record<string, string> => node[':@'] ?? {};
const kids = (node: Node): Node[] => (Array.isArray(node[tagOf(node)]) ? node[tagOf(node)] : []);
const find = (node: Node, tag: string) => kids(node).find((k) => tagOf(k) === tag);
/** The xs:element children of an element's complexType/sequence. */
const fields = (element: Node): Node[] => kids(find(find(element, 'xs:complexType') ?? {}, 'xs:sequence') ?? {}).filter((k) => tagOf(k) === 'xs:element');
/** The annotation's recordInfo or fieldInfo attributes. */
const info = (element: Node): Record<string, string> => {
  const appinfo = find(find(element, 'xs:annotation') ?? {}, 'xs:appinfo') ?? {};
  const entry = kids(appinfo).find((k) => ['b:recordInfo', 'b:fieldInfo'].includes(tagOf(k)));
  return entry ? attrs(entry) : {};
};
const base = (name: string) => name.replace(/_\d+$/, '');

interface Entry { content: string | Entry[]; mandatory: boolean; repetition: number }
interface Definitions {
  segments: Record<string, { requires: number; elements: string[] }>;
  elements: Record<string, { requires: number; components: string[] }>;
  /** The data element ids of each composite's components (for comparing directories). */
  components: Record<string, string[]>;
  messages: Record<string, Entry[]>;
}

function formatOf(field: Node): string {
  const restriction = find(find(field, 'xs:simpleType') ?? {}, 'xs:restriction');
  if (!restriction) return 'an..35';
  const kind = { EDIFACT_AN: 'an', EDIFACT_N: 'n', EDIFACT_A: 'a' }[attrs(restriction).base] ?? 'an';
  const max = kids(restriction).find((k) => tagOf(k) === 'xs:maxLength');
  return max ? `${kind}..${attrs(max).value}` : 'an..35';
}
const idOf = (field: Node) => /_(\d{4})\s*$/.exec(info(field).notes ?? '')?.[1];

function read(file: string, type: string, into: Definitions) {
  const root = parser.parse(readFileSync(file, 'utf8')).find((n: Node) => tagOf(n) === 'xs:schema');
  const globals = new Map<string, Node>();
  for (const node of kids(root)) if (tagOf(node) === 'xs:element') globals.set(attrs(node).name, node);
  const segment = (name: string) => {
    const tag = base(name);
    if (into.segments[tag]) return tag;
    const parts = fields(globals.get(name)!);
    const elements: string[] = [];
    let requires = 0;
    parts.forEach((part, i) => {
      const a = attrs(part);
      if (a.minOccurs !== '0') requires = i + 1;
      if (a.ref) {
        const composite = base(a.ref);
        elements.push(composite);
        if (!into.elements[composite]) {
          const components = fields(globals.get(a.ref)!);
          into.elements[composite] = { requires: components.reduce((last, c, j) => (attrs(c).minOccurs !== '0' ? j + 1 : last), 0), components: components.map(formatOf) };
          into.components[composite] = components.map((c) => idOf(c) ?? '?');
        }
      } else {
        const id = idOf(part) ?? `${tag}${String(i + 1).padStart(2, '0')}`;
        elements.push(id);
        into.elements[id] ??= { requires: 0, components: [formatOf(part)] };
      }
    });
    into.segments[tag] = { requires, elements };
    return tag;
  };
  const table = (element: Node): Entry[] =>
    fields(element).map((field) => {
      const a = attrs(field);
      const repetition = a.maxOccurs === undefined ? 1 : a.maxOccurs === 'unbounded' ? 99999 : Number(a.maxOccurs);
      const name = a.ref ?? a.name;
      if (name === 'UNH' || name === 'UNT') return { content: name, mandatory: true, repetition: 1 };
      if (/Loop\d+$/.test(name)) return { content: table(globals.get(name)!), mandatory: a.minOccurs !== '0', repetition };
      return { content: segment(name), mandatory: a.minOccurs !== '0', repetition };
    });
  const message = [...globals.values()].find((n) => /^EFACT_D\d\d[A-Z]_[A-Z]{6}$/.test(attrs(n).name))!;
  into.messages[type] = table(message);
}

const root = process.argv[2];
if (!root || !existsSync(root)) throw new Error('usage: build-edifact-directories.ts "<Integration>/BizTalk Server/Schema/EDIFACT"');
const out: Record<string, Definitions> = {};
for (const id of readdirSync(root).filter((d) => /^D\d\d[AB]$/.test(d)).sort()) {
  const definitions: Definitions = { segments: {}, elements: {}, components: {}, messages: {} };
  for (const type of ['IFTMIN', 'IFTSTA', ...(id === 'D04A' ? ['APERAK'] : [])]) {
    const file = join(root, id, `EFACT_${id}_${type}.xsd`);
    if (existsSync(file)) read(file, type, definitions);
  }
  if (Object.keys(definitions.messages).length) out[id] = definitions;
}
const target = join(__dirname, '..', 'gateway', 'edifact', 'directories.json.gz');
writeFileSync(target, gzipSync(JSON.stringify(out), { level: 9 }));
console.log(`wrote ${target}: ${Object.keys(out).length} directories (${Object.keys(out).join(' ')})`);
