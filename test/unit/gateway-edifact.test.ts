// The EDIFACT side of the adapter gateway on real messages (test/fixtures/edifact/SOURCES.md):
// reading interchanges and finding what is wrong where, mapping an IFTMIN to a load request or
// quarantining it with the reason, and the CONTRL and APERAK a sender gets back.
import { aperak, contrl } from '../../gateway/edifact/acknowledgements';
import { periodOf, zonedTime } from '../../gateway/edifact/dates';
import { edifact } from '../../gateway/edifact/format';
import { differences, directoryOf, knownDirectories, knownRange } from '../../gateway/edifact/directory';
import { IFTMIN_READS, mapIftmin } from '../../gateway/edifact/iftmin';
import { IFTSTA_READS } from '../../gateway/edifact/iftsta';
import { readInterchange } from '../../gateway/edifact/syntax';
import type { InboxEntry } from '../../gateway/store';
import { EXECUTION_LEAD_MINUTES } from '../../gateway/listings';
import { EXECUTION_LEAD_MINUTES as BROKER_LEAD_MINUTES } from '../../domain/listing';
import { BARGE, EDIFACT_SHIPPER, fixture, moved } from '../edifact-fixtures';

const shipper = EDIFACT_SHIPPER;
const entry = (content: string, organizationId = 'org-shipper'): InboxEntry => ({ id: 'mb-test', organizationId, transport: 'mailbox', format: 'edifact', name: 'x.edi', contentSha256: '', content, status: 'received', receivedAt: '', result: null });

describe('readInterchange', () => {
  it('reads a real IFTMIN into its messages and segments, with no problem', () => {
    const { interchange, problems } = readInterchange(fixture(BARGE));
    expect(problems).toEqual([]);
    expect(interchange!.sender).toEqual({ id: 'ICT', qualifier: undefined });
    expect(interchange!.messages.map((m) => `${m.type} ${m.version}${m.release}`)).toEqual(['IFTMIN D99B']);
    expect(interchange!.messages[0].segments.find((s) => s.tag === 'LOC')!.elements).toEqual([['9'], ['NLRTM', '', '6', 'ROTTERDAM']]);
  });

  it('finds the wrong UNT count of a real message, and where it is', () => {
    const { problems } = readInterchange(fixture('iftmin_d96a_nl-road-delivery_assimbly.edi'));
    expect(problems).toEqual([expect.objectContaining({ code: '29', position: 'segment 25 (UNT), element 1', messageReference: '24546' })]);
  });

  it('finds an invalid time in a real UNB', () => {
    const { problems } = readInterchange(fixture('iftmin_s93a_postnord-pn001_chemaclass.edi'));
    expect(problems[0]).toEqual(expect.objectContaining({ code: '12', position: 'segment 1 (UNB), element 4, component 2' }));
  });

  it('reads the D.04A status reports of Posti/Bring', () => {
    const { interchange, problems } = readInterchange(fixture('iftsta_d04a_posti-bring-big07_omniparser.edi'));
    expect(problems).toEqual([]);
    expect(interchange!.messages).toHaveLength(5);
  });

  it('takes a release character as part of the value, and refuses a segment the directory lacks', () => {
    const text = "UNA:+.? 'UNB+UNOC:3+S+R+200101:1200+1'UNH+1+IFTMIN:D:04A:UN'BGM+610+A?+B?'C+9'XYZ+1'UNT+4+1'UNZ+1+1'";
    const { interchange, problems } = readInterchange(text);
    expect(interchange!.messages[0].segments[1].elements[1]).toEqual(["A+B'C"]);
    expect(problems).toEqual(expect.arrayContaining([expect.objectContaining({ code: '14', position: 'segment 4 (XYZ)' })]));
  });

  it('answers hostile input with a problem, never a crash', () => {
    for (const text of ['', "UNA:+.? '", 'UNB', "UNB+UNOC:3'".repeat(1000), '?'.repeat(10_000), "UNB+UNOX:3+S+R+200101:1200+1'UNZ+0+1'", '\u0000\u0001']) {
      expect(readInterchange(text).problems.length).toBeGreaterThan(0);
    }
  });
});

describe('dates', () => {
  it('reads local times in the organization zone, summer and winter', () => {
    expect(zonedTime({ y: 2026, m: 7, d: 1, h: 8 }, 'Europe/Berlin').toISOString()).toBe('2026-07-01T06:00:00.000Z');
    expect(zonedTime({ y: 2026, m: 12, d: 1, h: 8 }, 'Europe/Berlin').toISOString()).toBe('2026-12-01T07:00:00.000Z');
  });

  it('a date is the whole local day, a range its span, a time a point; a wrong date is nothing', () => {
    expect(periodOf('20261201', '102', 'Europe/Amsterdam')).toEqual({ start: '2026-11-30T23:00:00Z', end: '2026-12-01T23:00:00Z', precision: 'day' });
    expect(periodOf('202612010800-202612011200', '719', 'UTC')).toEqual({ start: '2026-12-01T08:00:00Z', end: '2026-12-01T12:00:00Z', precision: 'minute' });
    expect(periodOf('202612010800', '203', 'UTC')).toEqual({ start: '2026-12-01T08:00:00Z', end: '2026-12-01T08:00:00Z', precision: 'minute' });
    expect(periodOf('20020148', '102', 'UTC')).toBeUndefined(); // the GS1 example's 48 January
    expect(periodOf('20260230', '102', 'UTC')).toBeUndefined();
  });
});

describe('mapIftmin', () => {
  const message = (text: string) => readInterchange(text).interchange!.messages[0];
  const context = { organization: shipper, system: 'edifact:ICT', othersIdentities: new Set<string>() };

  it('maps the barge instruction, dates moved and its contradicting latest delivery dropped, to a publishable load request', () => {
    const { load, reasons } = mapIftmin(message(moved(fixture(BARGE), 2600, [/DTM\+63:[^']*'\n?/])), context);
    expect(reasons).toEqual([]);
    expect(load!.body).toEqual(
      expect.objectContaining({
        pickupArea: { kind: 'unlocode', code: 'NLRTM' },
        deliveryArea: { kind: 'unlocode', code: 'ZADUR' },
        requiredCapacity: { weight: { value: 10010, unitCode: 'KGM' } },
        vehicleRequirements: { bodyTypes: ['curtainsider'] },
        goodsProfile: { category: 'chemicals' },
        visibility: { mode: 'open' },
      }),
    );
    // DTM+200 11:00 local (a pick-up time; the organization reads a time as two hours), DTM+132 a whole day.
    expect((load!.body.pickupWindow as any).end).toBe(new Date(Date.parse((load!.body.pickupWindow as any).start) + 2 * 3600_000).toISOString().replace('.000Z', 'Z'));
    expect(load!.body.externalReferences).toEqual(expect.arrayContaining([{ system: 'edifact:ICT', type: 'BGM+340', value: '467332' }, { system: 'edifact:ICT', type: 'RFF+FF', value: '910/USKC/73986' }]));
    expect(load!.dropped).toEqual(expect.arrayContaining(['TDT', 'NAD', 'GID']));
  });

  describe('the measures senders write (the barge instruction, its total CNT+7 left out, its goods measured another way)', () => {
    const base = moved(fixture(BARGE), 2600, [/DTM\+63:[^']*'\n?/, /CNT\+7:[^']*'\n?/, /MEA\+WT\+AAL[^']*'\n?/]);
    const measured = (mea: string, una = "UNA:+.? '") => mapIftmin(message(base.replace("UNA:+.? '", una).replace(/MEA\+WT\+AAE\+KGM:10010/, mea)), context);

    it('reads the gross weight under AAD (total gross weight, the standard) and G, with either purpose (AAE or WT)', () => {
      expect(measured('MEA+AAE+AAD+KGM:10010').load!.body.requiredCapacity).toEqual({ weight: { value: 10010, unitCode: 'KGM' } });
      expect(measured('MEA+WT+G+TNE:10.01').load!.body.requiredCapacity).toEqual({ weight: { value: 10.01, unitCode: 'TNE' } });
    });

    it('reads a decimal comma (declared in the UNA or not), loading metres and volume', () => {
      expect(measured('MEA+AAE+AAD+KGM:10010,5', "UNA:+,? '").load!.body.requiredCapacity).toEqual({ weight: { value: 10010.5, unitCode: 'KGM' } });
      expect(measured('MEA+AAE+LMT+MTR:13,6').load!.body.requiredCapacity).toEqual({ loadingMetres: { value: 13.6, unitCode: 'MTR' } });
      expect(measured('MEA+AAE+AAW+MTQ:80').load!.body.requiredCapacity).toEqual({ volume: { value: 80, unitCode: 'MTQ' } });
    });

    it('names the segment and the value that is no number, and says which measures it reads when there are none', () => {
      expect(measured('MEA+AAE+AAD+KGM:ten').reasons).toEqual([expect.objectContaining({ code: 'VALUE_INVALID', message: expect.stringContaining('ten'), position: expect.stringMatching(/^segment \d+ \(MEA\), element 3$/) })]);
      expect(measured('MEA+AAE+AAL+KGM:10010').reasons).toEqual([expect.objectContaining({ code: 'CAPACITY_MISSING', message: expect.stringContaining('AAD') })]);
    });

    it("carries Bring's dangerous goods line (ADR 5.1, UN 1463, packing group II): the class for partners, the substance restricted", () => {
      const { load } = measured("MEA+AAE+AAD+KGM:10010'\nDGS+ADR+5.1:(6.1?+8)+1463++2+(E)");
      expect(load!.body.handlingRequirements).toEqual({ dangerousGoods: { adrClasses: ['5.1'] } });
      expect(load!.body.restrictedDetails).toEqual({ goodsDetails: { unNumbers: ['1463'], packingGroups: ['II'] } });
    });
  });

  it('quarantines the barge instruction as it is: its estimated arrival is after its latest delivery', () => {
    const { load, reasons } = mapIftmin(message(fixture(BARGE)), context);
    expect(load).toBeUndefined();
    expect(reasons).toEqual([expect.objectContaining({ code: 'WINDOW_CONFLICT', position: 'segment 5 (DTM), element 1' })]);
  });

  it('never invents: without a time zone, body type or goods category, it says which is missing', () => {
    const bare = { ...shipper, loadRequests: { publish: true } };
    const { reasons } = mapIftmin(message(moved(fixture(BARGE), 2600, [/DTM\+63:[^']*'\n?/])), { ...context, organization: bare });
    expect(reasons.map((r) => r.code).sort()).toEqual(['GOODS_PROFILE_MISSING', 'TIME_ZONE_UNKNOWN', 'VEHICLE_REQUIREMENTS_MISSING']);
  });

  it("quarantines a message naming another organization's identity", () => {
    const { reasons } = mapIftmin(message(fixture(BARGE)), { ...context, othersIdentities: new Set(['DCH']) });
    expect(reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'NAMES_OTHER_ORGANIZATION' })]));
  });

  it('a place that is not a UN/LOCODE is mapped only by the organization, otherwise quarantined', () => {
    const gln = fixture(BARGE).replace('LOC+9+NLRTM::6:ROTTERDAM', 'LOC+9+5412345678908::9');
    expect(mapIftmin(message(gln), context).reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'PLACE_UNMAPPED', position: 'segment 18 (LOC), element 2' })]));
    const mappedByTheOrganization = { ...context, organization: { ...shipper, places: { '9:5412345678908': 'BEANR' } } };
    expect(mapIftmin(message(gln), mappedByTheOrganization).reasons.map((r) => r.code)).not.toContain('PLACE_UNMAPPED');
  });
});

describe('the EDIFACT format', () => {
  it('quarantines an interchange from a sender that is not the organization', () => {
    const result = edifact.map(entry(fixture(BARGE)), { ...shipper, edifact: { senderIds: ['SOMEONE-ELSE'] } }, []);
    expect(result).toEqual(expect.objectContaining({ kind: 'quarantined', reasons: [expect.objectContaining({ code: 'SENDER_NOT_ORGANIZATION' })] }));
  });

  it('answers a syntax error with a CONTRL that rejects the message at the segment, and no APERAK', () => {
    const mapped = edifact.map(entry(fixture('iftmin_d96a_nl-road-delivery_assimbly.edi')), { ...shipper, edifact: { senderIds: ['8714252014808'] } }, []);
    const answers = edifact.acknowledge({ ...entry(''), result: mapped }, shipper, new Date('2026-11-27T10:00:00Z'));
    expect(answers.map((a) => a.kind)).toEqual(['contrl']);
    const segments = answers[0].content.split('\n');
    expect(segments).toEqual(expect.arrayContaining(["UCI+24535+8714252014808+8714252011517+4'", "UCM+24546+IFTMIN:D:96A:UN+4+29'", "UCS+25+29'", "UCD+29+1'"]));
  });

  it('answers a mapped message with CONTRL accepted and APERAK accepted, naming the load request', () => {
    const mapped = edifact.map(entry(moved(fixture(BARGE), 2600, [/DTM\+63:[^']*'\n?/])), shipper, []);
    expect(mapped.kind).toBe('mapped');
    const submitted = { kind: 'created', resources: [{ kind: 'load-request', id: 'lr-1', status: 'published' }], mappings: [] };
    const answers = edifact.acknowledge({ ...entry(''), name: 'barge.edi', result: { ...mapped, submitted } }, shipper, new Date('2026-11-27T10:00:00Z'));
    expect(answers.map((a) => a.name)).toEqual(['barge.contrl.edi', 'barge.aperak.edi']);
    expect(answers[0].content).toContain("UCI+025647+ICT+DCH+7'");
    expect(answers[1].content).toContain("BGM+313+");
    expect(answers[1].content).toContain("+29'");
    expect(answers[1].content).toContain("FTX+AAI+++load request lr-1 published'");
    expect(answers[1].content).toContain("RFF+ACW:467332'");
    // What the gateway writes, the gateway (and so a sender's parser) reads back without a syntax error of its own.
    expect(readInterchange(answers[1].content).problems).toEqual([]);
  });

  it('escapes what the sender wrote when it answers', () => {
    const text = aperak([{ messageReference: '1', documentNumber: "A'B+C", accepted: false, notes: [], reasons: [{ code: 'PLACE_MISSING', message: 'no place: LOC+9' }] }], { id: 'S' }, { id: 'G' }, 'R1', new Date('2026-11-27T10:00:00Z'));
    expect(text).toContain("RFF+ACW:A?'B?+C'");
    expect(text).toContain("ERC+13'");
    expect(readInterchange(text).problems).toEqual([]);
    expect(contrl({ received: { reference: 'X', sender: { id: 'S', qualifier: undefined }, recipient: { id: 'G', qualifier: undefined }, messages: [] }, problems: [] }, { id: 'G' }, 'R2', new Date())).toContain("UCI+X+S+G+7'");
  });
});

describe('hostile input, from real messages mutated', () => {
  // A small seeded generator (mulberry32): the same mutations on every run, so a failure repeats.
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const SPECIAL = ["'", '+', ':', '?', '\n', '\u0000', 'UNA', 'UNH+', 'UNT+', '9'.repeat(40), "''", '?', 'Ä', '\uFEFF'];
  function mutate(text: string, next: () => number): string {
    let out = text;
    const edits = 1 + Math.floor(next() * 4);
    for (let i = 0; i < edits; i++) {
      const at = Math.floor(next() * out.length);
      const what = next();
      if (what < 0.3) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(next() * 20)); // delete a run
      else if (what < 0.6) out = out.slice(0, at) + SPECIAL[Math.floor(next() * SPECIAL.length)] + out.slice(at); // insert a service character
      else if (what < 0.8) out = out.slice(0, at) + out.slice(at, at + 200) + out.slice(at); // repeat a stretch
      else out = out.slice(0, at) + String.fromCharCode(Math.floor(next() * 256)) + out.slice(at + 1); // replace a byte
    }
    return out;
  }

  it('every mutation of every fixture is read or refused with a problem, mapped or quarantined: never a crash or a hang', () => {
    const next = random(20261127);
    const names = ['iftmin_d99b_barge-rotterdam-durban_assimbly.edi', 'iftmin_d96a_nl-road-delivery_assimbly.edi', 'iftmin_d00b_bring-big14-ig-dgs-tmp_apimeister.edi', 'iftsta_d04a_posti-bring-big07_omniparser.edi'];
    let quarantined = 0;
    for (let i = 0; i < 1500; i++) {
      const text = mutate(fixture(names[i % names.length]), next);
      const result = edifact.map(entry(text), shipper, []);
      expect(['mapped', 'quarantined']).toContain(result.kind);
      if (result.kind === 'quarantined') {
        quarantined++;
        expect(result.reasons.length).toBeGreaterThan(0);
      }
      // Whatever happened, the sender gets an answer the gateway itself can read.
      const answers = edifact.acknowledge({ ...entry(text), result }, shipper, new Date());
      expect(answers.length).toBeGreaterThan(0);
    }
    expect(quarantined).toBeGreaterThan(1000);
  });
});

describe('decode', () => {
  it('reads a message in the character encoding its UNB names', () => {
    const utf8 = Buffer.from("UNA:+.? 'UNB+UNOW:4+S+R+200101:1200+1'UNH+1+IFTMIN:D:04A:UN'BGM+610+Köln+9'", 'utf8');
    expect(edifact.decode(utf8)).toContain('BGM+610+Köln+9');
    const latin1 = Buffer.from("UNB+UNOC:3+S+R+200101:1200+1'BGM+610+Köln+9'", 'latin1');
    expect(edifact.decode(latin1)).toContain('BGM+610+Köln+9');
  });
});

describe('directories', () => {
  it('checks each message against its own directory, D.93A to D.10B, and maps the ones whose read data elements are D.04A’s', () => {
    expect(knownDirectories()).toHaveLength(35);
    expect(knownRange()).toBe('D.93A to D.10B');
    // The UN renamed the status event code (9011 until D.99A, 4405 since): the same data, read the same.
    expect(differences(directoryOf('D', '96A')!, IFTSTA_READS)).toEqual([]);
    expect(differences(directoryOf('D', '93A')!, IFTMIN_READS)).toEqual([]);
  });

  it('refuses a message of a directory whose read data elements differ, naming the segment and how', () => {
    const d96a = directoryOf('D', '96A')!;
    const changed = { ...d96a, components: { ...d96a.components, C174: ['6411', '6162', '6314'] } };
    expect(differences(changed, IFTMIN_READS)).toEqual([{ segment: 'MEA', difference: 'MEA element 3 component 2 is data element 6162 in D.96A, 6314 in D.04A' }]);
  });

  it('refuses a message of a directory it does not know, saying which it knows', () => {
    const later = moved(fixture(BARGE), 2600, [/DTM\+63:[^']*'\n?/]).replace('IFTMIN:D:99B:UN', 'IFTMIN:D:21A:UN');
    const result = edifact.map(entry(later), shipper, []);
    expect(result.reasons).toEqual([{ code: 'UNSUPPORTED_DIRECTORY', message: 'IFTMIN D.21A: the gateway knows the UN/EDIFACT directories D.93A to D.10B', position: 'segment 2 (UNH), element 2' }]);
  });
});

describe('nothing half done: what the exchange would refuse at publish is refused before anything is created', () => {
  const context = { organization: shipper, system: 'edifact:ICT', othersIdentities: new Set<string>() };
  const message = (text: string) => readInterchange(text).interchange!.messages[0];
  // The barge instruction ten days ahead of today (its pick-up on 2019-10-01 moved).
  const days = Math.ceil((Date.now() - Date.UTC(2019, 8, 20)) / 86_400_000) + 10;
  const barge = moved(fixture(BARGE), days, [/DTM\+63:[^']*'\n?/]);
  const pickupAt = /DTM\+200:(\d{12})/.exec(barge)![1];
  const now = new Date().toISOString();

  it('the lead time is the broker’s', () => {
    expect(EXECUTION_LEAD_MINUTES).toBe(BROKER_LEAD_MINUTES);
  });

  it('refuses windows that end less than the lead time after the message arrived, naming the DTM', () => {
    const late = new Date(Date.UTC(Number(pickupAt.slice(0, 4)), Number(pickupAt.slice(4, 6)) - 1, Number(pickupAt.slice(6, 8)) + 60)).toISOString();
    const { load, reasons } = mapIftmin(message(barge), { ...context, receivedAt: late });
    expect(load).toBeUndefined();
    expect(reasons.map((r) => `${r.code} ${r.position}`)).toEqual(['WINDOW_PASSED segment 31 (DTM), element 1', 'WINDOW_PASSED segment 20 (DTM), element 1']);
    expect(reasons[0].message).toContain('less than 60 minutes after the message arrived');
  });

  it('refuses a delivery window that ends before the pickup window starts, naming both', () => {
    const dayBefore = new Date(Date.UTC(Number(pickupAt.slice(0, 4)), Number(pickupAt.slice(4, 6)) - 1, Number(pickupAt.slice(6, 8)) - 1)).toISOString().slice(0, 10).replace(/-/g, '');
    const early = barge.replace(/DTM\+132:(\d{8})/, `DTM+132:${dayBefore}`);
    const { reasons } = mapIftmin(message(early), { ...context, receivedAt: now });
    expect(reasons).toEqual([expect.objectContaining({ code: 'WINDOW_CONFLICT', message: expect.stringContaining('ends before the pickup window starts') })]);
  });

  it('sets the expiry to the last moment a match can be executed when the organization’s hours before pickup are already past', () => {
    const org = { ...shipper, loadRequests: { ...shipper.loadRequests!, expiresBeforePickupHours: 24 * 365 } };
    const { load } = mapIftmin(message(barge), { ...context, organization: org, receivedAt: now });
    const pickup = load!.body.pickupWindow as { end: string };
    expect(load!.body.expiresAt).toBe(new Date(Date.parse(pickup.end) - 60 * 60_000).toISOString().replace('.000Z', 'Z'));
  });

  it('names the place it cannot use: a code the UN/LOCODE list lacks, a name of several places; and resolves a name of one place', () => {
    const unknown = barge.replace('LOC+9+NLRTM::6:ROTTERDAM', 'LOC+9+NLZZZ::6:NOWHERE');
    expect(mapIftmin(message(unknown), context).reasons).toEqual([expect.objectContaining({ code: 'PLACE_UNKNOWN', message: expect.stringContaining('NLZZZ'), position: 'segment 17 (LOC), element 2' })]);
    const byName = barge.replace('LOC+12+ZADUR::6:DURBAN', 'LOC+12+:::Durban');
    expect(mapIftmin(message(byName), context).load!.body.deliveryArea).toEqual({ kind: 'unlocode', code: 'ZADUR' });
    const several = barge.replace('LOC+12+ZADUR::6:DURBAN', 'LOC+12+:::Newport');
    expect(mapIftmin(message(several), context).reasons).toEqual([expect.objectContaining({ code: 'PLACE_AMBIGUOUS', message: expect.stringMatching(/"Newport", which is \d+ places: [A-Z]{5}, /) })]);
    const none = barge.replace('LOC+12+ZADUR::6:DURBAN', 'LOC+12+:::Frankfurt');
    expect(mapIftmin(message(none), context).reasons).toEqual([expect.objectContaining({ code: 'PLACE_UNMAPPED', message: expect.stringContaining('(Frankfurt)') })]);
  });

  it('reads a lone latest delivery time as a requested time, and says which DTM is there when a window cannot be made of it', () => {
    const lone = barge.replace(/DTM\+132:(\d{8}):102/, 'DTM+63:$11200:203');
    const { load } = mapIftmin(message(lone), context);
    const delivery = load!.body.deliveryWindow as { start: string; end: string };
    expect(Date.parse(delivery.end) - Date.parse(delivery.start)).toBe(120 * 60_000);
    const bare = { ...shipper, loadRequests: { ...shipper.loadRequests!, pointTimeMinutes: undefined } };
    expect(mapIftmin(message(lone), { ...context, organization: bare }).reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'WINDOW_INCOMPLETE', message: expect.stringContaining('DTM+63 gives only the latest delivery time') })]));
  });
});

describe('what the fuzz run found (scripts/fuzz-adapters.ts)', () => {
  it('answers an interchange of a thousand broken messages under one reference with a CONTRL of each message once, at most 99 problems each', () => {
    const message = "UNH+1+IFTSTA:D:04A:UN'BGM+77+S1+9'XYZ+1'STS+1+21'UNT+9+1'";
    const text = `UNA:+.? 'UNB+UNOC:3+ICT+PCX+261206:1200+R1'${message.repeat(1000)}UNZ+1000+R1'`;
    const result = edifact.map(entry(text), shipper, []);
    expect(result.kind).toBe('quarantined');
    const [contrlText] = edifact.acknowledge({ ...entry(text), result }, shipper, new Date()).map((a) => a.content);
    expect(contrlText.match(/^UCM\+/gm)).toHaveLength(1000);
    // Each message's own three problems (its unknown XYZ where its table has none, its wrong count), not every message's.
    expect(contrlText.match(/^UCS\+/gm)).toHaveLength(3 * 1000);
    expect(contrlText.length).toBeLessThan(200_000);
  });

  it('reads long runs of spaces between segments in one pass (each space looked ahead to the line break: minutes)', () => {
    const spaced = fixture(BARGE).replace(/'\n/g, `'${' '.repeat(30_000)}\n`);
    expect(readInterchange(spaced).problems).toEqual([]);
  }, 60_000);
});
