// Fuzzing the adapter gateway's readers (gateway/formats.ts): EDIFACT, EPCIS 2.0 JSON(-LD), and the
// spreadsheet format's two inputs, CSV and XLSX. Each input goes the way a message goes through the
// gateway, without a database or an exchange: `screen()` (gateway/intake.ts, with the gateway's
// default size limit, 1_000_000 bytes, which also runs `format.decode`), then `format.map(entry,
// organization, others)` for an organization with settings taken from the unit tests and
// config/gateway.json, then what the workflow does with the outcome (milestones found or not, a
// resend held as a duplicate, the exchange creating or refusing what was mapped), the result stored
// as JSON (as the inbox's jsonb column holds it), and `format.acknowledge(entry, organization, now)`.
//
// Half of each reader's inputs are random (byte-level mutations of the real files under
// test/fixtures/ and examples/, random bytes), half grammar-aware (interchanges, documents, exports
// and workbooks generated from the grammar, or real ones edited structurally); see the generators
// below. Every input is a pure function of the seed, the reader and its index, so any one can be
// made again (`case`, below).
//
// Found, per input, and saved (bytes plus a .json of the organization, entry and error) under
// .data/fuzz-adapters/<reader>/:
// - crash: decode, screen, map or acknowledge threw (they must never throw: a bad message is mapped
//   or quarantined), or returned something that is not an outcome or a list of answers;
// - hang: one input took more than 5 s. Each reader runs in a child process (this script, run with
//   the same tsx loader) that reports every second and writes the input it is on to .current.*
//   first; the parent kills a child silent for 30 s, records a hang with that input, and starts a
//   new child at the next index;
// - also listed, not crashes: an exception the spreadsheet format's own catch-all turned into a
//   quarantine ("the file could not be read (...)"), and a result or answer the gateway's database
//   could not store even as store.ts writes it (storableJson, storable: a NUL or a lone surrogate
//   left in jsonb or text).
//
// Generated dates are relative to a fixed day (2026-12-01), so an input is the same whenever it is
// made again; the gateway's own clock (acknowledge's now, a milestone dated in the future) is real.
//
// Run:   npx tsx scripts/fuzz-adapters.ts
// Env:   FUZZ_ADAPTER_SECONDS  per reader (default 600)
//        FUZZ_ADAPTER_SEED     the seed (default: random, printed)
//        FUZZ_ADAPTERS         readers to run (default edifact,epcis,csv,xlsx); two run at a time
// Again: npx tsx scripts/fuzz-adapters.ts replay .data/fuzz-adapters/<reader>/<file>.json
//        FUZZ_ADAPTER_SEED=<seed> npx tsx scripts/fuzz-adapters.ts case <reader> <index> [out-file]
//        (the input made again, run, its outcome and time per step printed; out-file: its bytes)
//        FUZZ_ADAPTER_SEED=<seed> npx tsx scripts/fuzz-adapters.ts sample <reader> [count]
//        (what the generators make: outcomes by generator, in this process, no files written)
// Out:   a summary per reader on stdout and in .data/fuzz-adapters/summary.{json,md}; exit code 1
//        when a crash or hang was found, 0 otherwise.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import iconv from 'iconv-lite';
import type { SegmentTableEntry } from 'edifact';
import type { ServedOrganization } from '../gateway/config';
import type { Format } from '../gateway/format';
import { directoryOf, type Directory } from '../gateway/edifact/directory';
import { DELAY_REASONS, REC24, REFERENCE_QUALIFIERS } from '../gateway/edifact/status-codes';
import { LEVEL_A, type ServiceCharacters as Chars } from '../gateway/edifact/service';
import { formatOf } from '../gateway/formats';
import { screen } from '../gateway/intake';
import { inTheFuture } from '../gateway/milestones';
import { storable, storableJson, type InboxEntry, type QuarantineReason } from '../gateway/store';

const ROOT = resolve(__dirname, '..');
const OUT = join(ROOT, '.data', 'fuzz-adapters');
const READERS = ['edifact', 'epcis', 'csv', 'xlsx'] as const;
type ReaderName = (typeof READERS)[number];
/** The gateway's GATEWAY_MAX_MESSAGE_BYTES default (gateway/config.ts). */
const MAX_BYTES = 1_000_000;
const HANG_MS = 5_000;
const SILENCE_MS = 30_000;
const CONCURRENCY = 2;
/** At most this many inputs saved per kind of finding and signature (all are counted). */
const SAVED_PER_SIGNATURE = 5;

// ------------------------------------------------------------------------------------------------
// Seeded randomness: every input is made from hash(seed, reader, index).

function hash32(...parts: Array<string | number>): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0001')) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  /** mulberry32 */
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(a: number, b: number): number {
    return a + this.int(b - a + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  /** A length skewed to small values, sometimes large: 0..max. */
  size(max: number): number {
    const r = this.next();
    if (r < 0.6) return this.int(Math.min(max, 8) + 1);
    if (r < 0.9) return this.int(Math.min(max, 256) + 1);
    if (r < 0.98) return this.int(Math.min(max, 8192) + 1);
    return this.int(max + 1);
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** "Now" for the generators (dates around it): fixed, so that an input is the same whenever it is made again. */
const GEN_NOW = Date.parse('2026-12-01T00:00:00Z');
const uuid = (rng: Rng) => [8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => rng.int(16).toString(16)).join('')).join('-');

// ------------------------------------------------------------------------------------------------
// Real files, and the organizations of the unit tests.

const readDir = (dir: string, ext: RegExp) =>
  existsSync(join(ROOT, dir))
    ? readdirSync(join(ROOT, dir))
        .filter((n) => ext.test(n))
        .sort()
        .map((n) => ({ name: n, bytes: readFileSync(join(ROOT, dir, n)) }))
    : [];

let fixtureCache: Record<string, Array<{ name: string; bytes: Buffer }>> | undefined;
function fixtures() {
  fixtureCache ??= {
    edifact: [...readDir('test/fixtures/edifact', /\.edi$/), ...readDir('examples/edifact', /\.edi$/)],
    epcis: [...readDir('test/fixtures/epcis', /\.jsonld?$/), ...readDir('examples/epcis', /\.jsonld?$/)],
    csv: [...readDir('test/fixtures/spreadsheet', /\.csv$/), ...readDir('examples/spreadsheet', /\.csv$/)],
    xlsx: [...readDir('test/fixtures/spreadsheet', /\.xlsx$/), ...readDir('examples/spreadsheet', /\.xlsx$/)],
  };
  return fixtureCache;
}

const CONFIG: ServedOrganization[] = JSON.parse(readFileSync(join(ROOT, 'config', 'gateway.json'), 'utf8'));
const ALPINE = CONFIG.find((o) => o.organizationId === 'org-alpine-freight')!;
const BALTIC = CONFIG.find((o) => o.organizationId === 'org-baltic-shippers')!;
const clone = <T>(v: T): T => structuredClone(v);

// test/unit/gateway-edifact.test.ts, gateway-iftsta.test.ts
const EDI_SHIPPER: ServedOrganization = {
  organizationId: 'org-shipper',
  clientId: 'shipper',
  clientSecret: 'secret',
  edifact: { senderIds: ['ICT'] },
  loadRequests: { publish: true, visibility: { mode: 'open' }, bodyTypes: ['curtainsider'], goodsCategory: 'chemicals', timeZone: 'Europe/Amsterdam', pointTimeMinutes: 120 },
};
const ediCarrier = (senderIds: string[], timeZone = 'Europe/Vienna', more: Partial<ServedOrganization> = {}): ServedOrganization => ({
  organizationId: 'org-carrier',
  clientId: 'carrier',
  clientSecret: 'secret',
  edifact: { senderIds },
  loadRequests: { publish: false, timeZone },
  ...more,
});
const EDI_OTHER_SHIPPER: ServedOrganization = { organizationId: 'org-shipper', clientId: 'shipper', clientSecret: 'secret', edifact: { senderIds: ['5790000000005'] } };
const EDI_FORWARDER: ServedOrganization = {
  organizationId: 'org-forwarder',
  clientId: 'forwarder',
  clientSecret: 'secret',
  edifact: { senderIds: ['FORWARDER'], gatewayId: 'PCX-GW', system: 'edifact:forwarder-tms', timeZone: 'Europe/Berlin' },
  loadRequests: { publish: true, visibility: { mode: 'open' }, bodyTypes: ['box', 'curtainsider'], goodsCategory: 'general', timeZone: 'Europe/Berlin', pointTimeMinutes: 60, expiresBeforePickupHours: 24 },
  places: { '9:5412345678908': 'BEANR', '92:DEPOT-1': 'DEHAM' },
  reportOutcomes: true,
};
const EDI_TEMPLATES: ServedOrganization[] = [
  EDI_SHIPPER,
  { ...EDI_SHIPPER, loadRequests: { publish: true } },
  { ...EDI_SHIPPER, places: { '9:5412345678908': 'BEANR' } },
  ediCarrier(['CARRIER'], 'UTC'),
  ediCarrier(['7080000714520'], 'Europe/Oslo', { places: { '9:5790000000012': 'SEGOT' } }),
  ediCarrier(['CARRIER'], 'Europe/Vienna', { loadRequests: undefined }),
  EDI_FORWARDER,
  BALTIC,
  ALPINE,
];

// test/unit/gateway-epcis.test.ts
const epcisCarrier = (settings: ServedOrganization['epcis'] = {}, places: Record<string, string> = {}): ServedOrganization => ({ organizationId: 'org-carrier', clientId: 'carrier', clientSecret: 'secret', epcis: settings, places });
const EPCIS_SHIPPER: ServedOrganization = { organizationId: 'org-shipper', clientId: 'x', clientSecret: 'y', epcis: { glns: ['5790000000005'] }, places: { '9:5790000000012': 'SEGOT' } };
const EPCIS_TEMPLATES: ServedOrganization[] = [
  epcisCarrier(),
  epcisCarrier({ referenceTypes: ['bol', 'desadv', 'po'] }, { '9:0614141073467': 'USCHI' }),
  epcisCarrier({ referenceTypes: ['urn:gs1:epcisapp:rail:btt:passage'] }),
  epcisCarrier({}, { '9:4012345000115': 'DEHAM', '9:4012345000221': 'ATVIE', '9:4012345000009': 'ATLNZ' }),
  epcisCarrier({ bizSteps: { 'https://alpine.example/bizstep/gate-out': 'inTransit', arriving: 'inTransit', commissioning: null, accepting: null } }),
  epcisCarrier({ glns: ['5790000000005'] }, { '9:5790000000012': 'SEGOT' }),
  { organizationId: 'org-b', clientId: 'x', clientSecret: 'y' },
  ALPINE,
];

// test/unit/gateway-spreadsheet.test.ts
const withSettings = (changes: Partial<NonNullable<ServedOrganization['spreadsheet']>>, org: ServedOrganization = ALPINE): ServedOrganization => ({ ...org, spreadsheet: { ...org.spreadsheet!, ...changes } });
const SHEET_CARRIER: ServedOrganization = {
  organizationId: 'org-carrier',
  clientId: 'carrier',
  clientSecret: 'secret',
  places: { 'Depot Linz': 'ATLNZ', Hamburg: 'DEHAM' },
  spreadsheet: { publish: true, timeZone: 'Europe/Berlin', bodyType: 'curtainsider', columns: { reference: 'Truck', origin: 'From', destination: 'To', availableFrom: 'Available', pallets: 'Pallets' } },
};
const POLISH = withSettings({
  timeZone: 'Europe/Warsaw',
  currency: undefined,
  countries: ['PL', 'DE'],
  columns: { reference: 'Nr auta', origin: 'Miejsce załadunku', destination: 'Kierunek', availableFrom: 'Wolny od', availableFromTime: 'Godzina', availableUntil: 'Wolny do', bodyType: 'Nadwozie', pallets: 'Miejsca paletowe', weight: 'Ładowność kg', loadingMetres: 'Metry ładowne' },
  bodyTypes: { Firanka: 'curtainsider', Chłodnia: 'refrigerated', Izoterma: 'insulated', Wywrotka: 'tipper' },
});
const CZECH: ServedOrganization = {
  ...withSettings({
    timeZone: 'Europe/Prague',
    currency: undefined,
    countries: ['CZ', 'AT', 'DE', 'PL'],
    columns: { reference: 'Číslo vozu', origin: 'Místo nakládky', destination: 'Místo vykládky', availableFrom: 'Volné od', availableFromTime: 'Čas', availableUntil: 'Volné do', bodyType: 'Nástavba', pallets: 'Palety', weight: 'Užitečná hmotnost kg', loadingMetres: 'Ložné metry' },
    bodyTypes: { plachta: 'curtainsider', skříň: 'box', chladírenský: 'refrigerated', sklápěč: 'tipper' },
  }),
  places: { Vídeň: 'ATVIE', Mnichov: 'DEMUC' },
};
const SHEET_COUNTRIES: ServedOrganization = {
  ...SHEET_CARRIER,
  places: {},
  spreadsheet: { ...SHEET_CARRIER.spreadsheet!, columns: { ...SHEET_CARRIER.spreadsheet!.columns, originCountry: 'From country', destinationCountry: 'To country', availableUntil: 'Until', weight: 'Weight', volume: 'Volume' } },
};
const SHEET_TEMPLATES: ServedOrganization[] = [ALPINE, SHEET_CARRIER, POLISH, CZECH, SHEET_COUNTRIES];
/** Settings the unit tests vary, one at a time, on top of a template. */
const SHEET_VARIANTS: Array<Partial<NonNullable<ServedOrganization['spreadsheet']>>> = [
  {},
  {},
  { dateFormat: undefined },
  { decimalSeparator: undefined },
  { decimalSeparator: '.' },
  { delimiter: ';' },
  { delimiter: ',' },
  { delimiter: '\t' },
  { encoding: 'windows-1250' },
  { encoding: 'iso-8859-2' },
  { encoding: 'utf-8' },
  { encoding: 'windows-1252' },
  { headerRow: 2 },
  { maxRows: 2 },
  { publish: false },
  { countries: ['AT', 'DE'] },
  { sheet: 'Tabelle1' },
  { sheet: 'Trucks' },
  { availableForHours: 10 },
  { destination: 'AT', bodyType: 'box', weightUnit: 'TNE', direction: 'oneWay', expires: { before: 'availableFrom', hours: 2 } },
  { dateFormat: 'MM/DD/YYYY' },
  { dateFormat: 'D.M.YY' },
];

// ------------------------------------------------------------------------------------------------
// Value pools shared by the generators.

const NON_ASCII = ['é', 'ü', 'ß', 'ř', 'ł', 'Ж', 'ω', '中', '€', '\u00a0', '\u200b', '\ufeff', '😀', '\ud800', '\udc00', 'ﬁ', 'İ', 'Ω'];
const CONTROL = ['\u0000', '\u0001', '\u0007', '\b', '\t', '\u000b', '\f', '\r', '\n', '\u001a', '\u001b', '\u001c', '\u001d', '\u001f', '\u007f', '\u0085', '\u009f'];

function junkText(rng: Rng, max = 40): string {
  const r = rng.next();
  if (r < 0.3) return rng.pick(['', ' ', 'x', '0', '-', 'null', 'undefined', 'NaN', '=1+1', '@SUM(A1)', '<b>', '%s%n', '../..', '\\', '"', "'", '?', '+', ':', '*']);
  let s = '';
  const n = rng.size(max);
  for (let i = 0; i < n; i++) {
    const k = rng.next();
    if (k < 0.6) s += String.fromCharCode(rng.range(0x20, 0x7e));
    else if (k < 0.8) s += rng.pick(NON_ASCII);
    else if (k < 0.9) s += rng.pick(CONTROL);
    else s += String.fromCharCode(rng.range(0, 0xffff));
  }
  return s;
}

function longText(rng: Rng): string {
  const unit = rng.pick(['A', '9', ' ', '?', ':', '+', "'", 'é', 'ab', '\n', ',', ';', '"', '0.', '-']);
  return unit.repeat(rng.pick([100, 1000, 10_000, 100_000]) / unit.length);
}

const UNLOCODES = ['DEHAM', 'NLRTM', 'ATVIE', 'ATLNZ', 'ATGRZ', 'BEANR', 'SEGOT', 'ZADUR', 'PLPOZ', 'PLWRO', 'PLKRK', 'CZPRG', 'CZBRQ', 'DEMUC', 'DEBER', 'ITMIL', 'FRPAR', 'USCHI', 'GBLON', 'XXXXX', 'DE HAM', 'de ham', 'AT GRZ', 'DEHAMX', 'D3HAM', 'QQ123', 'ZZZZZ'];
const CITIES = ['Hamburg', 'Wien', 'Vídeň', 'Linz', 'Graz', 'Kraków', 'Wrocław', 'Łódź', 'Poznań', 'Gdańsk', 'Szczecin', 'München', 'Mnichov', 'Praha', 'Brno', 'Ostrava', 'Katowice', 'Halle', 'Frankfurt', 'Frankfurt am Main', 'Zürich', 'São Paulo', 'Köln', 'Děčín', 'Győr', 'Москва', 'Depot Linz', 'Neustadt', 'Springfield', 'Rotterdam', 'Rotterdam Maasvlakte'];
const COUNTRIES = ['DE', 'AT', 'IT', 'PL', 'CZ', 'NL', 'FR', 'XX', 'EU', 'ZZ', 'AT-9', 'DE-BY', 'PL-02', 'Germany', 'Österreich', 'de', 'D'];

// ------------------------------------------------------------------------------------------------
// Byte-level mutations (the "random" half of every reader).

const SERVICE_BITS = [':', '+', '.', '?', "'", '*', ' ', '\r\n', '\n', 'UNA', 'UNB', 'UNH', 'UNT', 'UNZ', 'UNG', 'UNE', 'UNA:+.? \'', '\u001c', '\u001d', '\u001f', '{', '}', '[', ']', '"', ',', ';', '\\', '<', '>', '&', '&#0;', '<![CDATA[', '\u0000', '\xff\xfe', '\xef\xbb\xbf'];

function mutateBytes(input: Buffer, rng: Rng, donors: readonly Buffer[] = []): Buffer {
  let b = Buffer.from(input);
  // A NUL makes the gateway refuse a file before any format reads it: most mutations make none.
  const nul = rng.chance(0.15);
  const byte = () => (nul ? rng.int(256) : rng.range(1, 255));
  const ops = rng.range(1, rng.chance(0.2) ? 30 : 6);
  for (let k = 0; k < ops; k++) {
    const at = rng.int(b.length + 1);
    const op = rng.int(11);
    if (op === 0 && b.length) {
      // delete a run
      const len = rng.size(Math.max(1, Math.floor(b.length / 4)));
      b = Buffer.concat([b.subarray(0, at), b.subarray(at + len)]);
    } else if (op === 1) {
      // insert service characters (of every format: EDIFACT, JSON, CSV, XML)
      const bits = Array.from({ length: rng.range(1, 5) }, () => rng.pick(SERVICE_BITS)).join('').replace(/\u0000/g, nul ? '\u0000' : '\u0001');
      b = Buffer.concat([b.subarray(0, at), Buffer.from(bits, 'latin1'), b.subarray(at)]);
    } else if (op === 2 && b.length) {
      // repeat a stretch
      const len = Math.max(1, rng.size(Math.min(4096, b.length - Math.min(at, b.length - 1))));
      const from = Math.min(at, b.length - 1);
      const stretch = b.subarray(from, from + len);
      const times = rng.pick([2, 3, 10, 100, 1000, 10_000]);
      const copies = Math.max(1, Math.min(times, Math.floor((MAX_BYTES * 1.05) / Math.max(1, stretch.length))));
      b = Buffer.concat([b.subarray(0, from), ...Array(copies).fill(stretch), b.subarray(from)]);
    } else if (op === 3 && b.length) {
      // flip bits
      for (let n = rng.range(1, 8); n > 0; n--) {
        const i = rng.int(b.length);
        b[i] ^= 1 << rng.int(8);
        if (!nul && b[i] === 0) b[i] = 1;
      }
    } else if (op === 4 && b.length) {
      // set random bytes
      for (let n = rng.range(1, 8); n > 0; n--) b[rng.int(b.length)] = rng.pick([nul ? 0 : 1, 0x7f, 0x80, 0xa0, 0xc3, 0xed, 0xef, 0xfe, 0xff, byte()]);
    } else if (op === 5) {
      // truncate
      b = b.subarray(0, at);
    } else if (op === 6) {
      // a long run of one character
      const ch = rng.pick([' ', '\t', '\n', '\r\n', '?', ':', '+', "'", '0', 'A', '"', ',', ';', '[', '{', '<', '\\', 'é']);
      const n = rng.pick([10, 1000, 50_000, 300_000]);
      b = Buffer.concat([b.subarray(0, at), Buffer.from(ch.repeat(n), 'utf8'), b.subarray(at)]);
    } else if (op === 7 && donors.length) {
      // splice a piece of another real file
      const donor = rng.pick(donors);
      const from = rng.int(donor.length);
      b = Buffer.concat([b.subarray(0, at), donor.subarray(from, from + rng.size(donor.length)), b.subarray(at)]);
    } else if (op === 8 && b.length > 2) {
      // swap two pieces
      const x = rng.int(b.length);
      const y = rng.int(b.length);
      const [s, e] = x < y ? [x, y] : [y, x];
      const len = Math.min(rng.size(64), e - s);
      const first = Buffer.from(b.subarray(s, s + len));
      const second = Buffer.from(b.subarray(e, e + len));
      first.copy(b, e);
      second.copy(b, s);
    } else if (op === 9) {
      // insert random bytes
      const n = rng.size(512);
      const junk = Buffer.alloc(n);
      for (let i = 0; i < n; i++) junk[i] = byte();
      b = Buffer.concat([b.subarray(0, at), junk, b.subarray(at)]);
    } else if (b.length) {
      // an ASCII digit or letter changed (a number, a count, a code)
      const i = rng.int(b.length);
      b[i] = rng.pick([0x30 + rng.int(10), 0x41 + rng.int(26), 0x61 + rng.int(26)]);
    }
    if (b.length > MAX_BYTES * 1.1) b = b.subarray(0, rng.chance(0.5) ? MAX_BYTES : MAX_BYTES + rng.int(1000));
  }
  return b;
}

function randomBytes(rng: Rng): Buffer {
  const n = rng.size(rng.chance(0.05) ? MAX_BYTES + 10 : 65_536);
  const b = Buffer.alloc(n);
  const alphabet = rng.chance(0.5) ? undefined : Buffer.from(rng.pick(['UNB+:\'?UNH', '{}[]":,0123456789truefalsenull', 'abc;,"\r\n0123456789.', '<c r="A1"><v>1</v></c>', '\u0000\u00ff']), 'latin1');
  for (let i = 0; i < n; i++) b[i] = alphabet ? alphabet[rng.int(alphabet.length)] : rng.int(256);
  return b;
}

// ------------------------------------------------------------------------------------------------
// EDIFACT: generated interchanges. Three kinds of message: walked from the segment table of the
// message's own directory (gateway/edifact/directories.json.gz), each element as its directory
// defines it and the elements the mappings read from pools of real qualifiers; a coherent transport
// instruction or status report that should map (pick-up before delivery, UN/LOCODEs, a weight; a
// Rec 24 status with its time); and loose ones (segments in any order, of any tag). The envelope
// is made right ("clean") or with the errors senders make: counts, references, syntax identifier
// and version, UNA, character set.

const SYNTAX_IDS = ['UNOA', 'UNOB', 'UNOC', 'UNOD', 'UNOE', 'UNOF', 'UNOG', 'UNOH', 'UNOI', 'UNOJ', 'UNOK', 'UNOW', 'UNOY', 'UNOX'];
const BOGUS_SYNTAX = ['UNOZ', 'UNO', 'XXXX', '', 'UNOC1', 'unoc', 'IATB', 'UNOL'];
const ENCODING_OF: Record<string, string> = { UNOA: 'latin1', UNOB: 'latin1', UNOC: 'latin1', UNOD: 'iso-8859-2', UNOE: 'iso-8859-5', UNOF: 'iso-8859-7', UNOG: 'iso-8859-3', UNOH: 'iso-8859-4', UNOI: 'iso-8859-6', UNOJ: 'iso-8859-8', UNOK: 'iso-8859-9', UNOW: 'utf8', UNOY: 'utf8', UNOX: 'latin1' };
const WRONG_ENCODINGS = ['utf8', 'latin1', 'utf16le', 'utf16be', 'iso-8859-5', 'win1251', 'cp437', 'iso-8859-2'];
const DIRECTORIES = ['D:93A', 'D:94A', 'D:94B', 'D:95A', 'D:95B', 'D:96A', 'D:96B', 'D:97A', 'D:97B', 'D:98A', 'D:98B', 'D:99A', 'D:99B', 'D:00A', 'D:00B', 'D:01A', 'D:01B', 'D:01C', 'D:02A', 'D:02B', 'D:03A', 'D:03B', 'D:04A', 'D:04B', 'D:05A', 'D:05B', 'D:06A', 'D:07A', 'D:08A', 'D:09A', 'D:10A', 'D:10B', 'D:11A', 'D:12A', 'D:16A', 'D:20B', 'D:24A', 'S:93A', 'D:', ':', 'D:04', 'D:4A', 'X:04A', 'D:99Z'];
const OTHER_TYPES = ['APERAK', 'CONTRL', 'INVOIC', 'ORDERS', 'IFCSUM', 'IFTSAI', 'DESADV', 'PAXLST', 'AUTACK', 'IFTMIN1', 'iftmin', 'XXXXXX', ''];
const DTM_QUALIFIERS = ['2', '17', '63', '64', '132', '133', '178', '186', '200', '234', '235', '334', '78', '10', '69', '137', '7', '999', ''];
const DTM_FORMATS = ['102', '203', '204', '205', '303', '304', '718', '719', '101', '', 'X', '9999'];
const LOC_QUALIFIERS = ['9', '5', '10', '7', '11', '12', '8', '14', '13', '20', '88', '175', ''];
const STS_CODES = [...Object.keys(REC24), '1', '1', '21', '13', '24', '0', '42', '380', 'S', '21A', '012', ''];
const RFF_QUALIFIERS = [...REFERENCE_QUALIFIERS, 'CU', 'FF', 'VON', 'ABO', 'ZZZ', ''];
/** UN/LOCODEs the exchange's area index has. */
const KNOWN_LOCODES = ['DEHAM', 'NLRTM', 'ATVIE', 'ATLNZ', 'BEANR', 'SEGOT', 'ZADUR', 'PLPOZ', 'CZPRG', 'DEMUC', 'DEBER', 'FRPAR', 'ITMIL', 'PLWRO', 'PLKRK', 'DKAAR', 'NOOSL'];
/** The segments the mappings read (IFTMIN_READS, IFTSTA_READS) and those that start the status groups' sub-groups. */
const READ_TAGS = new Set(['BGM', 'NAD', 'RFF', 'LOC', 'DTM', 'CNT', 'MEA', 'DGS', 'TMP', 'RNG', 'GDS', 'CNI', 'STS', 'FTX', 'TDT', 'EQD', 'GID']);

type Elements = Array<string | string[]>;

function datetime(rng: Rng, base: number, format: string, clean = false): string {
  const d = new Date(base + (rng.int(240) - 120) * 86_400_000 + rng.int(86_400) * 1000);
  const y = d.getUTCFullYear();
  const ymd = `${y}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
  const hm = `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;
  const invalid = !clean && rng.chance(0.15);
  const date = invalid ? rng.pick(['20260230', '20021348', '99999999', '00000000', '20261301', '2026123', '202612011', '2026-12-01', '19691231', '99991231']) : ymd;
  const time = invalid && rng.chance(0.5) ? rng.pick(['2460', '2599', '9999', '12', '123456']) : hm;
  switch (format) {
    case '102':
      return date;
    case '203':
      return `${date}${time}`;
    case '204':
      return `${date}${time}${pad(rng.int(!clean && rng.chance(0.1) ? 100 : 60))}`;
    case '205':
      return `${date}${time}${rng.pick(['+', '-'])}${pad(rng.int(clean ? 14 : 16))}${pad(rng.pick(clean ? [0, 30, 45] : [0, 30, 45, 99]))}`;
    case '303':
      return `${date}${time}${rng.pick(clean ? ['UTC', 'GMT', 'Z', '+01', '-05'] : ['UTC', 'GMT', 'Z', '+01', '-05', '+15', 'CET', ''])}`;
    case '304':
      return `${date}${time}${pad(rng.int(60))}${rng.pick(clean ? ['UTC', 'Z', '+02'] : ['UTC', 'Z', '+02', '-14', '+99'])}`;
    case '718': {
      const other = datetime(rng, base, '102', clean);
      return clean || rng.chance(0.8) ? `${date}-${other}` : rng.pick([`${date}-`, `-${date}`, `${date}-${date}-${date}`, date]);
    }
    case '719': {
      const other = datetime(rng, base, '203', clean);
      return clean || rng.chance(0.8) ? `${date}${time}-${other}` : rng.pick([`${date}${time}`, `${date}${time}--${other}`]);
    }
    default:
      return rng.pick([ymd, `${ymd}${hm}`, junkText(rng, 20), String(rng.int(1e9))]);
  }
}

function ediNumber(rng: Rng, decimal: string, clean = false): string {
  if (clean) return rng.pick([String(rng.range(1, 30_000)), `${rng.range(1, 30_000)}${decimal}${rng.int(100)}`, String(rng.range(1, 40))]);
  return rng.pick([
    String(rng.int(30_000)),
    `${rng.int(30_000)}${decimal}${rng.int(100)}`,
    `${rng.int(30_000)},${rng.int(100)}`,
    `${rng.int(30_000)}.${rng.int(100)}`,
    `-${rng.int(100)}`,
    '0',
    '',
    'ten',
    '1e5',
    '1.000.000',
    '9'.repeat(rng.pick([16, 40, 400])),
    '.5',
    ',5',
    'NaN',
    'Infinity',
    '10010,5,5',
  ]);
}

function ediValue(rng: Rng, clean = false): string {
  const r = rng.next();
  // Clean values are in every character set's repertoire (ISO 8859-1 letters are read as such in UNOA and UNOB).
  if (clean) return rng.pick(['467332', 'CONS-1', 'S1', 'ICT', 'CARRIER', '5790000000005', '9110000000002', '5412345678908', 'TRIP-42', 'A+B\'C', 'ROTTERDAM', 'Wien', `REF${rng.int(1e6)}`, 'a:b?c*d']);
  if (r < 0.55) return rng.pick(['467332', 'CONS-1', 'S1', 'ICT', 'CARRIER', '5790000000005', '9110000000002', '5412345678908', 'TRIP-42', 'A+B\'C', 'ROTTERDAM', 'Wien', 'Vídeň', 'GÖTEBORG', 'ÅRHUS', `REF${rng.int(1e6)}`, 'Ελλάδα', 'Москва']);
  if (r < 0.75) return `${rng.pick(['REF', 'T', 'X', ''])}${rng.int(1e6)}`;
  if (r < 0.97) return junkText(rng);
  return longText(rng);
}

/** A segment's text, each value escaped with the release character (or, sometimes, not). */
function segmentText(tag: string, elements: Elements, ch: Chars, rng: Rng, clean = false): string {
  const escape = (v: string) => {
    if (!ch.release && clean) return [...v].filter((c) => ![ch.component, ch.element, ch.repetition, ch.terminator].includes(c)).join('');
    if (!ch.release || (!clean && rng.chance(0.03))) return v;
    let out = '';
    for (const c of v) out += [ch.component, ch.element, ch.release, ch.repetition, ch.terminator].includes(c) ? ch.release + c : c;
    return out;
  };
  const el = elements.map((e) => (Array.isArray(e) ? e.map(escape).join(ch.component) : escape(e))).join(ch.element);
  return `${tag}${elements.length ? ch.element : ''}${el}${ch.terminator}`;
}

interface MessageContext {
  rng: Rng;
  type: string;
  base: number;
  decimal: string;
  othersIds: string[];
  clean: boolean;
}

/** Realistic elements of the segments the mappings read (undefined for another tag); in a clean message, what its directory requires is there. */
function realistic(tag: string, x: MessageContext, qualifier?: string, directory?: Directory): Elements | undefined {
  const elements = realisticRaw(tag, x, qualifier);
  return elements && x.clean ? withMandatory(elements, directory ?? directoryOf('D', '04A')!, tag, x.rng) : elements;
}

/** The elements and components a directory makes mandatory, filled where they are empty. */
function withMandatory(elements: Elements, directory: Directory, tag: string, rng: Rng): Elements {
  const definition = directory.segments[tag];
  if (!definition) return elements;
  const out = elements.map((e) => (Array.isArray(e) ? [...e] : e));
  definition.elements.forEach((id, e) => {
    const element = directory.elements[id];
    if (!element) return;
    const current = out[e] ?? '';
    const components = Array.isArray(current) ? current : [current];
    const present = components.some((v) => v !== '');
    if (e >= definition.requires && !present) return;
    const filled = element.components.map((format, c) => (components[c] ? components[c] : c < Math.max(element.requires, present ? 0 : 1) ? representation(format, rng) : ''));
    while (filled.length > 1 && filled[filled.length - 1] === '') filled.pop();
    while (out.length < e) out.push('');
    out[e] = components.length > element.components.length ? components : filled;
  });
  return out;
}

function realisticRaw(tag: string, x: MessageContext, qualifier?: string): Elements | undefined {
  const { rng, clean } = x;
  const status = x.type === 'IFTSTA';
  switch (tag) {
    case 'BGM':
      return status ? [rng.pick(clean ? ['77', '23'] : ['77', '23', '']), ediValue(rng, clean), rng.pick(clean ? ['9', '8', '7', '5'] : ['9', '8', '7', '5', '1', '3', ''])] : [rng.pick(clean ? ['340', '610', '335'] : ['340', '610', '335', '']), ediValue(rng, clean), rng.pick(clean ? ['9', '9', '9', '5'] : ['9', '9', '9', '5', '1', ''])];
    case 'DTM': {
      const format = clean ? rng.pick(['102', '203', '204', '205', '303', '718', '719']) : rng.pick(DTM_FORMATS);
      const q = qualifier ?? (status ? rng.pick(['334', '78', '178', '186', '132', '17', '133', '137', ...(clean ? [] : DTM_QUALIFIERS)]) : rng.pick(['234', '235', '200', '10', '133', '64', '63', '2', '17', '69', '132', '137', ...(clean ? [] : DTM_QUALIFIERS)]));
      return [[q, datetime(rng, x.base, format, clean), ...(clean || rng.chance(0.9) ? [format] : [])]];
    }
    case 'LOC': {
      const id = clean || rng.chance(0.7) ? rng.pick(clean ? KNOWN_LOCODES : UNLOCODES) : rng.pick(['5412345678908', '5790000000012', 'DEPOT-1', '', junkText(rng, 12)]);
      const agency = clean ? rng.pick(['6', '']) : rng.pick(['6', '', '9', '92', '5', 'ZZZ']);
      const name = !clean && rng.chance(0.4) ? rng.pick([...CITIES, junkText(rng, 30)]) : '';
      return [qualifier ?? rng.pick(status ? ['14', '13', '9', '7', '8', '11', '20', ...(clean ? [] : LOC_QUALIFIERS)] : clean ? ['9', '5', '10', '7', '11', '12', '8'] : LOC_QUALIFIERS), !clean && rng.chance(0.05) ? [id] : [id, '', agency, ...(name ? [name] : [])]];
    }
    case 'NAD':
      return [rng.pick(['CZ', 'CN', 'CA', 'SF', 'ST', 'FW', 'MS', 'MR']), [rng.chance(clean ? 0.03 : 0.1) && x.othersIds.length ? rng.pick(x.othersIds) : ((v) => (clean && x.othersIds.includes(v) ? 'PARTY-1' : v))(ediValue(rng, clean)), '', rng.pick(['9', '91', '92', ''])], ...(!clean && rng.chance(0.5) ? [[''], [rng.pick(CITIES)]] : [])];
    case 'RFF':
      return [[qualifier ?? rng.pick(clean ? REFERENCE_QUALIFIERS : RFF_QUALIFIERS), ediValue(rng, clean)]];
    case 'CNI':
      return [String(rng.range(1, 9)), [ediValue(rng, clean)]];
    case 'STS': {
      const reasons = Array.from({ length: rng.int(clean ? 2 : 4) }, () => [rng.pick(clean ? [...DELAY_REASONS, '1', '99'] : ['', '1', '7', '13', '50', '99', 'AF', 'X', ...DELAY_REASONS]), '', rng.pick(clean ? ['', '6'] : ['', '6', '9']), !clean && rng.chance(0.3) ? ediValue(rng) : '']);
      return [rng.pick(clean ? ['1'] : ['1', '1', '1', '2', '']), [qualifier ?? rng.pick(clean ? Object.keys(REC24) : STS_CODES), '', rng.pick(clean ? ['', '6'] : ['', '', '6', '9', 'ZZZ']), ...(!clean && rng.chance(0.3) ? [ediValue(rng)] : [])], ...reasons];
    }
    case 'MEA':
      return clean
        ? [rng.pick(['AAE', 'WT']), rng.pick(['AAD', 'G', 'LMT', 'AAW']), [rng.pick(['KGM', 'TNE', 'MTR', 'MTQ']), ediNumber(rng, x.decimal, true)]]
        : [rng.pick(['AAE', 'WT', 'VOL', 'CT', '']), rng.pick(['AAD', 'G', 'AAL', 'LMT', 'AAW', 'ABJ', 'X', '']), [rng.pick(['KGM', 'TNE', 'GRM', 'LBR', 'MTQ', 'LTR', 'DMQ', 'FTQ', 'MTR', 'XXX', '']), ediNumber(rng, x.decimal)]];
    case 'DGS':
      return [rng.pick(['ADR', 'RID', 'IMD', ...(clean ? [] : [''])]), [rng.pick(['1', '1.4', '2.1', '3', '4.1', '5.1', '6.1', '7', '8', '9', ...(clean ? [] : ['10', 'X', '5.1.2', ''])]), rng.pick(['', '(6.1+8)'])], rng.pick(['1463', '1203', ...(clean ? [] : ['12345', 'UN1203', ''])]), '', rng.pick(['1', '2', '3', 'I', 'II', 'III', ...(clean ? [] : ['IV', ''])]), rng.pick(['(E)', ''])];
    case 'TMP':
      return [rng.pick(['2', '1', ...(clean ? [] : [''])]), [ediNumber(rng, x.decimal, clean), rng.pick(['CEL', 'FAH', ...(clean ? [] : ['KEL', ''])])]];
    case 'RNG':
      return [rng.pick(['5', '4']), [rng.pick(['CEL', 'FAH', ...(clean ? [] : [''])]), ediNumber(rng, x.decimal, clean), ediNumber(rng, x.decimal, clean)]];
    case 'GDS':
      return [[rng.pick(['11', '12', '13', '14', '15', '16', '17', '18', '19', '20', ...(clean ? [] : ['A', ''])])]];
    case 'CNT':
      return [[rng.pick(['7', '11', '8', '1']), ediNumber(rng, x.decimal, clean), rng.pick(['KGM', 'TNE', ''])]];
    case 'FTX':
      return [rng.pick(['AHN', 'AAI', 'ACB', 'AAO', 'AEA', 'DEL', 'SIN', ...(clean ? [] : ['ZZZ', ''])]), '', '', [ediValue(rng, clean), ediValue(rng, clean)]];
    case 'TDT':
      return [rng.pick(['20', '1']), ediValue(rng, clean), rng.pick(['3', '1', '2', '8'])];
    case 'EQD':
      return [rng.pick(['CN', 'TE']), ediValue(rng, clean)];
    case 'GID':
      return [String(rng.range(1, 9)), [String(rng.range(1, 50)), rng.pick(['PX', 'CT', ''])]];
    default:
      return undefined;
  }
}

/** A value of an EDIFACT representation (an..35, n..15, a3). */
function representation(format: string, rng: Rng): string {
  const m = /^(an|a|n)(\.\.)?(\d+)$/.exec(format);
  if (!m) return 'X';
  const max = Number(m[3]);
  const length = m[2] ? rng.range(1, Math.min(max, 10)) : max;
  const chars = m[1] === 'n' ? '0123456789' : m[1] === 'a' ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -/';
  let s = '';
  for (let i = 0; i < length; i++) s += chars[rng.int(chars.length)];
  return m[1] === 'an' ? s.trim() || 'X' : s;
}

/** Elements of any segment as its directory defines it: the mandatory ones, and some of the others. */
function defined(directory: Directory, tag: string, rng: Rng): Elements {
  const definition = directory.segments[tag];
  if (!definition) return [representation('an..10', rng)];
  const out: Elements = definition.elements.map((id, e) => {
    const element = directory.elements[id];
    if (!element) return '';
    if (e >= definition.requires && !rng.chance(0.3)) return '';
    return element.components.map((format, c) => (c < Math.max(1, element.requires) || rng.chance(0.3) ? representation(format, rng) : ''));
  });
  while (out.length && (out[out.length - 1] === '' || (Array.isArray(out[out.length - 1]) && (out[out.length - 1] as string[]).every((v) => v === '')))) out.pop();
  return out.map((e) => (Array.isArray(e) ? e.slice(0, e.reduce((last, v, i) => (v !== '' ? i + 1 : last), 0)) : e));
}

/** A message's segments walked from its segment table: mandatory ones, optional ones (those the mappings read more often), groups repeated. */
function walkTable(table: readonly SegmentTableEntry[], x: MessageContext, directory: Directory, out: Array<[string, Elements]>, depth = 0) {
  const { rng } = x;
  const reads = (entry: SegmentTableEntry): boolean => (typeof entry.content === 'string' ? READ_TAGS.has(entry.content) : entry.content.some(reads));
  for (const [i, entry] of table.entries()) {
    if (entry.content === 'UNH' || entry.content === 'UNT') continue;
    const first = i === 0 && depth > 0; // a group's trigger segment
    const p = entry.mandatory || first ? 1 : reads(entry) ? 0.45 : 0.08;
    if (!rng.chance(p)) continue;
    const times = Math.min(entry.repetition, rng.chance(0.15) ? rng.range(2, 4) : 1);
    for (let n = 0; n < times && out.length < 400; n++) {
      if (typeof entry.content === 'string') {
        const tag = entry.content;
        out.push([tag, (rng.chance(0.9) && realistic(tag, x, undefined, directory)) || defined(directory, tag, rng)]);
      } else walkTable(entry.content, x, directory, out, depth + 1);
    }
  }
}

/** A transport instruction or status report that should map: its segments in the order of D.04A's table. */
function coherent(x: MessageContext): Array<[string, Elements]> {
  const { rng } = x;
  const seg = (tag: string, qualifier?: string): [string, Elements] => [tag, realistic(tag, x, qualifier)!];
  const dtm = (q: string, at: number, format: string): [string, Elements] => {
    const d = new Date(at);
    const ymd = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
    const hm = `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;
    const value = format === '102' ? ymd : format === '203' ? `${ymd}${hm}` : format === '204' ? `${ymd}${hm}00` : format === '303' ? `${ymd}${hm}UTC` : `${ymd}${hm}+0100`;
    return ['DTM', [[q, value, format]]];
  };
  const day = 86_400_000;
  if (x.type === 'IFTSTA') {
    const out: Array<[string, Elements]> = [seg('BGM'), dtm('137', x.base, '203')];
    if (rng.chance(0.3)) out.push(seg('NAD'));
    if (rng.chance(0.3)) out.push(seg('RFF'));
    for (let c = rng.range(1, 3); c > 0; c--) {
      out.push(seg('CNI'));
      for (let s = rng.range(1, 3); s > 0; s--) {
        const at = x.base - rng.int(20) * day - rng.int(day);
        out.push(seg('STS'));
        if (rng.chance(0.4)) out.push(seg('RFF'));
        out.push(dtm(rng.pick(['334', '334', '78', '178', '186']), at, rng.pick(['203', '204', '303', '205'])));
        if (rng.chance(0.3)) out.push(dtm(rng.pick(['132', '17', '133']), at + rng.int(3) * day, rng.pick(['203', '303'])));
        if (rng.chance(0.3)) out.push(seg('FTX'));
        if (rng.chance(0.6)) out.push(seg('LOC', rng.pick(['14', '13', '9', '7', '8', '11', '20'])));
      }
    }
    return out;
  }
  const pickup = x.base + rng.range(1, 20) * day + rng.range(6, 14) * 3_600_000;
  const delivery = pickup + rng.range(1, 3) * day;
  const out: Array<[string, Elements]> = [seg('BGM')];
  if (rng.chance(0.6)) out.push(dtm('234', pickup, '203'), dtm('235', pickup + 2 * 3_600_000, '203'));
  else out.push(dtm(rng.pick(['200', '10', '133']), pickup, rng.pick(['102', '203'])));
  if (rng.chance(0.6)) out.push(dtm('64', delivery, '203'), dtm('63', delivery + 4 * 3_600_000, '203'));
  else out.push(dtm(rng.pick(['2', '17', '69', '132']), delivery, rng.pick(['102', '203'])));
  if (rng.chance(0.3)) out.push(seg('CNT', '7'));
  if (rng.chance(0.3)) out.push(seg('GDS'));
  out.push(seg('LOC', rng.pick(['9', '5', '10'])), seg('LOC', rng.pick(['7', '11', '12', '8'])));
  if (rng.chance(0.5)) out.push(seg('RFF'));
  if (rng.chance(0.3)) out.push(seg('TDT'));
  out.push(seg('NAD'));
  if (rng.chance(0.5)) out.push(seg('NAD'));
  out.push(seg('GID'));
  if (rng.chance(0.2)) out.push(seg('TMP'));
  if (rng.chance(0.2)) out.push(seg('RNG'));
  out.push(['MEA', [rng.pick(['AAE', 'WT']), rng.pick(['AAD', 'G']), [rng.pick(['KGM', 'TNE']), ediNumber(rng, x.decimal, true)]]]);
  if (rng.chance(0.2)) out.push(seg('DGS'));
  return out;
}

/** Loose messages: the segments the mappings read, in any order and number, with other tags among them. */
function loose(x: MessageContext): Array<[string, Elements]> {
  const { rng } = x;
  const seg = (tag: string, qualifier?: string): [string, Elements] => [tag, realistic(tag, x, qualifier)!];
  const generic = (): [string, Elements] => [rng.pick(['XYZ', 'UNS', 'TSR', 'CTA', 'COM', 'PCI', 'SEL', 'SGP', 'QTY', 'PIA', 'IMD', 'UNH', 'UNT', 'UNA', 'BGM', 'A1B', '1AB', 'AB', 'ABCD']), [ediValue(rng), [ediValue(rng), ediValue(rng)]]];
  const out: Array<[string, Elements]> = [seg('BGM')];
  for (let n = rng.int(12); n > 0; n--) out.push(seg(rng.pick([...READ_TAGS])));
  if (rng.chance(0.3)) out.splice(rng.int(out.length + 1), 0, generic());
  if (rng.chance(0.3)) rng.shuffle(out);
  return out;
}

/** The segments of one message between UNH and UNT. */
function messageBody(x: MessageContext, directory: Directory | undefined): Array<[string, Elements]> {
  const { rng } = x;
  const table = directory?.messages[x.type] ?? (x.type === 'IFTMIN' || x.type === 'IFTSTA' ? directoryOf('D', '04A')!.messages[x.type] : undefined);
  const mode = rng.next();
  let out: Array<[string, Elements]>;
  if ((x.type === 'IFTMIN' || x.type === 'IFTSTA') && mode < (x.clean ? 0.7 : 0.4)) out = coherent(x);
  else if (table && (x.clean || mode < 0.8)) {
    out = [];
    walkTable(table, x, directory ?? directoryOf('D', '04A')!, out);
  } else out = loose(x);
  if (!x.clean) {
    // The segment table broken: a segment out of place, one repeated a lot.
    if (rng.chance(0.1)) out.splice(rng.int(out.length + 1), 0, loose(x)[0]);
    if (rng.chance(0.03) && out.length) {
      const one = rng.pick(out);
      // As many as fit the gateway's size limit, about (a segment of a long value is repeated less).
      const times = Math.min(rng.pick([50, 1000, 20_000]), Math.ceil((MAX_BYTES * 1.2) / (JSON.stringify(one).length + 1)));
      for (let i = 0; i < times; i++) out.push(one);
    }
  }
  return out;
}

function generateInterchange(rng: Rng, org: ServedOrganization, othersIds: string[]): { bytes: Buffer; how: string } {
  const clean = rng.chance(0.5);
  const useUna = rng.chance(0.6);
  // The characters of syntax level A, as the gateway's tokenizer defaults to them; UNA may change each.
  const std = LEVEL_A;
  let ch: Chars = std;
  let una = '';
  const identifier = clean ? rng.pick(['UNOA', 'UNOB', 'UNOC', 'UNOC', 'UNOD', 'UNOW', 'UNOY', 'UNOK']) : rng.chance(0.9) ? rng.pick(SYNTAX_IDS) : rng.pick(BOGUS_SYNTAX);
  const version = clean ? rng.pick(['3', '4']) : rng.chance(0.9) ? rng.pick(['1', '2', '3', '4', '3', '4']) : rng.pick(['0', '5', '', 'x', '33', '-1']);
  if (useUna) {
    if (rng.chance(0.5)) ch = { ...std, decimal: rng.chance(0.3) ? ',' : '.', repetition: version === '4' ? '*' : undefined };
    else {
      const printable = rng.shuffle([...'!"#%&()*+,-./:;<=>?@[]^_`{|}~\'$']);
      const [component, element, release, repetition, terminator] = printable;
      ch = { component, element, decimal: rng.chance(0.3) ? ',' : '.', release: rng.chance(0.15) ? undefined : release, repetition: rng.chance(0.3) ? undefined : repetition, terminator: rng.chance(0.05) ? '\n' : terminator };
      if (!clean && rng.chance(0.05)) ch = { ...ch, element: ch.component }; // not distinct
    }
    una = `UNA${ch.component}${ch.element}${!clean && rng.chance(0.03) ? 'x' : ch.decimal}${ch.release ?? ' '}${ch.repetition ?? ' '}${ch.terminator}`;
    if (!clean && rng.chance(0.03)) una = una.slice(0, rng.int(una.length));
  } else if (rng.chance(0.05)) ch = { component: '\u001f', element: '\u001d', decimal: '.', release: undefined, repetition: '\u0019', terminator: '\u001c' }; // level B
  else if (version === '4' && rng.chance(0.7)) ch = { ...std, repetition: '*' };
  const layout = ch.terminator === '\n' || ch.terminator === '\r' ? '' : rng.pick(['', '', '\n', '\r\n', '\r\n  ', ' \n']);
  const base = rng.chance(0.5) ? GEN_NOW : rng.pick([Date.parse('2031-06-01T10:00:00Z'), Date.parse('2026-12-01T08:00:00Z'), Date.parse('2002-02-04T10:00:00Z')]);
  const senderIds = org.edifact?.senderIds ?? [];
  const sender = (clean || rng.chance(0.85)) && senderIds.length ? rng.pick(senderIds) : rng.chance(0.5) && othersIds.length ? rng.pick(othersIds) : ediValue(rng);
  const reference = clean || rng.chance(0.9) ? `R${rng.int(1e9)}` : ediValue(rng);
  const wrong = (p: number) => !clean && rng.chance(p);
  const segments: string[] = [];
  const d = new Date(base);
  const seg = (tag: string, elements: Elements) => segmentText(tag, elements, ch, rng, clean);
  segments.push(
    seg('UNB', [
      [identifier, version],
      rng.chance(0.5) ? [sender, rng.pick(['14', 'ZZZ', '1'])] : [sender],
      [rng.pick(['PCX-GATEWAY', 'PCX-GW', '5412345123453', ...(clean ? [] : [ediValue(rng)])])],
      [version === '4' ? `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}` : `${pad(d.getUTCFullYear() % 100)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`, wrong(0.1) ? rng.pick(['2460', '12', 'x', '']) : `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`],
      reference,
      ...(rng.chance(0.2) ? [[''], [rng.pick(['IFTMIN', 'IFTSTA'])], [rng.pick(['A', ...(clean ? [] : ['', 'XX'])])], [rng.pick(['1', ...(clean ? [] : ['0', 'x'])])]] : []),
    ]),
  );
  const groups = rng.chance(0.15);
  const messageCount = clean && rng.chance(0.6) ? 1 : rng.range(1, 5);
  let groupOpen = false;
  let groupRef = '';
  let inGroup = 0;
  let groupCount = 0;
  for (let m = 0; m < messageCount; m++) {
    if (groups && (!groupOpen || rng.chance(0.3))) {
      if (groupOpen && !wrong(0.1)) segments.push(seg('UNE', [String(wrong(0.15) ? inGroup + 1 : inGroup), groupRef]));
      groupRef = `G${rng.int(1000)}`;
      segments.push(seg('UNG', [rng.pick(['IFTMIN', 'IFTSTA', 'X']), [sender], ['PCX-GATEWAY'], ['261201', '1200'], groupRef, 'UN', ['D', '04A']]));
      groupOpen = true;
      inGroup = 0;
      groupCount++;
    }
    const type = rng.chance(0.45) ? 'IFTMIN' : rng.chance(clean ? 1 : 0.8) ? 'IFTSTA' : rng.pick(OTHER_TYPES);
    const [v, r] = (clean || rng.chance(0.6) ? (rng.chance(0.7) ? 'D:04A' : rng.pick(DIRECTORIES.slice(0, 32))) : rng.pick(DIRECTORIES)).split(':');
    const directory = directoryOf(v ?? '', r ?? '');
    const messageRef = wrong(0.1) ? ediValue(rng) : String(m + 1);
    const x: MessageContext = { rng, type, base, decimal: ch.decimal, othersIds, clean };
    const body = messageBody(x, directory).map(([tag, elements]) => seg(tag, elements));
    const unh = seg('UNH', [messageRef, [type, v ?? '', r ?? '', clean ? 'UN' : rng.pick(['UN', 'UN', '', 'XX']), ...(rng.chance(0.2) ? [rng.pick(['EAN004', 'BIG14', 'IFTSTA'])] : [])]]);
    const count = body.length + 2;
    const unt = seg('UNT', [String(wrong(0.15) ? rng.pick([count + 1, count - 1, 0, 999999]) : count), wrong(0.1) ? ediValue(rng) : messageRef]);
    if (wrong(0.02)) segments.push(unh, ...body);
    else segments.push(unh, ...body, unt);
    inGroup++;
  }
  if (groupOpen && !wrong(0.1)) segments.push(seg('UNE', [String(wrong(0.15) ? 0 : inGroup), groupRef]));
  const counted = groups ? groupCount : messageCount;
  segments.push(seg('UNZ', [String(wrong(0.15) ? rng.pick([counted + 1, 0, 99]) : counted), wrong(0.1) ? ediValue(rng) : reference]));
  // Long values in many segments can make more than the gateway takes: cut to about its limit (it refuses anything over it unread).
  let total = 0;
  const kept = segments.filter((segment) => (total += segment.length + layout.length) <= MAX_BYTES * 1.5);
  let text = una + (una && layout.includes('\n') ? '\r\n' : '') + kept.join(layout);
  if (rng.chance(0.05)) text = text.slice(0, -1); // no final terminator
  if (rng.chance(0.05)) text = `${rng.pick(['DOC+HEADER\n', '\ufeff', '\r\n\r\n', ...(clean ? [] : ['garbage'])])}${text}`;
  if (!clean && rng.chance(0.02)) {
    // layout between segments: a long run of spaces or line breaks
    const at = text.indexOf(ch.terminator, rng.int(text.length));
    if (at >= 0) text = text.slice(0, at + 1) + rng.pick([' ', '\r\n', ' \n', '\t']).repeat(rng.pick([1000, 100_000, 300_000])) + text.slice(at + 1);
  }
  const correct = ENCODING_OF[identifier] ?? 'latin1';
  const encoding = !wrong(0.15) ? correct : rng.pick(WRONG_ENCODINGS);
  return { bytes: iconv.encode(text, encoding), how: `edifact:generated(${clean ? 'clean ' : ''}${identifier}:${version}, ${messageCount} messages, ${encoding === correct ? '' : 'wrong '}encoding ${encoding}${useUna ? ', UNA' : ''})` };
}

// ------------------------------------------------------------------------------------------------
// EPCIS: structural edits of real documents, and events made from the grammar.

const BIZ_STEPS = ['loading', 'shipping', 'consigning', 'collecting', 'departing', 'transporting', 'arriving', 'unloading', 'receiving', 'accepting', 'void_shipping', 'commissioning', 'inspecting', 'packing', 'sensor_reporting', 'holding', 'staging_outbound'];
const MILESTONE_NAMES = ['atPickup', 'pickedUp', 'inTransit', 'delayed', 'atDelivery', 'delivered', 'failed', 'unknown'];
const DISPOSITIONS = ['in_transit', 'in_progress', 'active', 'damaged', 'destroyed', 'returned', 'unknown', 'completeness_verified'];

function epcisTime(rng: Rng, clean = false): string {
  const base = rng.chance(0.5) ? GEN_NOW : Date.parse(rng.pick(['2031-06-01T10:40:00Z', '2005-04-03T20:33:31Z', '2020-07-03T12:00:00Z']));
  const d = new Date(base + (rng.int(2000) - 1000) * 3_600_000 + rng.int(3600) * 1000);
  const iso = d.toISOString();
  if (clean) return rng.pick([iso, `${iso.slice(0, 19)}${rng.pick(['Z', '+02:00', '-05:00', '+00:00'])}`, `${iso.slice(0, 19)}.${'123456789'.slice(0, rng.range(1, 9))}+01:00`]);
  const offset = rng.pick(['Z', '+02:00', '-05:00', '+14:00', '-12:00', '+00:00', 'z', '+24:00', '+02:60', '+0200', '']);
  return rng.pick([
    iso,
    `${iso.slice(0, 19)}${offset}`,
    `${iso.slice(0, 19)}.${'1234567890123'.slice(0, rng.range(1, 13))}${offset}`,
    iso.slice(0, 10),
    iso.replace('T', ' '),
    '2031-02-29T10:00:00Z',
    '2024-02-29T10:00:00+01:00',
    '2031-13-01T00:00:00Z',
    '2031-06-31T00:00:00Z',
    '2031-06-01T24:00:00Z',
    '2031-06-01T23:59:60Z',
    '1969-12-31T23:59:59Z',
    '1970-01-01T00:00:00+01:00',
    '9999-12-31T23:59:59-01:00',
    '0000-01-01T00:00:00Z',
    '+002031-06-01T10:00:00Z',
    junkText(rng, 30),
  ]);
}

function epcisUri(rng: Rng, kind: 'bizStep' | 'disposition', clean = false): string {
  const term = kind === 'bizStep' ? rng.pick(BIZ_STEPS) : rng.pick(DISPOSITIONS);
  const Kind = kind === 'bizStep' ? 'BizStep' : 'Disp';
  if (clean) return rng.pick([term, term, `https://ref.gs1.org/cbv/${Kind}-${term}`, `https://schemas.pcx.example/v0/epcis/BizStep-${rng.pick(MILESTONE_NAMES)}`, 'https://alpine.example/bizstep/gate-out']);
  return rng.pick([
    term,
    `urn:epcglobal:cbv:${kind === 'bizStep' ? 'bizstep' : 'disp'}:${term}`,
    `https://ref.gs1.org/cbv/${Kind}-${term}`,
    `http://ref.gs1.org/cbv/${Kind}-${term}`,
    `cbv:${Kind}-${term}`,
    `https://schemas.pcx.example/v0/epcis/BizStep-${rng.pick(MILESTONE_NAMES)}`,
    `pcx:BizStep-${rng.pick(MILESTONE_NAMES)}`,
    'https://alpine.example/bizstep/gate-out',
    `urn:epcglobal:cbv:bizstep:${term.toUpperCase()}`,
    `https://ref.gs1.org/cbv/${Kind}-`,
    junkText(rng, 40),
  ]);
}

function gln(rng: Rng): string {
  return rng.pick(['5790000000005', '5790000000012', '9110000000007', '4012345000115', '4012345000221', '0614141073467', '0012345111112', String(rng.int(1e13)).padStart(13, '0')]);
}

function epcisPlace(rng: Rng, clean = false): string {
  const g = clean ? rng.pick(['4012345000115', '4012345000221', '4012345000009', '0614141073467', '9110000000007', String(rng.int(1e13)).padStart(13, '0')]) : gln(rng);
  if (clean) return rng.pick([`urn:epc:id:sgln:${g.slice(0, 7)}.${g.slice(7, 12)}.0`, `https://id.gs1.org/414/${g}`, `geo:${(rng.next() * 180 - 90).toFixed(rng.int(8))},${(rng.next() * 360 - 180).toFixed(rng.int(8))}`]);
  return rng.pick([
    `urn:epc:id:sgln:${g.slice(0, 7)}.${g.slice(7, 12)}.${rng.pick(['0', '17', 'x', ''])}`,
    `urn:epc:id:sgln:${g.slice(0, 9)}.${g.slice(9, 12)}.0`,
    `https://id.gs1.org/414/${g}`,
    `https://id.gs1.org/414/${g}/254/${rng.int(100)}`,
    `https://example.com/414/${g}`,
    `geo:${(rng.next() * 180 - 90).toFixed(rng.int(8))},${(rng.next() * 360 - 180).toFixed(rng.int(8))}`,
    rng.pick(['geo:47.506694,11.104301', 'geo:91,181', 'geo:-90,-180', 'geo:1e3,2', 'geo:NaN,0', 'geo:,', 'geo:47.5,11.1;u=10', 'geo:47.5', 'geo:0,0,0', 'geo:-0,-0']),
    `urn:epc:id:sgln:${junkText(rng, 20)}`,
    junkText(rng, 30),
  ]);
}

function bizTransactions(rng: Rng, clean = false): unknown[] {
  if (clean) return Array.from({ length: rng.range(1, 3) }, () => ({ type: rng.pick(['bol', 'desadv', 'po', 'https://alpine-freight.example/btt/trip']), bizTransaction: rng.pick([`urn:epcglobal:cbv:bt:5790000000005:BS-${rng.int(1e4)}`, `urn:epc:id:gdti:0614141.00001.${rng.int(1e4)}`, `https://id.gs1.org/253/${gln(rng)}${rng.int(1e4)}`]) }));
  return Array.from({ length: rng.int(4) }, () => ({
    type: rng.pick(['bol', 'desadv', 'po', 'inv', 'urn:epcglobal:cbv:btt:bol', 'https://ref.gs1.org/cbv/BTT-bol', 'https://alpine-freight.example/btt/trip', 'urn:gs1:epcisapp:rail:btt:passage', junkText(rng, 10)]),
    bizTransaction: rng.pick([`urn:epcglobal:cbv:bt:5790000000005:BS-${rng.int(1e4)}`, `urn:epc:id:gdti:0614141.00001.${rng.int(1e4)}`, `https://id.gs1.org/253/${gln(rng)}${rng.int(1e4)}`, `TRIP-${rng.int(100)}`, junkText(rng, 60)]),
  }));
}

function epcisEvent(rng: Rng, clean = false): Record<string, unknown> {
  if (clean) {
    // What a carrier's track-and-trace sends: an ObjectEvent with a business step, a place and its consignment's references.
    const e: Record<string, unknown> = {
      type: 'ObjectEvent',
      eventTime: epcisTime(rng, true),
      eventTimeZoneOffset: rng.pick(['+02:00', '-05:00', '+00:00', '+01:00']),
      epcList: Array.from({ length: rng.int(3) }, () => rng.pick([`urn:epc:id:sscc:0614141.${rng.int(1e10)}`, `urn:epc:id:ginc:0614141.${rng.int(1e4)}`, `urn:epc:id:gsin:0614141.${rng.int(1e9)}`])),
      action: 'OBSERVE',
      bizStep: epcisUri(rng, 'bizStep', true),
    };
    if (rng.chance(0.5)) e.disposition = epcisUri(rng, 'disposition', true);
    if (rng.chance(0.7)) e.readPoint = { id: epcisPlace(rng, true) };
    if (rng.chance(0.5)) e.bizLocation = { id: epcisPlace(rng, true) };
    if (rng.chance(0.9)) e.bizTransactionList = bizTransactions(rng, true);
    if (rng.chance(0.5)) e.eventID = `urn:uuid:${uuid(rng)}`;
    if (rng.chance(0.1)) e.errorDeclaration = { declarationTime: epcisTime(rng, true), reason: rng.pick(['incorrect_data', 'did_not_occur']), ...(rng.chance(0.5) ? { correctiveEventIDs: [`urn:uuid:${uuid(rng)}`] } : {}) };
    if (rng.chance(0.1)) e['pcx:reason'] = rng.pick(['traffic jam', 'Stau auf der A1', 'ferry delayed']);
    return e;
  }
  const type = rng.pick(['ObjectEvent', 'ObjectEvent', 'AggregationEvent', 'TransactionEvent', 'TransformationEvent', 'AssociationEvent', 'ExtendedEvent', '']);
  const e: Record<string, unknown> = {
    type,
    eventTime: epcisTime(rng),
    eventTimeZoneOffset: rng.pick(['+02:00', '-05:00', '+00:00', 'Z', '+14:00', '+15:00', '02:00', '']),
    action: rng.pick(['OBSERVE', 'ADD', 'DELETE', 'observe', '']),
    bizStep: epcisUri(rng, 'bizStep'),
  };
  if (rng.chance(0.9)) e.epcList = Array.from({ length: rng.int(3) }, () => rng.pick([`urn:epc:id:sgtin:0614141.107346.${rng.int(1e4)}`, `urn:epc:id:sscc:0614141.${rng.int(1e10)}`, `urn:epc:id:ginc:0614141.${rng.int(1e4)}`, `urn:epc:id:gsin:0614141.${rng.int(1e9)}`, `https://id.gs1.org/00/${rng.int(1e17)}`, junkText(rng, 30)]));
  if (rng.chance(0.7)) e.disposition = epcisUri(rng, 'disposition');
  if (rng.chance(0.7)) e.readPoint = { id: epcisPlace(rng) };
  if (rng.chance(0.6)) e.bizLocation = { id: epcisPlace(rng) };
  if (rng.chance(0.7)) e.bizTransactionList = bizTransactions(rng);
  if (rng.chance(0.4)) e.eventID = rng.pick([`urn:uuid:${uuid(rng)}`, `ni:///sha-256;${'a'.repeat(64)}?ver=CBV2.0`, 'x'.repeat(rng.pick([10, 201, 5000])), junkText(rng, 40)]);
  if (rng.chance(0.15)) e.errorDeclaration = { declarationTime: epcisTime(rng), reason: rng.pick(['incorrect_data', 'did_not_occur', 'urn:epcglobal:cbv:er:incorrect_data', junkText(rng, 20)]), ...(rng.chance(0.5) ? { correctiveEventIDs: [junkText(rng, 30)] } : {}) };
  if (rng.chance(0.1)) e.sensorElementList = [{ sensorMetadata: { time: epcisTime(rng) }, sensorReport: [{ type: 'Temperature', value: rng.pick([26, -1e308, 1e308, 'x']), uom: 'CEL' }] }];
  if (rng.chance(0.1)) e['pcx:reason'] = junkText(rng, 50);
  if (rng.chance(0.1)) e.sourceList = [{ type: 'possessing_party', source: `urn:epc:id:pgln:${gln(rng).slice(0, 7)}.00000` }];
  if (type === 'AggregationEvent' && rng.chance(0.8)) e.parentID = `urn:epc:id:sscc:0614141.${rng.int(1e10)}`;
  return e;
}

const EPCIS_CONTEXTS: unknown[] = [
  ['https://ref.gs1.org/standards/epcis/epcis-context.jsonld'],
  'https://ref.gs1.org/standards/epcis/epcis-context.jsonld',
  ['https://ref.gs1.org/standards/epcis/epcis-context.jsonld', { pcx: 'https://schemas.pcx.example/v0/epcis/' }],
  ['https://ref.gs1.org/standards/epcis/epcis-context.jsonld', { example: 'https://ns.example.com/epcis/' }],
  [],
  {},
];

function epcisDocument(rng: Rng, clean = false): Record<string, unknown> {
  const events = Array.from({ length: rng.range(clean ? 1 : 0, 6) }, () => epcisEvent(rng, clean));
  const query = rng.chance(0.2);
  return {
    '@context': clone(rng.pick(clean ? EPCIS_CONTEXTS.slice(0, 3) : EPCIS_CONTEXTS)),
    type: query ? 'EPCISQueryDocument' : clean || rng.chance(0.95) ? 'EPCISDocument' : rng.pick(['ObjectEvent', 'EPCISMasterDataDocument', '']),
    schemaVersion: clean ? '2.0' : rng.pick(['2.0', '2.0', '1.2', 2]),
    creationDate: epcisTime(rng, clean),
    ...(!clean && rng.chance(0.5) ? { sender: rng.pick([`urn:epc:id:pgln:${gln(rng).slice(0, 7)}.00000`, `https://id.gs1.org/417/${gln(rng)}`, gln(rng)]) } : {}),
    ...(rng.chance(0.3) ? { id: `urn:uuid:${uuid(rng)}` } : {}),
    epcisBody: query ? { queryResults: { queryName: 'SimpleEventQuery', subscriptionID: clean ? `sub-${rng.int(100)}` : junkText(rng, 20), resultsBody: { eventList: events } } } : { eventList: events },
  };
}

const JSON_JUNK = (rng: Rng): unknown =>
  rng.pick<() => unknown>([
    () => null,
    () => true,
    () => 0,
    () => -0,
    () => 1e308,
    () => -1e-300,
    () => rng.int(1e9),
    () => Number.MAX_SAFE_INTEGER + 2,
    () => '',
    () => junkText(rng, 50),
    () => longText(rng),
    () => [],
    () => ({}),
    () => [junkText(rng, 10), rng.int(10)],
    () => ({ id: epcisPlace(rng) }),
    () => epcisTime(rng),
    () => epcisUri(rng, 'bizStep'),
    () => epcisEvent(rng),
  ])();

/** Random structural edits of a JSON value (objects and arrays it holds). */
function editJson(doc: unknown, rng: Rng): unknown {
  const containers: Array<Record<string, unknown> | unknown[]> = [];
  const stack: unknown[] = [doc];
  while (stack.length && containers.length < 5000) {
    const v = stack.pop();
    if (v && typeof v === 'object') {
      containers.push(v as Record<string, unknown>);
      stack.push(...Object.values(v as object));
    }
  }
  if (!containers.length) return doc;
  const events = containers.filter((c): c is Record<string, unknown> => !Array.isArray(c) && typeof c.type === 'string' && /Event$/.test(c.type as string));
  const lists = containers.filter((c): c is unknown[] => Array.isArray(c) && c.some((x) => events.includes(x as Record<string, unknown>)));
  for (let n = rng.range(1, 8); n > 0; n--) {
    const op = rng.int(12);
    const target = rng.pick(containers);
    const event = events.length ? rng.pick(events) : undefined;
    if (op === 0 && !Array.isArray(target)) {
      const keys = Object.keys(target);
      if (keys.length) delete target[rng.pick(keys)];
    } else if (op === 1) {
      // swap a value's type
      const keys = Array.isArray(target) ? target.map((_, i) => i) : Object.keys(target);
      if (keys.length) (target as Record<string | number, unknown>)[rng.pick(keys as Array<string | number>)] = JSON_JUNK(rng);
    } else if (op === 2) {
      // deep nesting
      let v: unknown = JSON_JUNK(rng);
      for (let d = rng.pick([5, 20, 31, 40, 100]); d > 0; d--) v = rng.chance(0.5) ? [v] : { x: v };
      if (Array.isArray(target)) target.push(v);
      else target[rng.pick([...Object.keys(target), 'extension'])] = v;
    } else if (op === 3 && lists.length) {
      // duplicate events
      const list = rng.pick(lists);
      const item = rng.pick(list);
      // As many as fit a few megabytes of JSON (a document past the gateway's size limit is refused unread anyway).
      const size = (JSON.stringify(item) ?? '').length + 1;
      const copies = Math.min(rng.pick([1, 2, 10, 999, 1001, 1200]), Math.floor(3_000_000 / size));
      for (let i = 0; i < copies; i++) list.push(rng.chance(0.8) ? item : clone(item));
    } else if (op === 4 && event) event.eventTime = epcisTime(rng);
    else if (op === 5 && event) event.eventTimeZoneOffset = rng.pick(['+02:00', '-05:00', 'Z', '+99:99', '', 2, null]);
    else if (op === 6 && event) event[rng.pick(['bizStep', 'disposition'])] = epcisUri(rng, rng.pick(['bizStep', 'disposition'] as const));
    else if (op === 7 && event) event[rng.pick(['readPoint', 'bizLocation'])] = rng.chance(0.9) ? { id: epcisPlace(rng) } : JSON_JUNK(rng);
    else if (op === 8 && event) event.errorDeclaration = rng.chance(0.8) ? { declarationTime: epcisTime(rng), reason: rng.pick(['incorrect_data', 'did_not_occur', junkText(rng, 10)]), correctiveEventIDs: [junkText(rng, 20)] } : JSON_JUNK(rng);
    else if (op === 9 && event) event.bizTransactionList = rng.chance(0.9) ? bizTransactions(rng) : JSON_JUNK(rng);
    else if (op === 10 && !Array.isArray(target)) {
      Object.defineProperty(target, rng.pick(['__proto__', 'constructor', 'prototype', 'bizStep', 'type', '@context', 'example:x', '']), { value: JSON_JUNK(rng), enumerable: true, writable: true, configurable: true });
    } else if (lists.length) rng.pick(lists).splice(rng.int(4), 0, epcisEvent(rng));
  }
  return doc;
}

// ------------------------------------------------------------------------------------------------
// CSV: exports generated from the organizations' column settings.

const EXTRA_HEADERS = ['Kennzeichen', 'Fahrer', 'Bemerkung', 'SPZ', 'Řidič', 'Poznámka', 'Kierowca', 'Uwagi', 'Nr rejestracyjny', 'Notes', ''];

function sheetDate(rng: Rng, base: number): string {
  const d = new Date(base + (rng.int(120) - 20) * 86_400_000);
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
  const serial = Math.floor((d.getTime() - Date.UTC(1899, 11, 30)) / 86_400_000);
  return rng.pick([
    `${pad(day)}.${pad(m)}.${y}`,
    `${day}.${m}.${y}`,
    `${day}.${m}.${String(y).slice(2)}`,
    `${y}-${pad(m)}-${pad(day)}`,
    `${y}-${pad(m)}-${pad(day)}T08:00`,
    `${y}-${pad(m)}-${pad(day)} 08:00:00Z`,
    `${y}-${pad(m)}-${pad(day)}T08:00:00+02:00`,
    `${pad(day)}/${pad(m)}/${y}`,
    `${pad(m)}/${pad(day)}/${y}`,
    `${pad(day)}.${pad(m)}.${y} ${rng.range(0, 23)}:${pad(rng.int(60))}`,
    String(serial),
    `${serial}.${rng.int(1000)}`,
    String(rng.pick([0, 1, 59, 60, 61, -1, 2958465, 2958466, 1e9])),
    rng.pick(['31.02.2031', '00.00.0000', '29.02.2031', '29.02.2032', '32.01.2031', '17.13.2031', '2031-02-30', '1.1.1', '17.03.20311', 'morgen', 'ab sofort', 'KW 12']),
  ]);
}

function sheetTime(rng: Rng): string {
  return rng.pick(['08:00', '8:00', '7:30', '07:30:15', '23:59', '24:00', '25:00', '8', '08.00', '8:00 PM', '8:00 a.m.', '12:00 AM', '0.333333', '0,5', '-1:00', '', 'früh']);
}

function sheetNumber(rng: Rng): string {
  return rng.pick(['33', '18', '0', '24.000', '24,000', '24 000', '24\u00a0000', '13,6', '13.6', '1.500', '1,500.50', '1.500,50', '-5', '1e3', '1E+308', '0x10', 'abc', '999999999999999999999', '3.', ',5', '33 Stk.', '€ 850', '850 EUR']);
}

function fieldValue(rng: Rng, field: string, base: number, org: ServedOrganization, clean = false): string {
  if (!clean && rng.chance(0.05)) return junkText(rng, 40);
  if (!clean && rng.chance(0.005)) return longText(rng);
  switch (field) {
    case 'origin':
    case 'destination': {
      const own = Object.keys(org.places ?? {});
      const r = rng.next();
      if (r < 0.45) return rng.pick(UNLOCODES);
      if (r < 0.8) return rng.pick(CITIES);
      if (r < 0.9) return rng.pick(COUNTRIES);
      return own.length ? rng.pick(own) : '';
    }
    case 'originCountry':
    case 'destinationCountry':
      return rng.pick(COUNTRIES);
    case 'availableFrom':
    case 'availableUntil':
      return sheetDate(rng, base);
    case 'availableFromTime':
    case 'availableUntilTime':
      return sheetTime(rng);
    case 'bodyType':
      return rng.pick([...Object.keys(org.spreadsheet?.bodyTypes ?? {}), 'Plane', 'Koffer', 'Kühler', 'curtainsider', 'box', 'other', 'Tieflader', 'PLANE', ' plane ', '']);
    case 'pallets':
    case 'weight':
    case 'loadingMetres':
    case 'volume':
    case 'price':
      return sheetNumber(rng);
    case 'reference':
      return rng.pick([`T-${rng.int(1000)}`, `V-${rng.int(100)}`, '=HYPERLINK("x")', '+1', '-1', '@x', '\tT-1', '']);
    default:
      return rng.pick(['HH-AF 101', 'K. Huber', 'Jiří Dvořák', 'Łukasz Wójcik', 'Rückladung gesucht', 'Agregat, temperatura od -20°C', '', clean ? 'x' : junkText(rng, 30)]);
  }
}

interface Table {
  header: string[];
  fields: string[];
  rows: string[][];
}

function generateTable(rng: Rng, org: ServedOrganization, clean = false): Table {
  const columns = Object.entries(org.spreadsheet?.columns ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string');
  let cols: Array<[string, string]> = [...columns, ...EXTRA_HEADERS.filter(() => rng.chance(0.3)).map((h): [string, string] => ['extra', h])];
  if (rng.chance(0.3)) cols = rng.shuffle(cols);
  if (!clean && rng.chance(0.15)) cols = cols.filter(() => rng.chance(0.8)); // some missing
  if (!clean && rng.chance(0.1) && cols.length) cols.splice(rng.int(cols.length), 0, rng.pick(cols)); // repeated
  const header = cols.map(([, h]) => (rng.chance(0.05) ? rng.pick([h.toUpperCase(), ` ${h} `, h.replace(/ /g, '  '), `${h}\u00a0`, `\ufeff${h}`]) : h));
  const base = rng.chance(0.5) ? Date.parse('2031-03-17T00:00:00Z') : GEN_NOW;
  const n = !clean && rng.chance(0.02) ? rng.pick([600, 5001, 10_001]) : rng.int(clean ? 8 : 25);
  // Valid rows (half the clean files): every value as the organization's settings read it.
  const valid = clean && rng.chance(0.5);
  const rows: string[][] = [];
  for (let i = 0; i < n; i++) {
    if (i >= 50) rows.push(rows[i % 50]); // large files repeat rows (cheaper to make)
    else if (valid) rows.push(validRow(rng, cols.map(([f]) => f), org, base));
    else if (rng.chance(0.05)) rows.push([]);
    else rows.push(cols.map(([field]) => (rng.chance(0.08) ? '' : fieldValue(rng, field, base, org, clean))));
  }
  return { header, fields: cols.map(([f]) => f), rows };
}

/** A row of a free truck as the organization's settings read it: its date pattern and decimal mark, its places and words. */
function validRow(rng: Rng, fields: string[], org: ServedOrganization, base: number): string[] {
  const settings = org.spreadsheet!;
  const from = new Date(base + rng.range(1, 60) * 86_400_000);
  const until = new Date(from.getTime() + rng.int(3) * 86_400_000);
  const date = (d: Date) => {
    const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
    if (!settings.dateFormat || rng.chance(0.2)) return `${y}-${pad(m)}-${pad(day)}`;
    return settings.dateFormat.replace('YYYY', String(y)).replace('YY', pad(y % 100)).replace('MM', pad(m)).replace('M', String(m)).replace('DD', pad(day)).replace('D', String(day));
  };
  const decimal = settings.decimalSeparator ?? '.';
  const places = [...KNOWN_LOCODES, ...Object.keys(org.places ?? {}), 'DE HAM', 'AT VIE'];
  return fields.map((field) => {
    switch (field) {
      case 'reference':
        return `T-${rng.int(1000)}`;
      case 'origin':
        return rng.pick(places);
      case 'destination':
        return rng.pick([...places, 'DE', 'AT', 'PL']);
      case 'originCountry':
      case 'destinationCountry':
        return rng.pick(['DE', 'AT', 'PL', 'CZ']);
      case 'availableFrom':
        return date(from);
      case 'availableUntil':
        return date(until);
      case 'availableFromTime':
      case 'availableUntilTime':
        return rng.chance(0.3) ? '' : `${pad(rng.range(6, 10))}:${rng.pick(['00', '30'])}`;
      case 'bodyType':
        return rng.pick([...Object.keys(settings.bodyTypes ?? {}), 'curtainsider', 'box']);
      case 'pallets':
        return String(rng.range(1, 33));
      case 'weight':
        return String(rng.range(1000, 24000));
      case 'loadingMetres':
      case 'volume':
        return `${rng.range(1, 13)}${decimal}${rng.int(10)}`;
      case 'price':
        return String(rng.range(100, 2000));
      default:
        return rng.pick(['K. Huber', 'Jiří Dvořák', 'Łukasz Wójcik', '']);
    }
  });
}

function csvOf(table: Table, rng: Rng, delimiter: string, clean = false): string {
  const eol = rng.pick(['\r\n', '\r\n', '\n', '\r']);
  const quoteAll = rng.chance(0.1);
  const field = (v: string) => {
    if (!clean && rng.chance(0.005)) return `"${v}`; // a stray quote
    const needs = v.includes(delimiter) || v.includes('"') || v.includes('\n') || v.includes('\r');
    return quoteAll || needs ? `"${v.replace(/"/g, '""')}"` : v;
  };
  const lines: string[] = [];
  if (rng.chance(0.05)) lines.push(field(rng.pick(['Freie LKW KW 12', 'Export 17.03.2031', ''])));
  lines.push(table.header.map(field).join(delimiter));
  for (const row of table.rows) lines.push(row.map(field).join(delimiter) + (rng.chance(0.05) ? delimiter : ''));
  let text = lines.join(eol) + (rng.chance(0.8) ? eol : '');
  if (rng.chance(0.05)) text += '\x1a';
  return text;
}

function encodeCsv(text: string, rng: Rng, clean?: string): { bytes: Buffer; encoding: string } {
  const encoding = clean ?? rng.pick(['utf-8', 'utf-8', 'utf-8-bom', 'windows-1250', 'iso-8859-2', 'windows-1252', 'iso-8859-1', 'utf-16le-bom', 'utf-16be-bom', 'utf-16le', 'cp437', 'iso-8859-5', 'macintosh']);
  if (encoding === 'utf-8-bom') return { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]), encoding };
  if (encoding === 'utf-16le-bom') return { bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf16le')]), encoding };
  if (encoding === 'utf-16be-bom') return { bytes: Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(text, 'utf16be')]), encoding };
  return { bytes: iconv.encode(text, encoding), encoding };
}

// ------------------------------------------------------------------------------------------------
// XLSX: a small ZIP reader and writer (stored or DEFLATE), and edits of the workbook's XML.

interface Part {
  name: string;
  data: Buffer;
}

/** The parts of a ZIP, by its central directory (undefined when it cannot be read). */
function unzip(bytes: Buffer): Part[] | undefined {
  try {
    let end = -1;
    for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
      if (bytes.readUInt32LE(i) === 0x06054b50) {
        end = i;
        break;
      }
    }
    if (end < 0) return undefined;
    const count = bytes.readUInt16LE(end + 10);
    let p = bytes.readUInt32LE(end + 16);
    const parts: Part[] = [];
    for (let i = 0; i < count; i++) {
      if (bytes.readUInt32LE(p) !== 0x02014b50) return undefined;
      const method = bytes.readUInt16LE(p + 10);
      const compressed = bytes.readUInt32LE(p + 20);
      const nameLength = bytes.readUInt16LE(p + 28);
      const extraLength = bytes.readUInt16LE(p + 30);
      const commentLength = bytes.readUInt16LE(p + 32);
      const local = bytes.readUInt32LE(p + 42);
      const name = bytes.subarray(p + 46, p + 46 + nameLength).toString('utf8');
      const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
      const raw = bytes.subarray(start, start + compressed);
      parts.push({ name, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw) });
      p += 46 + nameLength + extraLength + commentLength;
    }
    return parts;
  } catch {
    return undefined;
  }
}

/** A ZIP of the parts: DEFLATE or stored, sometimes with a wrong size or CRC, or a ZIP64 marker. */
function zip(parts: Part[], rng: Rng): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  // One archive in twenty is damaged in one part: its CRC or size a lie, marked encrypted, or another compression method.
  const damage = rng.chance(0.05) ? rng.pick(['crc', 'size', 'encrypted', 'method']) : undefined;
  const damaged = rng.int(parts.length);
  for (const [i, { name, data }] of parts.entries()) {
    const stored = rng.chance(0.2);
    const packed = stored ? data : deflateRawSync(data);
    const fileName = Buffer.from(name, 'utf8');
    const lie = i === damaged ? damage : undefined;
    const header = (central: boolean) => {
      const h = Buffer.alloc(central ? 46 : 30);
      h.writeUInt32LE(central ? 0x02014b50 : 0x04034b50, 0);
      let q = 4;
      if (central) h.writeUInt16LE(20, q), (q += 2);
      h.writeUInt16LE(20, q);
      h.writeUInt16LE(0x800 | (lie === 'encrypted' ? 1 : 0), q + 2);
      h.writeUInt16LE(stored ? 0 : lie === 'method' ? rng.pick([12, 14, 9, 99]) : 8, q + 4);
      h.writeUInt32LE(lie === 'crc' ? rng.int(2 ** 32) : crc32(data), q + 10);
      h.writeUInt32LE(packed.length, q + 14);
      h.writeUInt32LE(lie === 'size' ? rng.pick([0, 100, 0xffffffff, data.length + 1]) : data.length, q + 18);
      h.writeUInt16LE(fileName.length, q + 22);
      if (central) h.writeUInt32LE(offset, 42);
      return Buffer.concat([h, fileName]);
    };
    const local = Buffer.concat([header(false), packed]);
    centrals.push(header(true));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  const count = rng.chance(0.01) ? 0xffff : centrals.length;
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const NUM_FORMATS = ['dd\\.mm\\.yyyy', 'yyyy-mm-dd', 'd/m/yy', 'mm/dd/yyyy\\ hh:mm', 'hh:mm', '[h]:mm:ss', '[$-F800]dddd\\,\\ mmmm\\ dd\\,\\ yyyy', '"d"0', '0.00', '#,##0', 'General', '@', 'mmm', 'AM/PM', '[Red]0;[Blue]-0', 'yyyy;@', '\\d', '', '"', 'd'.repeat(500)];
const CELL_TYPES = ['s', 'n', 'str', 'b', 'e', 'inlineStr', 'd', 'x', ''];

function xlsxValue(rng: Rng): string {
  return rng.pick([String(rng.int(60_000)), `${rng.int(60_000)}.${rng.int(1000)}`, '-1', '1e308', '1e309', 'NaN', '', ' ', 'TRUE', '#N/A', '#DIV/0!', '2031-03-17', '2031-03-17T08:00:00', '0', String(2 ** 53), xmlEscape(junkText(rng, 20)), '&#0;', '&#xD800;', '&#1114112;', '_x0000_', '_xD800_', '&amp;lt;', '&undefined;']);
}

/** A workbook generated from a table (the organization's columns): cells of every type, shared strings, date styles, formulas. */
function generateWorkbook(rng: Rng, org: ServedOrganization): Part[] {
  const table = generateTable(rng, org, rng.chance(0.5));
  const strings: string[] = [];
  const shared = (s: string) => {
    strings.push(s);
    return strings.length - 1;
  };
  const rows = [table.header, ...table.rows.slice(0, 600)];
  const rowXml = rows
    .map((cells, i) => {
      const r = i + 1;
      const cs = cells
        .map((v, j) => {
          const ref = `${columnLetters(j + 1)}${r}`;
          const numeric = /^-?\d+(\.\d+)?$/.test(v);
          const roll = rng.next();
          const f = rng.chance(0.05) ? `<f>${xmlEscape(rng.pick(['A1+1', 'TODAY()', 'HYPERLINK("x")', 'SUM(A1:A3)', '']))}</f>` : '';
          const noValue = f && rng.chance(0.5);
          if (numeric && roll < 0.6) return `<c r="${ref}" s="${rng.int(5)}">${f}${noValue ? '' : `<v>${v}</v>`}</c>`;
          if (roll < 0.75) return `<c r="${ref}" t="s">${f}<v>${rng.chance(0.02) ? rng.pick([-1, 99_999, 1.5]) : shared(v)}</v></c>`;
          if (roll < 0.9) return `<c r="${ref}" t="inlineStr">${f}<is><t xml:space="preserve">${xmlEscape(v)}</t></is></c>`;
          return `<c r="${ref}" t="${rng.pick(CELL_TYPES)}">${f}${noValue ? '' : `<v>${xmlEscape(v)}</v>`}</c>`;
        })
        .join('');
      return `<row r="${rng.chance(0.01) ? rng.pick([0, r - 1, 1_048_577, 'x']) : r}"${rng.chance(0.02) ? ' hidden="1"' : ''}>${cs}</row>`;
    })
    .join('');
  const sheetName = rng.pick(['Trucks', 'Tabelle1', 'Sheet1', "Free 'trucks'", 'Ř&amp;D', '']);
  const date1904 = rng.chance(0.1) ? '<workbookPr date1904="1"/>' : '';
  const calc = rng.chance(0.05) ? '<calcPr fullCalcOnLoad="1"/>' : '';
  const formats = Array.from({ length: rng.range(1, 4) }, (_, i) => `<numFmt numFmtId="${164 + i}" formatCode="${xmlEscape(rng.pick(NUM_FORMATS))}"/>`).join('');
  const xfs = Array.from({ length: 5 }, () => `<xf numFmtId="${rng.pick([0, 14, 15, 20, 22, 45, 164, 165, 166, 49, 999])}"/>`).join('');
  return [
    { name: '[Content_Types].xml', data: Buffer.from('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>') },
    { name: '_rels/.rels', data: Buffer.from(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`) },
    { name: 'xl/workbook.xml', data: Buffer.from(`<workbook ${NS}>${date1904}<sheets><sheet name="${sheetName}" sheetId="1" r:id="rId1"/></sheets>${calc}</workbook>`) },
    { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/><Relationship Id="rId3" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`) },
    { name: 'xl/styles.xml', data: Buffer.from(`<styleSheet ${NS}><numFmts>${formats}</numFmts><cellXfs>${xfs}</cellXfs></styleSheet>`) },
    { name: 'xl/sharedStrings.xml', data: Buffer.from(`<sst ${NS}>${strings.map((s) => (rng.chance(0.1) ? `<si><r><t>${xmlEscape(s.slice(0, 2))}</t></r><r><t xml:space="preserve">${xmlEscape(s.slice(2))}</t></r><rPh><t>x</t></rPh></si>` : `<si><t>${xmlEscape(s)}</t></si>`)).join('')}</sst>`) },
    { name: 'xl/worksheets/sheet1.xml', data: Buffer.from(`<worksheet ${NS}><dimension ref="${rng.chance(0.1) ? 'A1:XFD1048576' : `A1:${columnLetters(table.header.length || 1)}${rows.length}`}"/><sheetData>${rowXml}</sheetData></worksheet>`) },
  ];
}

function columnLetters(index: number): string {
  let name = '';
  for (let n = index; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** Edits of one XML part: cell values and types, shared string indexes, formulas, number formats, dimensions, entities, broken XML. */
function editXml(xml: string, part: string, rng: Rng): string {
  let s = xml;
  for (let n = rng.range(1, rng.chance(0.3) ? 6 : 2); n > 0; n--) {
    // The edits that break the XML itself (an entity declaration, a cut, junk inserted) less often than those of values and types.
    let op = rng.int(14);
    if ((op === 7 || op === 11 || op === 13) && rng.chance(0.6)) op = rng.pick([0, 1, 2, 3, 4, 5, 8, 10, 12]);
    if (op === 0) s = s.replace(/<v>[^<]*<\/v>/g, (m) => (rng.chance(0.3) ? `<v>${xlsxValue(rng)}</v>` : m));
    else if (op === 1) s = s.replace(/(<c\b[^>]*?)( t="[^"]*")?(\s*\/?>)/g, (m, a: string, _t: string, b: string) => (rng.chance(0.3) ? `${a} t="${rng.pick(CELL_TYPES)}"${b}` : m));
    else if (op === 2) s = s.replace(/(<c\b[^>]*t="s"[^>]*>\s*<v>)(\d+)(<\/v>)/g, (m, a: string, _i: string, b: string) => (rng.chance(0.3) ? `${a}${rng.pick([-1, 99_999, 2 ** 32, '1.5', ''])}${b}` : m));
    else if (op === 3) s = s.replace(/<c\b([^>]*?)>(<v>[^<]*<\/v>)/g, (m, a: string, v: string) => (rng.chance(0.2) ? `<c${a}><f>${xmlEscape(rng.pick(['A1*2', 'NOW()', 'CONCAT("a",B2)', '']))}</f>${rng.chance(0.5) ? v : rng.pick(['', '<v/>', '<v></v>', '<v> </v>'])}</c` + '>' : m).replace(/<\/c><\/c>/g, '</c>'));
    else if (op === 4) s = s.replace(/numFmtId="\d+"/g, (m) => (rng.chance(0.4) ? `numFmtId="${rng.pick([0, 14, 22, 45, 164, 999, -1, 'x', 1e10])}"` : m));
    else if (op === 5) s = s.replace(/formatCode="[^"]*"/g, (m) => (rng.chance(0.5) ? `formatCode="${xmlEscape(rng.pick(NUM_FORMATS))}"` : m));
    else if (op === 6) s = s.replace(/<dimension ref="[^"]*"\/>/, `<dimension ref="${rng.pick(['A1:XFD1048576', 'A1', '', 'ZZZZ99999999', 'A1:A1:A1'])}"/>`);
    else if (op === 7) {
      // an entity declaration (a billion laughs), before the root element
      const decl = rng.pick(['<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>', '<!DOCTYPE x SYSTEM "file:///etc/passwd">', '<!ENTITY e "x">', '<!doctype x>']);
      s = s.replace(/^(<\?xml[^>]*\?>)?/, (m) => m + decl);
    } else if (op === 8) s = s.replace(/ r="([A-Z]+)(\d+)"/g, (m, c: string, r: string) => (rng.chance(0.15) ? rng.pick(['', ` r="${c}${Number(r) + 1}"`, ` r="A${r}"`, ` r="XFE${r}"`, ` r="${c.toLowerCase()}${r}"`, ` r="${c}"`]) : m));
    else if (op === 9) s = s.replace(/<row r="(\d+)"/g, (m) => (rng.chance(0.1) ? `<row r="${rng.pick([0, 1, 1_048_576, 1_048_577, -1, 'x', 1.5])}"` : m));
    else if (op === 10) s = s.replace(/<t( [^>]*)?>([^<]*)<\/t>/g, (m, a = '', t: string) => (rng.chance(0.2) ? `<t${a}>${rng.pick([xmlEscape(junkText(rng, 20)), '_x0000_', '_x001F_ab', '&#0;', '&#xFFFE;', '&#55296;', '&amp;amp;', 'x'.repeat(rng.pick([1001, 100_000])), t + t])}</t>` : m));
    else if (op === 11 && s.length) {
      // cut the XML somewhere, or drop a stretch
      const at = rng.int(s.length);
      s = rng.chance(0.5) ? s.slice(0, at) : s.slice(0, at) + s.slice(at + rng.size(200));
    } else if (op === 12) s = s.replace(/(date1904|fullCalcOnLoad|hidden)="[^"]*"/g, `$1="${rng.pick(['1', '0', 'true', 'TRUE', 'x'])}"`).replace(/<sheet name="[^"]*"/g, `<sheet name="${rng.pick(['Trucks', 'Tabelle1', '', '&amp;', "a'b"])}"`).replace(/Target="[^"]*"/g, (m) => (rng.chance(0.2) ? `Target="${rng.pick(['/xl/worksheets/sheet1.xml', '../../../etc/passwd', 'worksheets/sheet2.xml', '', 'worksheets/sheet1.xml#x', '%2e%2e/x'])}"` : m));
    else {
      // deep or wide structure inserted
      const at = s.lastIndexOf('</');
      const junk = rng.pick(['<a>'.repeat(5000) + '</a>'.repeat(5000), '<c r="A1"><v>1</v></c>'.repeat(20_000), `<row r="${rng.int(100)}"/>`.repeat(12_000), '<x y="1" y="2"/>', '<![CDATA[<c>]]>', '<?pi x?>', '\u0000']);
      if (at > 0) s = s.slice(0, at) + junk + s.slice(at);
    }
  }
  if (rng.chance(0.1)) s = (part.endsWith('.xml') ? '\ufeff' : '') + s;
  return s;
}

// ------------------------------------------------------------------------------------------------
// Cases: one input with everything the gateway would have with it.

/** What the workflow does after mapping, as gateway/activities.ts and milestones.ts do it. */
type After = 'created' | 'refused' | 'unresolved' | 'ambiguous' | 'duplicate';

interface Case {
  reader: ReaderName;
  index: number;
  seed: number;
  generator: string;
  bytes: Buffer;
  name: string;
  transport: 'mailbox' | 'http';
  receivedAt: string;
  organization: ServedOrganization;
  others: ServedOrganization[];
  after: After;
}

function receivedAtOf(rng: Rng): string {
  return rng.pick([new Date(GEN_NOW + rng.int(86_400_000)).toISOString(), '2031-03-10T08:00:00.000Z', '2031-06-03T07:00:00.000Z', '2026-11-27T10:00:00.000Z', new Date(GEN_NOW - 86_400_000 * 30).toISOString(), '']);
}

/** The UNB sender of an interchange's text, as far as it can be found. */
function unbSender(bytes: Buffer): string | undefined {
  const text = bytes.subarray(0, 4096).toString('latin1');
  const una = /UNA(.)(.)(.)(.)(.)(.)/.exec(text);
  const [component, element] = una ? [una[1], una[2]] : [':', '+'];
  const esc = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`UNB${esc(element)}[^${esc(element)}]*${esc(element)}([^${esc(element)}${esc(component)}]*)`).exec(text);
  return m?.[1];
}

/** A case's bytes, what made them, and the organization (with the others the gateway serves) it arrives for. */
type Made = Pick<Case, 'generator' | 'bytes' | 'name' | 'organization' | 'others'>;

/** Random half of the cases: a real file's bytes mutated (with `donors` to splice from), or random bytes. */
function mutatedOrRandom(rng: Rng, mutated: number, file: () => { name: string; bytes: Buffer }, donors: Buffer[], kind: string, mutatedName = 'mutated'): { bytes: Buffer; generator: string } {
  // The file is chosen only when one is mutated: the cases of a seed stay what they were.
  if (rng.chance(mutated)) {
    const f = file();
    return { bytes: mutateBytes(f.bytes, rng, donors), generator: `${kind}:${mutatedName}(${f.name})` };
  }
  return { bytes: randomBytes(rng), generator: `${kind}:random-bytes` };
}

function makeCase(reader: ReaderName, index: number, seed: number): Case {
  const rng = new Rng(hash32(seed, reader, index));
  const random = index % 2 === 0; // half random, half grammar-aware
  const base = { reader, index, seed, transport: rng.chance(0.7) ? ('mailbox' as const) : ('http' as const), receivedAt: receivedAtOf(rng), after: rng.pick<After>(['created', 'created', 'created', 'refused', 'unresolved', 'ambiguous', 'duplicate']) };
  const fx = fixtures()[reader];
  if (reader === 'edifact') return { ...base, ...edifactCase(rng, random, fx) };
  if (reader === 'epcis') return { ...base, ...epcisCase(rng, random, fx) };
  return { ...base, ...sheetCase(rng, random, reader, fx) };
}

function edifactCase(rng: Rng, random: boolean, fx: Array<{ name: string; bytes: Buffer }>): Made {
  const template = clone(rng.pick(EDI_TEMPLATES));
  const others = [...EDI_TEMPLATES.filter((o) => o.organizationId !== template.organizationId && o.organizationId !== 'org-carrier'), EDI_OTHER_SHIPPER].filter(() => rng.chance(0.7)).map(clone);
  const othersIds = others.flatMap((o) => o.edifact?.senderIds ?? []);
  let bytes: Buffer;
  let generator: string;
  if (random) {
    ({ bytes, generator } = mutatedOrRandom(rng, 0.95, () => rng.pick(fx), fx.map((f) => f.bytes), 'edifact'));
  } else {
    const made = generateInterchange(rng, template, othersIds);
    bytes = made.bytes;
    generator = made.how;
    if (rng.chance(0.1)) {
      bytes = mutateBytes(bytes, rng);
      generator += '+mutated';
    }
  }
  // The organization the interchange is from, mostly (otherwise it is held as another sender's).
  const sender = unbSender(bytes);
  if (sender !== undefined && rng.chance(0.85)) template.edifact = { ...(template.edifact ?? {}), senderIds: [...(template.edifact?.senderIds ?? []), sender] };
  return { generator, bytes, name: rng.pick(['x.edi', 'transport-instruction.edi', 'status.EDI', 'drop.txt', 'noext', 'a.b.edifact']), organization: template, others };
}

function epcisCase(rng: Rng, random: boolean, fx: Array<{ name: string; bytes: Buffer }>): Made {
  const organization = clone(rng.pick(EPCIS_TEMPLATES));
  const others = [EPCIS_SHIPPER, BALTIC, ALPINE, { organizationId: 'org-shipper', clientId: 'x', clientSecret: 'y', places: { '9:5790000000012': 'SEGOT' } }].filter((o) => o.organizationId !== organization.organizationId && rng.chance(0.5)).map(clone);
  let bytes: Buffer;
  let generator: string;
  if (random) {
    ({ bytes, generator } = mutatedOrRandom(rng, 0.85, () => rng.pick(fx), fx.map((f) => f.bytes), 'epcis', 'mutated-bytes'));
  } else if (rng.chance(0.7)) {
    const f = rng.pick(fx);
    const doc = editJson(JSON.parse(f.bytes.toString('utf8')), rng);
    bytes = Buffer.from(JSON.stringify(doc, null, rng.chance(0.5) ? 2 : undefined), 'utf8');
    generator = `epcis:edited(${f.name})`;
    if (bytes.length > MAX_BYTES * 4) bytes = bytes.subarray(0, MAX_BYTES + rng.int(1000)); // a document cut at the limit
  } else {
    const clean = rng.chance(0.6);
    const doc = clean || rng.chance(0.7) ? epcisDocument(rng, clean) : editJson(epcisDocument(rng), rng);
    bytes = Buffer.from(JSON.stringify(doc), 'utf8');
    generator = `epcis:generated${clean ? '(clean)' : ''}`;
  }
  if (rng.chance(0.03)) bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
  return { generator, bytes, name: rng.pick(['events.jsonld', 'track.json', 'x.JSONLD']), organization, others };
}

/** csv, xlsx: the spreadsheet format, for the organization whose export a real file is, mostly (its headers are that organization's columns). */
function sheetCase(rng: Rng, random: boolean, reader: ReaderName, fx: Array<{ name: string; bytes: Buffer }>): Made {
  const fixtureOrg = (name: string) => (/_cs_/.test(name) ? CZECH : /_pl_/.test(name) ? POLISH : /^free-trucks/.test(name) ? ALPINE : undefined);
  const fixture = rng.pick(fx);
  const template = (rng.chance(0.7) && fixtureOrg(fixture.name)) || rng.pick(SHEET_TEMPLATES);
  const variant = rng.chance(0.5) ? {} : rng.pick(SHEET_VARIANTS);
  const organization = clone({ ...template, spreadsheet: { ...template.spreadsheet!, ...variant } }) as ServedOrganization;
  const others = [BALTIC, ALPINE, EPCIS_SHIPPER].filter((o) => o.organizationId !== organization.organizationId && rng.chance(0.6)).map(clone);
  if (reader === 'csv') {
    const { bytes, generator } = random ? mutatedOrRandom(rng, 0.9, () => fixture, fx.map((f) => f.bytes), 'csv') : generatedCsv(rng, organization);
    return { generator, bytes, name: rng.pick(['free-trucks.csv', 'export.CSV', 'x.csv']), organization, others };
  }
  const { bytes, generator } = random ? damagedXlsx(rng, fixture, fx.map((f) => f.bytes)) : structuralXlsx(rng, fixture, organization);
  return { generator, bytes, name: rng.pick(['free-trucks.xlsx', 'Export.XLSX', 'x.xlsx']), organization, others };
}

/** Clean: an export as the organization's settings describe it (its delimiter, its encoding or UTF-8), values from the pools only; otherwise any delimiter and encoding. */
function generatedCsv(rng: Rng, organization: ServedOrganization): { bytes: Buffer; generator: string } {
  const clean = rng.chance(0.5);
  const settings = organization.spreadsheet!;
  const delimiter = clean ? (settings.delimiter ?? rng.pick([';', ',', '\t'])) : rng.chance(0.8) ? rng.pick([';', ',', '\t']) : rng.pick(['|', ' ', ':', '";"']);
  const text = csvOf(generateTable(rng, organization, clean), rng, delimiter, clean);
  const { bytes, encoding } = encodeCsv(text, rng, clean ? (settings.encoding && settings.encoding !== 'utf-8' && rng.chance(0.7) ? settings.encoding : rng.pick(['utf-8', 'utf-8-bom'])) : undefined);
  return { bytes, generator: `csv:generated(${clean ? 'clean, ' : ''}delimiter ${JSON.stringify(delimiter)}, ${encoding})` };
}

/** A real workbook's bytes mutated, with its ZIP headers damaged where they matter: signatures, methods, sizes, offsets, counts. */
function damagedXlsx(rng: Rng, f: { name: string; bytes: Buffer }, donors: Buffer[]): { bytes: Buffer; generator: string } {
  const bytes = mutateBytes(f.bytes, rng, rng.chance(0.2) ? donors : []);
  if (rng.chance(0.5) && bytes.length > 22) {
    for (let n = rng.range(1, 3); n > 0; n--) {
      const sig = rng.pick([0x04034b50, 0x02014b50, 0x06054b50]);
      const at = bytes.indexOf(Buffer.from([sig & 0xff, (sig >> 8) & 0xff, (sig >> 16) & 0xff, sig >>> 24]), rng.int(bytes.length));
      if (at >= 0 && at + 30 < bytes.length) bytes.writeUInt32LE(rng.pick([0, 1, 0xffffffff, rng.int(2 ** 32), 0x7fffffff]), at + rng.pick([4, 8, 10, 12, 16, 18, 20, 22, 24, 26]));
    }
  }
  return { bytes, generator: `xlsx:mutated-bytes(${f.name})` };
}

/** A real or generated workbook whose XML parts are edited, a part dropped or a stray one added. */
function structuralXlsx(rng: Rng, fixture: { name: string; bytes: Buffer }, organization: ServedOrganization): { bytes: Buffer; generator: string } {
  let parts: Part[] | undefined;
  let from: string;
  if (rng.chance(0.6)) {
    parts = unzip(fixture.bytes);
    from = fixture.name;
  } else {
    parts = generateWorkbook(rng, organization);
    from = 'generated';
  }
  parts ??= generateWorkbook(rng, organization);
  const xmlParts = parts.filter((p) => /\.(xml|rels)$/.test(p.name));
  const targets = xmlParts.filter((p) => /sheet\d*\.xml$|sharedStrings|styles|workbook\.xml$/.test(p.name) || rng.chance(0.1));
  for (let n = from === 'generated' && rng.chance(0.5) ? 0 : rng.range(1, 2); n > 0 && targets.length; n--) {
    const part = rng.pick(targets);
    part.data = Buffer.from(editXml(part.data.toString('utf8'), part.name, rng), 'utf8');
  }
  if (rng.chance(0.05) && parts.length) parts.splice(rng.int(parts.length), 1); // a part missing
  if (rng.chance(0.03)) parts.push({ name: rng.pick(['mimetype', 'xl/worksheets/sheet1.xml', '../evil.xml', 'xl/sharedStrings.xml']), data: Buffer.from(rng.chance(0.5) ? 'application/vnd.oasis.opendocument.spreadsheet' : '0'.repeat(rng.pick([10, 3_000_000]))) });
  return { bytes: zip(parts, rng), generator: `xlsx:structural(${from})` };
}

// ------------------------------------------------------------------------------------------------
// Running one case the way the gateway does.

type Kind = 'screened' | 'mapped' | 'quarantined';

interface CaseResult {
  kind: Kind;
  ms: number;
  /** The first quarantine reason's code. */
  code?: string;
  /** The spreadsheet format's catch-all quarantined an exception (map() caught it itself). */
  caught?: string;
  /** What the gateway's database would refuse to store (jsonb result, outbound text). */
  unstorable?: string;
  /** Milliseconds per step (screen, map, acknowledge, ...). */
  stages: Record<string, number>;
}

/** The steps of the case being run, timed (also when one throws). */
let stageTimes: Record<string, number> = {};

class CaseError extends Error {
  constructor(
    readonly stage: string,
    readonly cause: unknown,
  ) {
    super(`${stage}: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`);
  }
}

const formatFor = (reader: ReaderName): Format => formatOf(reader === 'csv' || reader === 'xlsx' ? 'spreadsheet' : reader);

/** A NUL (Postgres text and jsonb hold none) or a lone surrogate (jsonb refuses its \u escape). */
function unstorableIn(text: string): string | undefined {
  const nul = text.indexOf('\u0000');
  if (nul >= 0) return `NUL at ${nul}: ${JSON.stringify(text.slice(Math.max(0, nul - 40), nul + 20))}`;
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(text);
  if (lone) return `lone surrogate U+${lone[0].charCodeAt(0).toString(16).toUpperCase()} at ${lone.index}: ${JSON.stringify(text.slice(Math.max(0, lone.index - 40), lone.index + 20))}`;
  return undefined;
}

/** The first string (or key) of a value that jsonb cannot hold, with its path. */
function unstorableValue(root: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[root, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const bad = unstorableIn(v);
      if (bad) return `${path || '/'}: ${bad}`;
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const bad = unstorableIn(k);
        if (bad) return `${path}/ (a key): ${bad}`;
        stack.push([x, `${path}/${k}`]);
      }
    }
  }
  return undefined;
}

function runCase(c: Case): CaseResult {
  const format = formatFor(c.reader);
  const started = performance.now();
  const stages: Record<string, number> = (stageTimes = {});
  const stage = <T>(name: string, fn: () => T): T => {
    const t = performance.now();
    try {
      return fn();
    } catch (err) {
      throw new CaseError(name, err);
    } finally {
      stages[name] = (stages[name] ?? 0) + performance.now() - t;
    }
  };
  const entry: InboxEntry = { id: `fz-${c.reader}-${c.seed}-${c.index}`, organizationId: c.organization.organizationId, transport: c.transport, format: format.name, name: c.name, contentSha256: '', content: '', status: 'received', receivedAt: c.receivedAt, result: null };
  // gateway/main.ts and http.ts: screen (size, then decode, then NUL), with the gateway's limit.
  const screened = stage('screen', () => screen(c.bytes, c.bytes.length, format, MAX_BYTES));
  if (typeof screened.content !== 'string') throw new CaseError('screen', new Error(`content is ${typeof screened.content}`));
  entry.content = screened.content;
  let result: Record<string, unknown>;
  let kind: Kind;
  let caught: string | undefined;
  if (screened.refusal) {
    // gateway/intake.ts, take(): recorded quarantined with its reason, answered like any other.
    result = { kind: 'quarantined', reasons: [screened.refusal], screened: true };
    kind = 'screened';
  } else {
    const others = c.others;
    const outcome = stage('map', () => format.map(entry, c.organization, others)) as unknown as Record<string, unknown>;
    if (!outcome || (outcome.kind !== 'mapped' && outcome.kind !== 'quarantined')) throw new CaseError('map', new Error(`map returned ${JSON.stringify(outcome)?.slice(0, 200)}`));
    if (outcome.kind === 'quarantined') {
      const reasons = outcome.reasons as QuarantineReason[] | undefined;
      if (!Array.isArray(reasons) || !reasons.length || reasons.some((r) => typeof r?.code !== 'string' || typeof r?.message !== 'string')) throw new CaseError('map', new Error(`a quarantine without reasons: ${JSON.stringify(reasons)?.slice(0, 200)}`));
      const catchAll = reasons.find((r) => r.code === 'NOT_A_SPREADSHEET' && r.message.startsWith('the file could not be read ('));
      if (catchAll) caught = catchAll.message;
    }
    result = afterMapping(outcome, c, stage);
    kind = result.kind === 'mapped' ? 'mapped' : 'quarantined';
  }
  // Stored as JSON in the inbox (jsonb, by gateway/store.ts's storableJson), read back for the answer.
  const json = stage('store', () => storableJson(result));
  const stored = JSON.parse(json) as unknown;
  const unstorable = unstorableValue(stored);
  const answered: InboxEntry = { ...entry, status: kind === 'mapped' ? 'submitted' : 'quarantined', result: stored } as InboxEntry;
  const drafts = stage('acknowledge', () => format.acknowledge(answered, c.organization, new Date()));
  if (!Array.isArray(drafts) || !drafts.length || drafts.some((d) => typeof d?.kind !== 'string' || typeof d?.name !== 'string' || typeof d?.content !== 'string')) {
    throw new CaseError('acknowledge', new Error(`acknowledge returned ${JSON.stringify(drafts)?.slice(0, 300)}`));
  }
  // Written to the outbox as store.ts's addOutbound does.
  const unstorableAnswer = drafts.map((d) => unstorableIn(storable(d.content)) ?? unstorableIn(storable(d.name))).find(Boolean);
  const reasons = (result.reasons as QuarantineReason[] | undefined) ?? [];
  return {
    kind,
    ms: performance.now() - started,
    stages,
    ...(kind !== 'mapped' && reasons[0] ? { code: reasons[0].code } : {}),
    ...(caught ? { caught } : {}),
    ...(unstorable || unstorableAnswer ? { unstorable: unstorable ? `result: ${unstorable}` : `answer: ${unstorableAnswer}` } : {}),
  };
}

/** gateway/activities.ts mapMessage and submitMessage, with the database and the exchange played by the case's `after`. */
function afterMapping(outcome: Record<string, unknown>, c: Case, stage: <T>(name: string, fn: () => T) => T): Record<string, unknown> {
  if (outcome.kind !== 'mapped') return outcome;
  const milestones = Array.isArray(outcome.milestones) ? (outcome.milestones as Array<Record<string, unknown>>) : [];
  let result: Record<string, unknown> = outcome;
  if (milestones.length) {
    const now = new Date();
    const reasons: QuarantineReason[] = [];
    const resolved: Array<Record<string, unknown>> = [];
    milestones.forEach((m, i) => {
      const future = stage('resolve', () => inTheFuture(m as never, now));
      if (future) reasons.push(future);
      else if (c.after === 'unresolved') reasons.push({ code: 'UNKNOWN_REFERENCE', message: 'no movement known by its references', position: String(m.source) });
      else if (c.after === 'ambiguous') reasons.push({ code: 'AMBIGUOUS_REFERENCE', message: 'its references name 2 movements: er-1, er-2', position: String(m.source) });
      else resolved.push({ ...m, executionReferenceId: `er-${i}` });
    });
    result = reasons.length ? { ...outcome, kind: 'quarantined', reasons } : { ...outcome, kind: 'mapped', milestones: resolved };
  }
  if (result.kind === 'mapped' && result.senderReference && c.after === 'duplicate') {
    const ref = result.senderReference as { label: string; position: string };
    result = { ...result, kind: 'quarantined', reasons: [{ code: 'DUPLICATE_TRANSMISSION', message: `${ref.label} was received before, as message fz-0, and acted on`, position: ref.position }], duplicateOf: 'fz-0' };
  }
  if (result.kind !== 'mapped') return result;
  // submitted: what the exchange answered.
  if (c.after === 'refused') return { ...result, submitted: { kind: 'refused', problem: { status: 422, code: 'VALIDATION_FAILED', detail: 'the exchange refused it' } } };
  const resources: Array<{ kind: string; id: string; status: string }> = [];
  const loads = Array.isArray(result.loads) ? result.loads : [];
  loads.forEach((_, i) => resources.push({ kind: 'load-request', id: `lr-${i}`, status: i % 2 ? 'draft' : 'published' }));
  const offers = Array.isArray(result.offers) ? (result.offers as Array<{ row: number; reference?: string }>) : [];
  const rows = offers.map((o, i) => (i % 5 === 4 ? { row: o.row, reference: o.reference, problem: { status: 422, code: 'AREA_UNKNOWN', detail: 'no such area' } } : { row: o.row, reference: o.reference, offerId: `co-${i}`, status: i % 2 ? 'draft' : 'published' }));
  const recorded = (Array.isArray(result.milestones) ? (result.milestones as Array<Record<string, unknown>>) : []).map((m, i) =>
    i % 4 === 3
      ? { executionReferenceId: String(m.executionReferenceId), problem: { status: 409, code: 'STATE_CONFLICT', detail: 'the reference is closed' } }
      : { executionReferenceId: String(m.executionReferenceId), updateId: `eu-${i}`, ...(m.correction ? { correction: i % 2 ? { corrected: true, outcomeId: `eo-${i}`, status: 'disputed' } : { corrected: false, why: 'no outcome yet' } } : {}) },
  );
  return { ...result, submitted: { kind: 'created', resources, mappings: [], milestones: recorded, rows } };
}

// ------------------------------------------------------------------------------------------------
// The child: one reader, from an index until a deadline, reporting every second.

interface Finding {
  kind: 'crash' | 'hang' | 'caught' | 'unstorable';
  index: number;
  generator: string;
  stage?: string;
  error: string;
  stack?: string;
  ms?: number;
  file?: string;
  signature: string;
}

interface Stats {
  inputs: number;
  random: number;
  grammar: number;
  screened: number;
  mapped: number;
  quarantined: number;
  codes: Record<string, number>;
  slowest: { ms: number; index: number; generator: string; bytes: number; kind: string; stages?: Record<string, number> } | null;
  totalMs: number;
  findings: Finding[];
  /** Findings by kind and signature, all counted (only SAVED_PER_SIGNATURE of each kept). */
  counts: Record<string, number>;
  /** Inputs the fuzzer's own generators failed to make (none expected). */
  generatorErrors: number;
  /** Inputs still running after SILENCE_MS, killed (not in `slowest`). */
  killed: number;
}

const emptyStats = (): Stats => ({ inputs: 0, random: 0, grammar: 0, screened: 0, mapped: 0, quarantined: 0, codes: {}, slowest: null, totalMs: 0, findings: [], counts: {}, generatorErrors: 0, killed: 0 });

const EXTENSION: Record<ReaderName, string> = { edifact: 'edi', epcis: 'jsonld', csv: 'csv', xlsx: 'xlsx' };
const readerDir = (reader: ReaderName) => join(OUT, reader);

function metaOf(c: Case, extra: Record<string, unknown> = {}) {
  return { reader: c.reader, index: c.index, seed: c.seed, generator: c.generator, name: c.name, transport: c.transport, receivedAt: c.receivedAt, after: c.after, bytes: c.bytes.length, organization: c.organization, others: c.others, ...extra };
}

function saveCase(c: Case, label: string, extra: Record<string, unknown>): string {
  const dir = readerDir(c.reader);
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `${label}-${c.seed}-${c.index}`);
  writeFileSync(`${base}.${EXTENSION[c.reader]}`, c.bytes);
  writeFileSync(`${base}.json`, `${JSON.stringify(metaOf(c, extra), null, 2)}\n`);
  return `${base}.json`;
}

function signatureOf(err: unknown, stage: string): string {
  const e = err instanceof CaseError ? err.cause : err;
  const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const frame = e instanceof Error ? (e.stack ?? '').split('\n').find((l) => /gateway\//.test(l)) ?? '' : '';
  return `${stage} ${message.replace(/\d+/g, 'N').slice(0, 120)} ${frame.trim().replace(/:\d+:\d+\)?$/, '')}`;
}

function record(stats: Stats, c: Case, finding: Omit<Finding, 'file' | 'index' | 'generator'>, extra: Record<string, unknown>) {
  const key = `${finding.kind} ${finding.signature}`;
  stats.counts[key] = (stats.counts[key] ?? 0) + 1;
  if (stats.counts[key] > SAVED_PER_SIGNATURE) return;
  const file = relative(ROOT, saveCase(c, finding.kind, { ...extra, finding: finding.kind, stage: finding.stage, error: finding.error, stack: finding.stack, ms: finding.ms }));
  stats.findings.push({ ...finding, index: c.index, generator: c.generator, file });
}

function runAndRecord(c: Case, stats: Stats) {
  stats.inputs++;
  if (c.index % 2 === 0) stats.random++;
  else stats.grammar++;
  const started = performance.now();
  let result: CaseResult | undefined;
  try {
    result = runCase(c);
  } catch (err) {
    const stage = err instanceof CaseError ? err.stage : 'run';
    const cause = err instanceof CaseError ? err.cause : err;
    record(stats, c, { kind: 'crash', stage, error: cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause), stack: cause instanceof Error ? cause.stack : undefined, signature: signatureOf(err, stage) }, {});
  }
  const ms = result?.ms ?? performance.now() - started;
  stats.totalMs += ms;
  if (!stats.slowest || ms > stats.slowest.ms) stats.slowest = { ms, index: c.index, generator: c.generator, bytes: c.bytes.length, kind: result?.kind ?? 'crash', stages: Object.fromEntries(Object.entries(stageTimes).map(([k, v]) => [k, Math.round(v)])) };
  if (ms > HANG_MS) record(stats, c, { kind: 'hang', error: `took ${Math.round(ms)} ms (over ${HANG_MS} ms)`, ms, signature: `slow ${c.generator.replace(/\(.*$/, '')}` }, {});
  if (!result) return;
  stats[result.kind]++;
  if (result.code) stats.codes[result.code] = (stats.codes[result.code] ?? 0) + 1;
  if (result.caught) record(stats, c, { kind: 'caught', stage: 'map', error: result.caught, signature: result.caught.replace(/\d+/g, 'N').slice(0, 160) }, {});
  if (result.unstorable) record(stats, c, { kind: 'unstorable', stage: 'store', error: result.unstorable, signature: `${result.unstorable.split(':')[0]} ${result.unstorable.includes('NUL') ? 'NUL' : 'surrogate'} ${result.code ?? result.kind}` }, {});
}

async function child(reader: ReaderName, start: number, deadline: number, seed: number) {
  const dir = readerDir(reader);
  mkdirSync(dir, { recursive: true });
  const stats = emptyStats();
  const send = (message: unknown) => new Promise<void>((done) => (process.send ? process.send(message, () => done()) : done()));
  let index = start;
  let lastReport = 0;
  // Warm up what every reader loads once (place names, directories, the schema), outside the timing.
  try {
    runCase(makeCase(reader, -1, seed));
  } catch {
    // found again when it comes up as an input
  }
  await send({ type: 'progress', index, stats });
  while (Date.now() < deadline) {
    const slice = Date.now() + 250;
    while (Date.now() < slice && Date.now() < deadline) {
      // The input it is on, for the parent to keep when this process hangs or dies: its index first, then all of it.
      writeFileSync(join(dir, '.current.json'), JSON.stringify({ reader, index, seed, generator: '(being made)' }));
      let c: Case;
      try {
        c = makeCase(reader, index, seed);
      } catch (err) {
        // The fuzzer's own generator failed (not the gateway): counted, and the next index made.
        stats.generatorErrors++;
        process.stderr.write(`[fuzz-adapters] ${reader} #${index}: the generator failed (${err instanceof Error ? err.message : String(err)})\n`);
        index++;
        continue;
      }
      writeFileSync(join(dir, `.current.${EXTENSION[reader]}`), c.bytes);
      writeFileSync(join(dir, '.current.json'), JSON.stringify(metaOf(c)));
      runAndRecord(c, stats);
      index++;
    }
    if (Date.now() - lastReport >= 1000) {
      lastReport = Date.now();
      await send({ type: 'progress', index, stats });
    }
    await new Promise((r) => setImmediate(r));
  }
  await send({ type: 'done', index, stats });
  process.exit(0);
}

// ------------------------------------------------------------------------------------------------
// The parent: each reader in a child process, two at a time; a silent child is killed as a hang.

interface ReaderSummary {
  reader: ReaderName;
  seconds: number;
  stats: Stats;
  restarts: number;
}

function merge(into: Stats, from: Stats) {
  for (const k of ['inputs', 'random', 'grammar', 'screened', 'mapped', 'quarantined', 'totalMs', 'generatorErrors'] as const) into[k] += from[k];
  for (const [code, n] of Object.entries(from.codes)) into.codes[code] = (into.codes[code] ?? 0) + n;
  for (const [key, n] of Object.entries(from.counts)) into.counts[key] = (into.counts[key] ?? 0) + n;
  if (from.slowest && (!into.slowest || from.slowest.ms > into.slowest.ms)) into.slowest = from.slowest;
  into.findings.push(...from.findings);
}

function runChild(reader: ReaderName, start: number, deadline: number, seed: number): Promise<{ ended: 'done' | 'silent' | 'died'; index: number; stats: Stats; detail?: string }> {
  return new Promise((done) => {
    const proc = spawn(process.execPath, [...process.execArgv, '--max-old-space-size=4096', __filename, 'child', reader, String(start), String(deadline), String(seed)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], cwd: ROOT });
    let last = Date.now();
    let stats = emptyStats();
    let index = start;
    let finished = false;
    let silent = false;
    const watchdog = setInterval(() => {
      if (Date.now() - last > SILENCE_MS && !finished) {
        silent = true;
        proc.kill('SIGKILL');
      }
    }, 1000);
    proc.on('message', (m: { type: string; index: number; stats: Stats }) => {
      last = Date.now();
      index = m.index;
      stats = m.stats;
      if (m.type === 'done') finished = true;
    });
    proc.on('exit', (code, signal) => {
      clearInterval(watchdog);
      if (finished) done({ ended: 'done', index, stats });
      else done({ ended: silent ? 'silent' : 'died', index, stats, detail: `exit code ${code}, signal ${signal}` });
    });
  });
}

async function runReader(reader: ReaderName, seconds: number, seed: number): Promise<ReaderSummary> {
  const dir = readerDir(reader);
  mkdirSync(dir, { recursive: true });
  const began = Date.now();
  const deadline = began + seconds * 1000;
  const total = emptyStats();
  let start = 0;
  let restarts = 0;
  for (;;) {
    const run = await runChild(reader, start, deadline, seed);
    merge(total, run.stats);
    if (run.ended === 'done') break;
    // Hung (silent for SILENCE_MS) or died (out of memory, a fatal error): the input it was on.
    const meta = existsSync(join(dir, '.current.json')) ? (JSON.parse(readFileSync(join(dir, '.current.json'), 'utf8')) as { index: number; generator: string }) : { index: run.index, generator: '?' };
    if (meta.index < run.index) Object.assign(meta, { index: run.index, generator: '?' });
    // Silent or dead while its generator was still making the input: the fuzzer's fault, not the gateway's.
    if (meta.generator === '(being made)') {
      total.generatorErrors++;
      process.stderr.write(`[fuzz-adapters] ${reader}: the generator of input ${meta.index} ${run.ended === 'silent' ? 'ran for 30 s' : `died (${run.detail})`}; going on from ${meta.index + 1}\n`);
      start = meta.index + 1;
      restarts++;
      if (Date.now() >= deadline - 1000 || restarts > 50) break;
      continue;
    }
    const kind = run.ended === 'silent' ? 'hang' : 'crash';
    const base = join(dir, `${kind}-${seed}-${meta.index}`);
    const error = run.ended === 'silent' ? `no progress for ${SILENCE_MS / 1000} s: killed` : `the child process died (${run.detail})`;
    total.inputs++;
    total.counts[`${kind} process`] = (total.counts[`${kind} process`] ?? 0) + 1;
    if (total.counts[`${kind} process`] <= 2 * SAVED_PER_SIGNATURE) {
      if (existsSync(join(dir, `.current.${EXTENSION[reader]}`))) copyFileSync(join(dir, `.current.${EXTENSION[reader]}`), `${base}.${EXTENSION[reader]}`);
      writeFileSync(`${base}.json`, `${JSON.stringify({ ...meta, finding: kind, error }, null, 2)}\n`);
    }
    total.findings.push({ kind, index: meta.index, generator: meta.generator, error, signature: 'process', ...(total.counts[`${kind} process`] <= 2 * SAVED_PER_SIGNATURE ? { file: relative(ROOT, `${base}.json`) } : {}), ...(kind === 'hang' ? { ms: SILENCE_MS } : {}) });
    start = meta.index + 1;
    restarts++;
    if (kind === 'hang') total.killed++;
    process.stderr.write(`[fuzz-adapters] ${reader}: ${kind} at input ${meta.index} (${error}); going on from ${start}\n`);
    if (Date.now() >= deadline - 1000 || restarts > 50) break;
  }
  rmSync(join(dir, '.current.json'), { force: true });
  rmSync(join(dir, `.current.${EXTENSION[reader]}`), { force: true });
  return { reader, seconds: (Date.now() - began) / 1000, stats: total, restarts };
}

function summaryLines(s: ReaderSummary): string[] {
  const st = s.stats;
  const of = (kind: string) => Object.entries(st.counts).filter(([k]) => k.startsWith(`${kind} `)).reduce((n, [, v]) => n + v, 0);
  const topCodes = Object.entries(st.codes).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([c, n]) => `${c} ${n}`).join(', ');
  const lines = [
    `${s.reader}: ${Math.round(s.seconds)} s, ${st.inputs} inputs (${st.random} random, ${st.grammar} grammar-aware), ${st.mapped} mapped, ${st.quarantined} quarantined, ${st.screened} refused by screen (too large or not text)`,
    `  slowest input${st.killed ? ` (of those that finished; ${st.killed} more killed after ${SILENCE_MS / 1000} s)` : ''}: ${st.slowest ? `${st.slowest.ms.toFixed(0)} ms (${Object.entries(st.slowest.stages ?? {}).map(([k, v]) => `${k} ${v}`).join(', ')}), #${st.slowest.index} ${st.slowest.generator}, ${st.slowest.bytes} bytes, ${st.slowest.kind}` : 'none'}; mean ${(st.totalMs / Math.max(1, st.inputs)).toFixed(2)} ms`,
    `  quarantine codes (first reason): ${topCodes || 'none'}`,
    `  crashes: ${of('crash')}, hangs: ${of('hang')}${s.restarts ? ` (child restarted ${s.restarts} times)` : ''}; caught by the format's catch-all: ${of('caught')}; not storable: ${of('unstorable')}${st.generatorErrors ? `; inputs the generators failed to make: ${st.generatorErrors}` : ''}`,
  ];
  for (const f of st.findings) lines.push(`    ${f.kind} #${f.index} ${f.stage ? `[${f.stage}] ` : ''}${f.error.slice(0, 200)}${f.file ? ` -> ${f.file}` : ' (not saved: enough of these)'}`);
  return lines;
}

async function parent() {
  const seconds = Number(process.env.FUZZ_ADAPTER_SECONDS || 600);
  if (!(seconds > 0)) throw new Error('FUZZ_ADAPTER_SECONDS must be a positive number');
  const seed = process.env.FUZZ_ADAPTER_SEED ? Number(process.env.FUZZ_ADAPTER_SEED) : randomInt(1, 2 ** 31);
  if (!Number.isInteger(seed)) throw new Error('FUZZ_ADAPTER_SEED must be an integer');
  const chosen = (process.env.FUZZ_ADAPTERS || READERS.join(',')).split(',').map((r) => r.trim()).filter(Boolean);
  const unknown = chosen.filter((r) => !(READERS as readonly string[]).includes(r));
  if (unknown.length) throw new Error(`no reader ${unknown.join(', ')} (readers: ${READERS.join(', ')})`);
  mkdirSync(OUT, { recursive: true });
  const startedAt = new Date();
  process.stderr.write(`[fuzz-adapters] seed ${seed}, ${seconds} s per reader, readers ${chosen.join(', ')}, ${CONCURRENCY} at a time; findings under ${relative(ROOT, OUT)}/\n`);
  const queue = [...chosen] as ReaderName[];
  const summaries: ReaderSummary[] = [];
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
      for (let reader = queue.shift(); reader; reader = queue.shift()) {
        const summary = await runReader(reader, seconds, seed);
        summaries.push(summary);
        process.stdout.write(`${summaryLines(summary).join('\n')}\n`);
      }
    }),
  );
  summaries.sort((a, b) => READERS.indexOf(a.reader) - READERS.indexOf(b.reader));
  const bad = summaries.reduce((n, s) => n + Object.entries(s.stats.counts).filter(([k]) => k.startsWith('crash ') || k.startsWith('hang ')).reduce((m, [, v]) => m + v, 0), 0);
  const header = `seed ${seed}, ${seconds} s per reader, started ${startedAt.toISOString()}, finished ${new Date().toISOString()}`;
  writeFileSync(join(OUT, 'summary.json'), `${JSON.stringify({ seed, seconds, startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), readers: summaries }, null, 2)}\n`);
  writeFileSync(join(OUT, 'summary.md'), `${header}\n\n${summaries.flatMap(summaryLines).join('\n')}\n`);
  process.stdout.write(`\n${header}\n${bad ? `${bad} crashes or hangs` : 'no crash, no hang'}\n`);
  process.exit(bad ? 1 : 0);
}

// ------------------------------------------------------------------------------------------------
// Doing one input again: a saved one (its .json), or one by seed and index.

function replay(c: Case) {
  const started = performance.now();
  try {
    const result = runCase(c);
    process.stdout.write(`${JSON.stringify({ generator: c.generator, bytes: c.bytes.length, ...result }, null, 2)}\n`);
  } catch (err) {
    const cause = err instanceof CaseError ? err.cause : err;
    const times = Object.entries(stageTimes).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ');
    process.stdout.write(`${err instanceof CaseError ? err.stage : 'run'} threw after ${(performance.now() - started).toFixed(0)} ms (${times}):\n${cause instanceof Error ? cause.stack : String(cause)}\n`);
    process.exitCode = 1;
  }
}

async function main() {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === 'child') return child(args[0] as ReaderName, Number(args[1]), Number(args[2]), Number(args[3]));
  if (mode === 'replay') {
    const meta = JSON.parse(readFileSync(resolve(args[0]), 'utf8'));
    const bytes = readFileSync(resolve(args[0]).replace(/\.json$/, `.${EXTENSION[meta.reader as ReaderName]}`));
    return replay({ ...meta, bytes } as Case);
  }
  if (mode === 'sample') {
    // What the generators make: outcomes by generator, for a number of inputs (no files written).
    const seed = Number(process.env.FUZZ_ADAPTER_SEED || 1);
    const table: Record<string, Record<string, number>> = {};
    for (let i = 0; i < Number(args[1] || 200); i++) {
      const c = makeCase(args[0] as ReaderName, i, seed);
      const kind = c.generator.replace(/\(.*$/, '') + (/clean/.test(c.generator) ? ' clean' : '');
      let outcome: string;
      try {
        const r = runCase(c);
        outcome = r.kind === 'mapped' ? 'mapped' : `${r.kind} ${r.code}`;
      } catch (err) {
        outcome = `threw ${err instanceof Error ? err.message.slice(0, 60) : String(err)}`;
      }
      (table[kind] ??= {})[outcome] = (table[kind][outcome] ?? 0) + 1;
    }
    for (const [kind, outcomes] of Object.entries(table)) process.stdout.write(`${kind}: ${Object.entries(outcomes).sort((a, b) => b[1] - a[1]).map(([o, n]) => `${o} ${n}`).join(', ')}\n`);
    return;
  }
  if (mode === 'case') {
    const seed = Number(process.env.FUZZ_ADAPTER_SEED);
    if (!Number.isInteger(seed)) throw new Error('set FUZZ_ADAPTER_SEED to the run\'s seed');
    const c = makeCase(args[0] as ReaderName, Number(args[1]), seed);
    if (args[2]) writeFileSync(args[2], c.bytes);
    return replay(c);
  }
  return parent();
}

main().catch((err) => {
  process.stderr.write(`[fuzz-adapters] ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(2);
});
