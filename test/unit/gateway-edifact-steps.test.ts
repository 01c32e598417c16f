// What the EDIFACT mappings read is their steps' declarations (gateway/edifact/steps.ts): the
// positions a message of another directory is checked at (IFTMIN_READS, IFTSTA_READS) are
// computed from the steps, every data element a mapping reads of the real messages
// (test/fixtures/edifact/SOURCES.md) is one of them, and a step that reads a segment it does not
// declare fails.
import type { ServedOrganization } from '../../gateway/config';
import { IFTMIN_READS, mapIftmin } from '../../gateway/edifact/iftmin';
import { IFTSTA_READS, mapIftsta } from '../../gateway/edifact/iftsta';
import { carriedOf, readsOf, segmentsFor, step, type ReadPosition, type Step } from '../../gateway/edifact/steps';
import { readInterchange, type EdifactMessage, type Segment } from '../../gateway/edifact/syntax';
import { BARGE, EDIFACT_SHIPPER, fixture, moved } from '../edifact-fixtures';

const key = ([tag, e, c]: ReadPosition) => `${tag} ${e}:${c}`;
const keys = (reads: readonly ReadPosition[]) => [...new Set(reads.map(key))].sort();
const tags = (reads: readonly ReadPosition[]) => [...new Set(reads.map(([tag]) => tag))].sort();

/**
 * A message whose segments write down every element and component read of them: what a mapping
 * reads, segment, element and component, whatever it does with it.
 */
function recorded(message: EdifactMessage): { message: EdifactMessage; read: Set<string> } {
  const read = new Set<string>();
  const index = (k: string | symbol) => (typeof k === 'string' && /^\d+$/.test(k) ? Number(k) : undefined);
  const watched = (s: Segment): Segment => ({
    ...s,
    elements: new Proxy(s.elements, {
      get(elements, k) {
        const e = index(k);
        if (e === undefined) return Reflect.get(elements, k);
        // A missing element is read too (its components are undefined): the position is still one the mapping looks at.
        return new Proxy(elements[e] ?? [], {
          get(components, kc) {
            const c = index(kc);
            if (c !== undefined) read.add(key([s.tag, e, c]));
            return Reflect.get(components, kc);
          },
        });
      },
    }),
  });
  return { message: { ...message, segments: message.segments.map(watched) }, read };
}

/** The messages of an interchange, also one with a syntax problem (a fixture's wrong UNT count): what the mapping reads of them. */
function messagesOf(text: string): EdifactMessage[] {
  const { interchange } = readInterchange(text);
  expect(interchange).toBeDefined();
  return interchange!.messages;
}

describe('IFTMIN: what the mapping reads is its steps', () => {
  const shipper = EDIFACT_SHIPPER;
  const context = { organization: shipper, system: 'edifact:ICT', othersIdentities: new Set<string>() };
  // The barge instruction as it is, its dates moved (it maps), and with its total weight left out
  // (the goods items' MEA read) and Bring's dangerous goods and temperatures (RNG, or TMP alone);
  // the other IFTMIN of the fixtures that read.
  const barge = moved(fixture(BARGE), 2600, [/DTM\+63:[^']*'\n?/]);
  const goods = (lines: string[]) => moved(fixture(BARGE), 2600, [/DTM\+63:[^']*'\n?/, /CNT\+7:[^']*'\n?/]).replace(/MEA\+WT\+AAE\+KGM:10010/, ['MEA+AAE+AAD+KGM:10010', ...lines].join("'\n"));
  const texts = [fixture(BARGE), barge, goods(['DGS+ADR+5.1:(6.1?+8)+1463++2+(E)', 'TMP+1+-15:CEL', 'RNG+12+CEL:4:8']), goods(['TMP+1+-15:CEL']), fixture('iftmin_d96a_nl-road-delivery_assimbly.edi'), fixture('iftmin_s93a_postnord-pn001_chemaclass.edi')];

  it('reads the segments and positions its steps declare: IFTMIN_READS is computed from them', () => {
    expect(tags(IFTMIN_READS)).toEqual(['BGM', 'CNT', 'DGS', 'DTM', 'LOC', 'MEA', 'NAD', 'RFF', 'RNG', 'TMP']);
    expect(keys(IFTMIN_READS)).toEqual(
      ['BGM 0:0', 'BGM 1:0', 'BGM 2:0', 'NAD 0:0', 'NAD 1:0', 'RFF 0:0', 'RFF 0:1', 'LOC 0:0', 'LOC 1:0', 'LOC 1:2', 'LOC 1:3', 'DTM 0:0', 'DTM 0:1', 'DTM 0:2', 'CNT 0:0', 'CNT 0:1', 'CNT 0:2', 'MEA 0:0', 'MEA 1:0', 'MEA 2:0', 'MEA 2:1']
        .concat(['DGS 0:0', 'DGS 1:0', 'DGS 2:0', 'DGS 4:0', 'TMP 0:0', 'TMP 1:0', 'TMP 1:1', 'RNG 0:0', 'RNG 1:0', 'RNG 1:1', 'RNG 1:2'])
        .sort(),
    );
  });

  it('lists as dropped every segment no step carries: the parties it only checks (NAD), the nature of cargo no step reads (GDS)', () => {
    const { load } = mapIftmin(messagesOf(goods(['GDS+11']))[0], context);
    expect(load!.dropped).toEqual(expect.arrayContaining(['NAD', 'GDS', 'TDT']));
    expect(load!.dropped).not.toEqual(expect.arrayContaining(['BGM']));
    expect(load!.dropped.filter((tag) => ['UNH', 'UNT', ...tags(IFTMIN_READS)].includes(tag))).toEqual(['NAD']);
  });

  it('reads no data element of the real messages that its steps do not declare, and every segment they declare', () => {
    const read = new Set<string>();
    for (const text of texts) {
      for (const message of messagesOf(text)) {
        const watched = recorded(message);
        mapIftmin(watched.message, context);
        for (const k of watched.read) read.add(k);
      }
    }
    const declared = new Set(IFTMIN_READS.map(key));
    expect([...read].filter((k) => !declared.has(k))).toEqual([]);
    expect([...new Set([...read].map((k) => k.split(' ')[0]))].sort()).toEqual(tags(IFTMIN_READS));
  });
});

describe('IFTSTA: what the mapping reads is its steps', () => {
  const carrier: ServedOrganization = { organizationId: 'org-carrier', clientId: 'carrier', clientSecret: 'secret', edifact: { senderIds: ['CARRIER'] }, loadRequests: { publish: false, timeZone: 'Europe/Vienna' } };
  const context = { organization: carrier, othersIdentities: new Set<string>() };
  /** One IFTSTA message around `body` (the segments between UNH and UNT). */
  const iftsta = (body: string[]) => {
    const segments = ["UNH+1+IFTSTA:D:04A:UN'", ...body.map((s) => `${s}'`)];
    return ["UNA:+.? '", "UNB+UNOC:3+CARRIER+PCX-GATEWAY+310601:1200+R1'", ...segments, `UNT+${segments.length + 1}+1'`, "UNZ+1+R1'"].join('\n');
  };
  // Every IFTSTA of the fixtures, and one with what they lack: status reasons, free text, an estimate.
  const texts = [
    ...['iftsta_d00b_rail-departed-dtm186-178_apimeister.edi', 'iftsta_d04a_posti-bring-big07_omniparser.edi', 'iftsta_d96a_ocean-container-multi_edidom.edi'].map(fixture),
    // The GS1 example is a message without an envelope (as published).
    `UNA:+.? '\r\nUNB+UNOC:3+5422331123459:14+5412345123453:14+020204:1000+EANCOM1'\r\n${fixture('iftsta_d01b_eancom-gs1-example_iftstaparser.edi').trimEnd()}\r\nUNZ+1+EANCOM1'\r\n`,
    iftsta(['BGM+77+S1+5', 'NAD+CZ+CARRIER', 'RFF+CU:ORDER-1', 'CNI+1+CONS-1', 'STS+1+31+8::6+Z::87:NOBODY HOME', 'RFF+ON:O-1', 'DTM+334:203106011200:203', 'DTM+132:203106021200:203', 'LOC+13+XXXXX::9', 'FTX+AHN+++Late:again', 'FTX+DEL+++Signed']),
  ];

  it('reads the segments and positions its steps declare: IFTSTA_READS is computed from them', () => {
    expect(tags(IFTSTA_READS)).toEqual(['BGM', 'CNI', 'DTM', 'FTX', 'LOC', 'NAD', 'RFF', 'STS']);
    const reasons = [2, 3, 4, 5, 6].flatMap((e) => [`STS ${e}:0`, `STS ${e}:2`, `STS ${e}:3`]);
    expect(keys(IFTSTA_READS)).toEqual(
      ['BGM 0:0', 'BGM 1:0', 'BGM 2:0', 'NAD 0:0', 'NAD 1:0', 'RFF 0:0', 'RFF 0:1', 'CNI 0:0', 'CNI 1:0', 'STS 0:0', 'STS 1:0', 'STS 1:2', 'STS 1:3', ...reasons, 'DTM 0:0', 'DTM 0:1', 'DTM 0:2', 'LOC 0:0', 'LOC 1:0', 'LOC 1:2']
        .concat(['FTX 0:0', 'FTX 3:0', 'FTX 3:1', 'FTX 3:2', 'FTX 3:3', 'FTX 3:4'])
        .sort(),
    );
  });

  it('reads no data element of the real messages that its steps do not declare, and every segment they declare', () => {
    const read = new Set<string>();
    for (const text of texts) {
      for (const message of messagesOf(text)) {
        const watched = recorded(message);
        mapIftsta(watched.message, context);
        for (const k of watched.read) read.add(k);
      }
    }
    const declared = new Set(IFTSTA_READS.map(key));
    expect([...read].filter((k) => !declared.has(k))).toEqual([]);
    expect([...new Set([...read].map((k) => k.split(' ')[0]))].sort()).toEqual(tags(IFTSTA_READS));
  });
});

describe('steps', () => {
  const segments: Segment[] = [
    { tag: 'BGM', elements: [['340'], ['A-1']], position: 2 },
    { tag: 'LOC', elements: [['9'], ['NLRTM']], position: 3 },
  ] as Segment[];
  const steps = {
    document: { reads: { BGM: [[1, 0]] }, carries: true },
    parties: { reads: { NAD: [[1, 0]] }, carries: false },
    places: { reads: { LOC: [[0, 0], [1, 0]], BGM: [[1, 0]] }, carries: true },
  } satisfies Record<string, Step>;

  it('lists every position the steps declare, once, in their order; a step added adds its own', () => {
    expect(readsOf(steps)).toEqual([['BGM', 1, 0], ['NAD', 1, 0], ['LOC', 0, 0], ['LOC', 1, 0]]);
    expect(readsOf({ ...steps, goods: { reads: { GDS: [[0, 0]] }, carries: true } })).toContainEqual(['GDS', 0, 0]);
  });

  it('counts as carried the segments of the steps that carry what they read, and the envelope', () => {
    expect([...carriedOf(steps)].sort()).toEqual(['BGM', 'LOC', 'UNH', 'UNT']);
  });

  it('gives a step the segments it declares, and fails one that reads another', () => {
    expect(segmentsFor(steps.places, segments, 'LOC')).toEqual([segments[1]]);
    expect(() => segmentsFor(steps.document, segments, 'LOC')).toThrow(/reads LOC segments without declaring them/);
  });

  it('runs a step with a reader of its own segments', () => {
    interface Reader {
      all(tag: string): Segment[];
      only(reads: Step['reads']): Reader;
    }
    const readerOf = (reads: Step['reads']): Reader => ({ all: (tag) => segmentsFor({ reads }, segments, tag), only: readerOf });
    const everything = readerOf({ BGM: [], LOC: [] });
    const document = step({ BGM: [[1, 0]] }, (r: Reader) => r.all('BGM')[0].elements[1][0]);
    const wrong = step({ BGM: [[1, 0]] }, (r: Reader) => r.all('LOC'));
    expect(document.run(everything)).toBe('A-1');
    expect(() => wrong.run(everything)).toThrow(/LOC/);
  });
});
