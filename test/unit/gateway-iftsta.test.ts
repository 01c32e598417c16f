// IFTSTA both ways (profile "IFTSTA D.04A") on real messages (test/fixtures/edifact/SOURCES.md):
// a carrier's statuses read into milestones or quarantined with the reason and where, the code
// tables, times and zones, references, the answers, and the status told to a shipper, read back
// by the gateway's own reader.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedOrganization } from '../../gateway/config';
import { MILESTONES, type MilestoneNotice } from '../../gateway/format';
import { d04a } from '../../gateway/edifact/directory';
import { edifact } from '../../gateway/edifact/format';
import { mapIftsta, statusTime } from '../../gateway/edifact/iftsta';
import { ARRIVAL_PLACES, isRec24, MILESTONE_CODE, REC24 } from '../../gateway/edifact/status-codes';
import { readInterchange } from '../../gateway/edifact/syntax';
import type { InboxEntry } from '../../gateway/store';
import { BARGE, fixture, moved } from '../edifact-fixtures';
import { CLOCK_SKEW_MINUTES as GATEWAY_SKEW, inTheFuture } from '../../gateway/milestones';
import { CLOCK_SKEW_MINUTES } from '../../domain/execution-reference';

const POSTI = 'iftsta_d04a_posti-bring-big07_omniparser.edi';
const OCEAN = 'iftsta_d96a_ocean-container-multi_edidom.edi';
const EANCOM = 'iftsta_d01b_eancom-gs1-example_iftstaparser.edi';
const EXAMPLE = readFileSync(join(__dirname, '..', '..', 'examples', 'edifact', 'status-report.edi'), 'latin1');

const carrier = (senderIds: string[], timeZone = 'Europe/Vienna', more: Partial<ServedOrganization> = {}): ServedOrganization => ({
  organizationId: 'org-carrier',
  clientId: 'carrier',
  clientSecret: 'secret',
  edifact: { senderIds },
  loadRequests: { publish: false, timeZone },
  ...more,
});
const shipper: ServedOrganization = { organizationId: 'org-shipper', clientId: 'shipper', clientSecret: 'secret', edifact: { senderIds: ['5790000000005'] } };
const entry = (content: string, name = 'status.edi'): InboxEntry => ({ id: 'mb-iftsta-test', organizationId: 'org-carrier', transport: 'mailbox', format: 'edifact', name, contentSha256: '', content, status: 'received', receivedAt: '', result: null });
const mapped = (result: ReturnType<typeof edifact.map>) => result as any;
const NOW = new Date('2031-06-03T10:00:00Z');

/** The GS1 example is a message without an envelope (as published): the tests put it in one. */
const envelope = (message: string, sender = '5422331123459') => `UNA:+.? '\r\nUNB+UNOC:3+${sender}:14+5412345123453:14+020204:1000+EANCOM1'\r\n${message.trimEnd()}\r\nUNZ+1+EANCOM1'\r\n`;

/** An interchange of one IFTSTA message around `body` (the segments between UNH and UNT). */
function iftsta(body: string[], sender = 'CARRIER', type = 'IFTSTA:D:04A:UN'): string {
  const segments = [`UNH+1+${type}'`, ...body.map((s) => `${s}'`)];
  return [`UNA:+.? '`, `UNB+UNOC:3+${sender}+PCX-GATEWAY+310601:1200+R1'`, ...segments, `UNT+${segments.length + 1}+1'`, `UNZ+1+R1'`].join('\n');
}
const status = (...lines: string[]) => iftsta(['BGM+77+S1+9', 'CNI+1+CONS-1', ...lines]);

describe('the status code table (UN/ECE Rec 24)', () => {
  it('knows the codes of revision 6 and no others', () => {
    expect(['1', '21', '41', '44', '379'].every(isRec24)).toBe(true);
    expect(['0', '42', '43', '52', '380', '012', 'S', '21A', ''].some(isRec24)).toBe(false);
    for (const code of Object.keys(REC24)) expect(isRec24(code)).toBe(true);
  });

  it('reads every code of the table (status-codes.json) as a milestone of the baseline, or as an arrival', () => {
    const unknown = Object.entries(REC24).filter(([, e]) => e.milestone !== 'arrival' && !(MILESTONES as readonly string[]).includes(e.milestone));
    expect(unknown).toEqual([]);
    expect(Object.values(REC24).every((e) => typeof e.name === 'string' && e.name.length > 0)).toBe(true);
  });

  it('tells every milestone with a code that reads back as that milestone', () => {
    for (const milestone of MILESTONES) {
      const { code, place } = MILESTONE_CODE[milestone];
      const entry = REC24[code];
      const read = entry.milestone === 'arrival' ? (Object.keys(ARRIVAL_PLACES) as Array<keyof typeof ARRIVAL_PLACES>).find((m) => ARRIVAL_PLACES[m].includes(place)) : entry.milestone;
      expect(read).toBe(milestone);
    }
  });

  it('reports an outcome only for final statuses: delivered, and lost, destroyed or terminated', () => {
    const finals = Object.entries(REC24).filter(([, e]) => e.outcome).map(([code, e]) => `${code} ${e.outcome}`);
    expect(finals.sort()).toEqual(['111 failed', '21 completed', '22 completed', '331 failed', '49 failed']);
  });
});

describe('status times', () => {
  it('reads a local time in the organization zone, summer and winter', () => {
    expect(statusTime('203107011200', '203', 'Europe/Berlin')).toEqual({ instant: '2031-07-01T10:00:00Z' });
    expect(statusTime('203112011200', '203', 'Europe/Berlin')).toEqual({ instant: '2031-12-01T11:00:00Z' });
    expect(statusTime('20311201120030', '204', 'UTC')).toEqual({ instant: '2031-12-01T12:00:30Z' });
  });

  it('reads a time with its zone without the organization zone', () => {
    expect(statusTime('203112011200UTC', '303', undefined)).toEqual({ instant: '2031-12-01T12:00:00Z' });
    expect(statusTime('203112011200+01', '303', undefined)).toEqual({ instant: '2031-12-01T11:00:00Z' });
    expect(statusTime('20311201120045-05', '304', undefined)).toEqual({ instant: '2031-12-01T17:00:45Z' });
    expect(statusTime('203112011200+0530', '205', undefined)).toEqual({ instant: '2031-12-01T06:30:00Z' });
  });

  it('refuses what does not say when: a date alone, a local time without a zone, an impossible or unformatted value', () => {
    expect(statusTime('20311201', '102', 'UTC').problem).toBe('TIME_IMPRECISE');
    expect(statusTime('203112010800-203112011200', '719', 'UTC').problem).toBe('TIME_IMPRECISE');
    expect(statusTime('203112011200', '203', undefined).problem).toBe('TIME_ZONE_UNKNOWN');
    expect(statusTime('202025021715', '203', 'UTC').problem).toBe('TIME_INVALID'); // Posti's mangled DTM+137
    expect(statusTime('203102301200', '203', 'UTC').problem).toBe('TIME_INVALID'); // 30 February
    expect(statusTime('203112011200', undefined, 'UTC').problem).toBe('TIME_INVALID');
    expect(statusTime('203112011200+15', '303', 'UTC').problem).toBe('TIME_INVALID');
  });
});

describe('real status reports', () => {
  it("quarantines Posti/Bring's BIG07 statuses: their codes are the carrier's own list (agency 87), not Rec 24", () => {
    const result = mapped(edifact.map(entry(fixture(POSTI)), carrier(['7080000714520'], 'Europe/Oslo'), []));
    expect(result.kind).toBe('quarantined');
    expect(result.reasons.map((r: any) => `${r.code} ${r.position}`)).toEqual([7, 13, 19, 31, 43, 55, 67].map((n) => `STATUS_CODE_UNKNOWN segment ${n} (STS), element 2`));
    expect(result.reasons[3].message).toContain('status I (DELIVERED) is from the code list of agency 87');
    // Each of the five messages is answered: not accepted, with its own statuses' reasons.
    const answers = edifact.acknowledge({ ...entry(''), result }, carrier(['7080000714520']), NOW);
    const aperak = answers.find((a) => a.kind === 'aperak')!.content;
    expect(aperak.match(/BGM\+313\+[^+]*\+27'/g)).toHaveLength(5);
    expect(readInterchange(aperak).problems).toEqual([]);
  });

  it('maps the ocean carrier statuses (D.96A) to ten inTransit milestones at Hong Kong and Shenzhen, in the carrier zone', () => {
    const result = mapped(edifact.map(entry(fixture(OCEAN)), carrier(['XXXXXXXXXXX'], 'America/New_York'), []));
    expect(result.kind).toBe('mapped');
    expect(result.milestones).toHaveLength(10);
    expect(result.milestones[0]).toEqual({
      references: [
        { type: 'RFF+BM', value: 'XXXXXXX161162937' },
        { type: 'RFF+BN', value: '31331741' },
        { type: 'RFF+CN', value: '97413141' },
      ],
      milestone: 'inTransit', // an arrival (Rec 24 status 1) at a routing place (LOC+92)
      occurredAt: '2015-01-13T17:12:00Z', // 12:12 in New York, winter
      deduplicationKey: expect.stringMatching(/^iftsta-[0-9a-f]{40}$/),
      unLocode: 'HKHKG',
      reason: 'Arrival, completed',
      source: 'segment 7 (STS)',
      status: { code: '1', name: 'Arrival, completed' },
    });
    expect(new Set(result.milestones.map((m: any) => m.unLocode))).toEqual(new Set(['HKHKG', 'CNCNY']));
    expect(new Set(result.milestones.map((m: any) => m.deduplicationKey)).size).toBe(10);
    // IT (internal customer number) and OP (original purchase order) are not references a movement is found by.
    expect(result.statuses[0].dropped).toEqual(expect.arrayContaining(['RFF+IT', 'RFF+OP', 'TDT', 'EQD', 'NAD']));
    expect(result.statuses.map((s: any) => s.count)).toEqual([1, 2, 3, 2, 2]);
  });

  it('quarantines the GS1 EANCOM example where its statuses do not say when, and lists the customs status', () => {
    const result = mapped(edifact.map(entry(envelope(fixture(EANCOM))), carrier(['5422331123459'], 'Europe/London'), []));
    expect(result.kind).toBe('quarantined');
    expect(result.reasons.map((r: any) => `${r.code} ${r.position}`)).toEqual([
      'TIME_MISSING segment 13 (STS)', // en route with only an EANCOM DTM+40E
      'TIME_IMPRECISE segment 21 (DTM), element 1', // lost, 28 January (a date without a time)
      'TIME_IMPRECISE segment 26 (DTM), element 1',
      'TIME_IMPRECISE segment 31 (DTM), element 1',
    ]);
  });

  it('maps the GS1 example once its statuses have times: delivered, en route, lost, and the goods items delivered once', () => {
    const timed = fixture(EANCOM).replace(/DTM\+40E:20020207:102/, 'DTM+334:200202071200:203').replace(/(DTM\+334:\d{8}):102/g, '$11200:203');
    const result = mapped(edifact.map(entry(envelope(timed)), carrier(['5422331123459'], 'Europe/London'), []));
    expect(result.kind).toBe('mapped');
    expect(result.milestones.map((m: any) => `${m.milestone} ${m.references.map((r: any) => r.value).join(',')} ${m.occurredAt}`)).toEqual([
      'delivered 4215A,5/2334 2002-02-01T14:50:00Z',
      'inTransit 5122C 2002-02-07T12:00:00Z',
      'failed 7655S 2002-01-28T12:00:00Z',
      'delivered 7655S 2002-01-28T12:00:00Z',
      'delivered 7655S 2002-01-28T12:00:00Z',
    ]);
    // The goods items' statuses are one consignment's delivery: the same key, recorded once.
    expect(result.milestones[3].deduplicationKey).toBe(result.milestones[4].deduplicationKey);
    expect(result.milestones[2]).toEqual(expect.objectContaining({ outcome: 'failed', status: { code: '49', name: 'Lost' }, reason: 'Lost' }));
    expect(result.statuses[0].ignored).toEqual([{ source: 'segment 16 (STS)', code: '17', why: 'UN/ECE Rec 24 status 17 is no baseline milestone' }]);
  });
});

describe('mapIftsta', () => {
  const message = (text: string) => readInterchange(text).interchange!.messages[0];
  const context = { organization: carrier(['CARRIER'], 'UTC'), othersIdentities: new Set<string>() };
  const map = (...lines: string[]) => mapIftsta(message(status(...lines)), context);

  it('reads an arrival by its place: pick-up, delivery, on the way, or not at all', () => {
    const arrival = (loc: string) => map('STS+1+1', 'DTM+334:203106011200:203', ...(loc ? [loc] : []));
    expect(arrival('LOC+176').statuses!.milestones[0].milestone).toBe('atPickup');
    expect(arrival('LOC+9+SEGOT::6').statuses!.milestones[0]).toEqual(expect.objectContaining({ milestone: 'atPickup', unLocode: 'SEGOT' }));
    expect(arrival('LOC+7+DEHAM::6').statuses!.milestones[0].milestone).toBe('atDelivery');
    expect(arrival('LOC+13+DKCPH::6').statuses!.milestones[0].milestone).toBe('inTransit');
    expect(arrival('LOC+14+DKCPH::6').statuses).toEqual(expect.objectContaining({ milestones: [], ignored: [expect.objectContaining({ code: '1', source: 'segment 5 (STS)' })] }));
    expect(arrival('').statuses!.ignored).toHaveLength(1);
  });

  it('takes references from the consignment, the status and the message; never from other qualifiers', () => {
    const { statuses } = mapIftsta(message(iftsta(['BGM+77+S1+9', 'RFF+CU:PO-1', 'RFF+IT:CUSTOMER-9', 'CNI+1+CONS-1', 'STS+1+21', 'RFF+CN:TRIP-7', 'RFF+AEL:RESIDENTIAL', 'DTM+334:203106011200:203'])), context);
    expect(statuses!.milestones[0].references).toEqual([
      { type: 'CNI', value: 'CONS-1' },
      { type: 'RFF+CN', value: 'TRIP-7' },
      { type: 'RFF+CU', value: 'PO-1' },
    ]);
    expect(statuses!.dropped).toEqual(expect.arrayContaining(['RFF+IT', 'RFF+AEL']));
  });

  it('quarantines a status that names no reference, never guessing the movement', () => {
    const { reasons } = mapIftsta(message(iftsta(['BGM+77+S1+9', 'CNI+1', 'STS+1+21', 'RFF+IT:CUSTOMER-9', 'DTM+334:203106011200:203'])), context);
    expect(reasons).toEqual([expect.objectContaining({ code: 'REFERENCE_MISSING', position: 'segment 5 (STS)' })]);
  });

  it('quarantines a status without a time, with two times, or with an unreadable one, where it is', () => {
    expect(map('STS+1+21').reasons).toEqual([expect.objectContaining({ code: 'TIME_MISSING', position: 'segment 5 (STS)' })]);
    expect(map('STS+1+21', 'DTM+334:203106011200:203', 'DTM+334:203106011300:203').reasons).toEqual([expect.objectContaining({ code: 'TIME_AMBIGUOUS', position: 'segment 7 (DTM), element 1' })]);
    expect(map('STS+1+21', 'DTM+334:203113011200:203').reasons).toEqual([expect.objectContaining({ code: 'TIME_INVALID', position: 'segment 6 (DTM), element 1' })]);
    // A status change time (334) is preferred to an event time (78); a transport's own times (TDT group) are not read.
    const both = map('STS+1+21', 'DTM+78:203106011100:203', 'DTM+334:203106011200:203', 'TDT+20', 'DTM+133:2031:999');
    expect(both.statuses!.milestones[0].occurredAt).toBe('2031-06-01T12:00:00Z');
    const noZone = mapIftsta(message(status('STS+1+21', 'DTM+334:203106011200:203')), { ...context, organization: { ...context.organization, loadRequests: undefined } });
    expect(noZone.reasons).toEqual([expect.objectContaining({ code: 'TIME_ZONE_UNKNOWN' })]);
  });

  it('quarantines a status it cannot read: a code of another list or category, none, or no Rec 24 code', () => {
    expect(map('STS+1+I::87:DELIVERED', 'DTM+334:203106011200:203').reasons[0]).toEqual(expect.objectContaining({ code: 'STATUS_CODE_UNKNOWN', position: 'segment 5 (STS), element 2' }));
    expect(map('STS+2+21', 'DTM+334:203106011200:203').reasons[0]).toEqual(expect.objectContaining({ code: 'STATUS_CODE_UNKNOWN', position: 'segment 5 (STS), element 1' }));
    expect(map('STS+1:D2:21', 'DTM+334:203106011200:203').reasons[0].code).toBe('STATUS_CODE_MISSING'); // UPS's way
    expect(map('STS+1+42', 'DTM+334:203106011200:203').reasons[0].code).toBe('STATUS_CODE_UNKNOWN');
    expect(mapIftsta(message(iftsta(['BGM+77+S1+9', 'CNI+1+CONS-1'])), context).reasons).toEqual([expect.objectContaining({ code: 'STATUS_MISSING' })]);
  });

  it('reads why: the reason codes by their names, the reason text, free text; and a coarsened status by its name', () => {
    const { statuses } = map('STS+1+269+39::6+Z::87:NOBODY HOME', 'DTM+334:203106011200:203', 'FTX+AHN+++Second attempt tomorrow');
    expect(statuses!.milestones[0]).toEqual(expect.objectContaining({ milestone: 'failed', reason: 'Delivery, consignee absent; No recipient contact information; NOBODY HOME; Second attempt tomorrow' }));
  });

  it('refuses a cancellation of a status report: a recorded milestone cannot be taken back', () => {
    const { reasons } = mapIftsta(message(iftsta(['BGM+77+S1+1', 'CNI+1+CONS-1', 'STS+1+21', 'DTM+334:203106011200:203'])), context);
    expect(reasons).toEqual([expect.objectContaining({ code: 'UNSUPPORTED_FUNCTION', position: 'segment 3 (BGM), element 3' })]);
  });

  it('reads a replacing report (BGM function 5): its final status corrects the outcome, saying it was a data entry error', () => {
    const replaced = mapIftsta(message(iftsta(['BGM+77+S1+5', 'CNI+1+CONS-1', 'STS+1+21', 'DTM+334:203106011200:203'])), context).statuses!.milestones[0];
    expect(replaced).toEqual(expect.objectContaining({ milestone: 'delivered', correction: { status: 'completed', reasonCode: 'DATA_ENTRY_ERROR', reason: expect.stringContaining('BGM message function 5') } }));
    // An en route status in a replacing report is a milestone like any other: nothing to correct.
    expect(mapIftsta(message(iftsta(['BGM+77+S1+5', 'CNI+1+CONS-1', 'STS+1+13', 'LOC+13+DKCPH::6', 'DTM+334:203106011200:203'])), context).statuses!.milestones[0].correction).toBeUndefined();
  });

  it("takes the actual arrival (178) or departure (186) as the time of a status that has no 334 or 78, the arrival's first for an arrival", () => {
    const both = ['DTM+186:203106010800:203', 'DTM+178:203106011600:203'];
    expect(map('STS+1+21', ...both).statuses!.milestones[0].occurredAt).toBe('2031-06-01T16:00:00Z');
    expect(map('STS+1+13', 'LOC+13+DKCPH::6', ...both).statuses!.milestones[0].occurredAt).toBe('2031-06-01T08:00:00Z');
    expect(map('STS+1+21', 'DTM+78:203106011100:203', ...both).statuses!.milestones[0].occurredAt).toBe('2031-06-01T11:00:00Z');
  });

  it('reports an en route status with a reason that says it is late as a delay, with its reason and its estimate', () => {
    const late = map('STS+1+31+34::6', 'LOC+13+DKCPH::6', 'DTM+334:203106011200:203', 'DTM+132:203106021800:203').statuses!.milestones[0];
    expect(late).toEqual(expect.objectContaining({ milestone: 'delayed', reason: expect.any(String), estimatedTimes: { deliveryAt: '2031-06-02T18:00:00Z' } }));
    // Without a delay reason it is on its way; the estimate is kept all the same.
    expect(map('STS+1+31', 'LOC+13+DKCPH::6', 'DTM+334:203106011200:203', 'DTM+133:203106011500:203').statuses!.milestones[0]).toEqual(expect.objectContaining({ milestone: 'inTransit', estimatedTimes: { pickupAt: '2031-06-01T15:00:00Z' } }));
  });

  it("never sends on who signed for the goods (FTX+DEL) or other free text that may name people: only the reason qualifiers' text", () => {
    const { statuses } = map('STS+1+21', 'DTM+334:203106011200:203', 'FTX+DEL+++Signed by Jana Nováková', 'FTX+AAI+++Left at the loading dock');
    expect(statuses!.milestones[0].reason).toBe('Left at the loading dock');
    expect(JSON.stringify(statuses!.milestones)).not.toContain('Nováková');
    expect(statuses!.dropped).toEqual(expect.arrayContaining([expect.stringContaining('FTX+DEL')]));
  });

  it('gives a resend the same key, in another interchange, from another of the organization sender ids', () => {
    const once = map('STS+1+21', 'DTM+334:203106011200:203').statuses!.milestones[0];
    const again = mapIftsta(message(iftsta(['BGM+77+OTHER+7', 'CNI+9+CONS-1', 'STS+1+21', 'RFF+CN:ADDED', 'DTM+334:203106011200:203'], 'CARRIER-2')), context).statuses!.milestones[0];
    expect(again.deduplicationKey).toBe(once.deduplicationKey);
    expect(map('STS+1+21', 'DTM+334:203106011201:203').statuses!.milestones[0].deduplicationKey).not.toBe(once.deduplicationKey);
    expect(once.deduplicationKey).toMatch(/^[\x21-\x7e]{1,200}$/);
  });

  it('maps a place that is not a UN/LOCODE only by the organization, and otherwise leaves it out', () => {
    const gln = (organization: ServedOrganization) => mapIftsta(message(status('STS+1+13', 'DTM+334:203106011200:203', 'LOC+14+5790000000012::9')), { ...context, organization }).statuses!;
    expect(gln(context.organization).milestones[0].unLocode).toBeUndefined();
    expect(gln(context.organization).dropped).toEqual(expect.arrayContaining([expect.stringContaining('5790000000012')]));
    expect(gln({ ...context.organization, places: { '9:5790000000012': 'SEGOT' } }).milestones[0].unLocode).toBe('SEGOT');
  });
});

describe('the rail carrier report (D.00B) and the ocean report replaced', () => {
  const RAIL = 'iftsta_d00b_rail-departed-dtm186-178_apimeister.edi';
  // Its one defect, the UNZ naming another interchange, corrected so the message is read.
  const rail = fixture(RAIL).replace('UNZ+1+2805570', 'UNZ+1+2803570');

  it("reads the rail carrier's report and quarantines its status, a code of its own list (P, agency HS), naming the code and where", () => {
    const result = mapped(edifact.map(entry(rail), carrier(['SENDER'], 'America/New_York'), []));
    expect(result.reasons).toEqual([expect.objectContaining({ code: 'STATUS_CODE_UNKNOWN', position: 'segment 14 (STS), element 2', message: expect.stringContaining('agency HS') })]);
    // Its times of the train's legs (DTM 186 and 178 in the transport group) are never read as the status's.
    expect(JSON.stringify(result.reasons)).not.toContain('186');
  });

  it('corrects the outcome from the ocean report sent again as a replacement (BGM function 5)', () => {
    const replacing = fixture(OCEAN).replace(/BGM\+77\+([^+']*)\+9'/g, "BGM+77+$1+5'");
    const result = mapped(edifact.map(entry(replacing), carrier(['XXXXXXXXXXX'], 'America/New_York'), []));
    expect(result.kind).toBe('mapped');
    // Arrivals on the way correct nothing: only a final status (delivered, failed) corrects an outcome.
    expect(result.milestones.filter((m: any) => m.correction)).toEqual([]);
  });
});

describe('the EDIFACT format with status reports', () => {
  const alpine = carrier(['9110000000002'], 'Europe/Vienna', { organizationId: 'org-alpine-freight' });

  it("reads the example status report (examples/edifact/status-report.edi) for the carrier it is from", () => {
    const result = mapped(edifact.map(entry(EXAMPLE, 'status-report.edi'), alpine, [shipper]));
    expect(result.kind).toBe('mapped');
    expect(result.milestones.map((m: any) => `${m.milestone} ${m.occurredAt} ${m.unLocode}`)).toEqual([
      'pickedUp 2031-06-01T08:15:00Z SEGOT',
      'delayed 2031-06-02T12:00:00Z DKCPH',
      'delivered 2031-06-03T07:40:00Z DEHAM',
    ]);
    expect(result.milestones[0].references).toEqual([
      { type: 'CNI', value: 'BS-2031-0001' },
      { type: 'RFF+CN', value: 'TR-2031-0001' },
    ]);
    expect(result.milestones[1].reason).toBe('Transit delay; Queue at the Oresund Bridge toll, about 3 hours');
  });

  it('quarantines a report from a sender that is not the organization, or naming another organization', () => {
    expect(mapped(edifact.map(entry(EXAMPLE), carrier(['SOMEONE']), [])).reasons).toEqual([expect.objectContaining({ code: 'SENDER_NOT_ORGANIZATION' })]);
    const naming = EXAMPLE.replace("NAD+CA+9110000000002::9'", "NAD+CZ+5790000000005::9'");
    expect(mapped(edifact.map(entry(naming), alpine, [shipper])).reasons).toEqual([expect.objectContaining({ code: 'NAMES_OTHER_ORGANIZATION', position: 'segment 5 (NAD), element 2' })]);
  });

  it('answers each status message: accepted with the updates recorded, not accepted with the exchange refusal', () => {
    const result = mapped(edifact.map(entry(EXAMPLE), alpine, [shipper]));
    const milestones = [
      { executionReferenceId: 'er-1', updateId: 'up-1' },
      { executionReferenceId: 'er-1', updateId: 'up-2' },
      { executionReferenceId: 'er-1', updateId: 'up-3' },
    ];
    const ok = edifact.acknowledge({ ...entry(''), name: 'status-report.edi', result: { ...result, submitted: { kind: 'created', resources: [], mappings: [], milestones } } }, alpine, NOW);
    expect(ok.map((a) => a.name)).toEqual(['status-report.contrl.edi', 'status-report.aperak.edi']);
    expect(ok[1].content).toContain("+29'");
    expect(ok[1].content).toContain('FTX+AAI+++delivered (status 21, segment 16 (STS)) recorded as update up-3 of execution reference er-1');
    expect(ok[1].content).toContain("RFF+ACW:ALP-STAT-2031-0001'");
    const refused = [...milestones.slice(0, 2), { executionReferenceId: 'er-1', problem: { status: 422, code: 'REFERENCE_COMPLETED', detail: 'completed' } }];
    const no = edifact.acknowledge({ ...entry(''), result: { ...result, submitted: { kind: 'created', resources: [], mappings: [], milestones: refused } } }, alpine, NOW);
    expect(no[1].content).toContain("+27'");
    expect(no[1].content).toContain('FTX+AAO+++REFERENCE_COMPLETED?: the exchange refused delivered');
    expect(readInterchange(no[1].content).problems).toEqual([]);
  });

  it("answers a report the gateway quarantined after mapping (a movement it does not know) at the status's message", () => {
    const text = [EXAMPLE.split('UNZ')[0].trimEnd(), ...EXAMPLE.slice(EXAMPLE.indexOf('UNH'), EXAMPLE.indexOf('UNZ')).replace(/UNH\+1/, 'UNH+2').replace(/UNT\+19\+1/, 'UNT+19+2').trimEnd().split('\n'), "UNZ+2+ALPINE0001'"].join('\n');
    const result = mapped(edifact.map(entry(text), alpine, [shipper]));
    expect(result.kind).toBe('mapped');
    // What gateway/activities.ts makes of it when the second message's first status names no known movement.
    const held = { ...result, kind: 'quarantined', reasons: [{ code: 'UNKNOWN_REFERENCE', message: 'no movement known by CNI BS-2031-0001', position: 'segment 26 (STS)' }] };
    const answers = edifact.acknowledge({ ...entry(''), result: held }, alpine, NOW);
    expect(answers[0].content).toContain("UCI+ALPINE0001+9110000000002:14+PCX-GATEWAY+7'");
    const messages = answers[1].content.split("UNH+").slice(1);
    expect(messages[0]).toContain('not acted on?: the interchange is processed as a whole');
    expect(messages[0]).not.toContain('ERC');
    expect(messages[1]).toContain('UNKNOWN_REFERENCE?: no movement known by CNI BS-2031-0001 (segment 26 (STS))');
  });

  it('maps an interchange of an instruction and a status report, and answers both in their order', () => {
    const instruction = moved(fixture(BARGE), 2600, [/DTM\+63:[^']*'\n?/]);
    const iftmin = instruction.slice(instruction.indexOf('UNH+'), instruction.indexOf('UNZ+')).trimEnd();
    const report = EXAMPLE.slice(EXAMPLE.indexOf('UNH+'), EXAMPLE.indexOf('UNZ+')).replace('UNH+1', 'UNH+2').replace('UNT+19+1', 'UNT+19+2').trimEnd();
    const text = `UNA:+.? '\nUNB+UNOC:3+ICT+DCH+261127:1000+MIXED1'\n${iftmin}\n${report}\nUNZ+2+MIXED1'\n`;
    const forwarder: ServedOrganization = {
      organizationId: 'org-forwarder',
      clientId: 'f',
      clientSecret: 's',
      edifact: { senderIds: ['ICT'] },
      loadRequests: { publish: true, visibility: { mode: 'open' }, bodyTypes: ['curtainsider'], goodsCategory: 'chemicals', timeZone: 'Europe/Amsterdam', pointTimeMinutes: 120 },
    };
    const result = mapped(edifact.map(entry(text), forwarder, []));
    expect(result.kind).toBe('mapped');
    expect(result.loads).toHaveLength(1);
    expect(result.milestones.map((m: any) => m.milestone)).toEqual(['pickedUp', 'delayed', 'delivered']);
    expect(result.order).toEqual([{ kind: 'load', index: 0 }, { kind: 'status', index: 0 }]);
    const submitted = { kind: 'created', resources: [{ kind: 'load-request', id: 'lr-1', status: 'published' }], mappings: [], milestones: ['u1', 'u2', 'u3'].map((updateId) => ({ executionReferenceId: 'er-9', updateId })) };
    const aperak = edifact.acknowledge({ ...entry(''), result: { ...result, submitted } }, forwarder, NOW)[1].content;
    const [first, second] = aperak.split('UNH+').slice(1);
    expect(first).toContain('load request lr-1 published');
    expect(first).toContain("RFF+ACE:1'");
    expect(second).toContain('recorded as update u3 of execution reference er-9');
    expect(second).toContain("RFF+ACE:2'");
  });

  it('lists the profile IFTSTA D.04A', () => {
    expect(edifact.profiles.map((p) => p.id)).toEqual(['IFTMIN D.04A', 'IFTSTA D.04A']);
  });
});

describe('notify: a milestone told to the shipper as IFTSTA', () => {
  const notice = (more: Partial<MilestoneNotice> = {}): MilestoneNotice => ({
    executionReferenceId: '01900000-0000-7000-8000-000000000001',
    updateId: '01900000-0000-7000-8000-0000000000aa',
    milestone: 'delivered',
    occurredAt: '2031-06-03T07:40:00Z',
    recordedAt: '2031-06-03T07:41:02Z',
    unLocode: 'DEHAM',
    consignment: {
      documentNumber: 'BS-2031-0001',
      references: [
        { system: 'edifact:baltic-erp', type: 'BGM+610', value: 'BS-2031-0001' },
        { system: 'edifact:baltic-erp', type: 'RFF+CU', value: 'PO-88121' },
      ],
    },
    ...more,
  });
  const IFTSTA_TAGS = new Set<string>();
  const collect = (entries: any[]) => entries.forEach((e) => (typeof e.content === 'string' ? IFTSTA_TAGS.add(e.content) : collect(e.content)));
  collect(d04a().messages.IFTSTA);

  /** What the shipper's side reads back: the interchange, checked against D.04A, and its milestone. */
  function readBack(content: string, zone = 'UTC') {
    const { interchange, problems } = readInterchange(content);
    expect(problems).toEqual([]); // elements, envelope and the IFTSTA D.04A segment table
    const message = interchange!.messages[0];
    for (const s of message.segments) expect(IFTSTA_TAGS.has(s.tag)).toBe(true);
    const read = mapIftsta(message, { organization: carrier(['PCX-GATEWAY'], zone), othersIdentities: new Set() });
    expect(read.reasons).toEqual([]);
    return { interchange: interchange!, statuses: read.statuses! };
  }

  it('writes a complete interchange from the gateway to the shipper, named by the update', () => {
    const draft = edifact.notify!(notice(), { ...shipper, edifact: { senderIds: ['5790000000005'], gatewayId: 'PCX-GW' } }, NOW);
    expect(draft.kind).toBe('iftsta');
    expect(draft.name).toBe('01900000-0000-7000-8000-0000000000aa.iftsta.edi');
    expect(draft.content.split('\n')).toEqual([
      "UNA:+.? '",
      "UNB+UNOC:3+PCX-GW+5790000000005+310603:1000+000000000000aa'",
      "UNH+1+IFTSTA:D:04A:UN'",
      "BGM+77+019000000000700080000000000000aa+9'",
      "DTM+137:203106031000UTC:303'",
      "CNI+1+BS-2031-0001'",
      "STS+1+21'",
      "RFF+CU:PO-88121'",
      "DTM+334:203106030740UTC:303'",
      "LOC+14+DEHAM::6'",
      "UNT+9+1'",
      "UNZ+1+000000000000aa'",
      '',
    ]);
    const { interchange, statuses } = readBack(draft.content);
    expect(interchange.sender.id).toBe('PCX-GW');
    expect(statuses.milestones[0]).toEqual(expect.objectContaining({ milestone: 'delivered', occurredAt: '2031-06-03T07:40:00Z', unLocode: 'DEHAM', references: [{ type: 'CNI', value: 'BS-2031-0001' }, { type: 'RFF+CU', value: 'PO-88121' }] }));
  });

  it('reads back every milestone as itself, with its place and reason', () => {
    for (const milestone of MILESTONES) {
      for (const unLocode of [undefined, 'SEGOT']) {
        const draft = edifact.notify!(notice({ milestone, unLocode, reason: `why ${milestone}` }), shipper, NOW);
        const read = readBack(draft.content).statuses.milestones[0];
        expect(read).toEqual(expect.objectContaining({ milestone, occurredAt: '2031-06-03T07:40:00Z', reason: `why ${milestone}` }));
        expect(read.unLocode).toBe(unLocode);
      }
    }
  });

  it('escapes service characters, keeps seconds, and writes other characters as UTF-8 (UNOW, syntax 4)', () => {
    const odd = notice({ occurredAt: '2031-06-03T07:40:09Z', reason: "Rampe 3: Ware beschädigt + Folie offen? Fahrer's Notiz", consignment: { documentNumber: "BS:1+2'3?", references: [{ system: 's', type: 'RFF+CU', value: 'PO+1' }] } });
    const draft = edifact.notify!(odd, shipper, NOW);
    expect(draft.content).toContain("UNB+UNOW:4+PCX-GATEWAY+5790000000005+20310603:1000+");
    expect(draft.content).toContain("CNI+1+BS?:1?+2?'3??'");
    expect(draft.content).toContain("DTM+334:20310603074009UTC:304'");
    const bytes = Buffer.from(draft.content, 'utf8');
    const { statuses } = readBack(edifact.decode(bytes));
    expect(statuses.milestones[0]).toEqual(expect.objectContaining({ occurredAt: '2031-06-03T07:40:09Z', reason: "Rampe 3: Ware beschädigt + Folie offen? Fahrer's Notiz" }));
    expect(statuses.milestones[0].references).toEqual([{ type: 'CNI', value: "BS:1+2'3?" }, { type: 'RFF+CU', value: 'PO+1' }]);
  });

  it("goes to the shipper's first sender id, or its organization id when it has none", () => {
    expect(edifact.notify!(notice(), { ...shipper, edifact: undefined }, NOW).content).toContain('UNB+UNOC:3+PCX-GATEWAY+org-shipper+');
  });
});

describe('hostile status reports, from real ones mutated', () => {
  // The seeded generator and mutations of the IFTMIN fuzz (test/unit/gateway-edifact.test.ts).
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const SPECIAL = ["'", '+', ':', '?', '\n', '\u0000', 'UNA', 'UNH+', 'UNT+', 'STS+1+', 'CNI+', 'DTM+334:', '9'.repeat(40), "''", 'Ä', '\uFEFF'];
  function mutate(text: string, next: () => number): string {
    let out = text;
    const edits = 1 + Math.floor(next() * 4);
    for (let i = 0; i < edits; i++) {
      const at = Math.floor(next() * out.length);
      const what = next();
      if (what < 0.3) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(next() * 20));
      else if (what < 0.6) out = out.slice(0, at) + SPECIAL[Math.floor(next() * SPECIAL.length)] + out.slice(at);
      else if (what < 0.8) out = out.slice(0, at) + out.slice(at, at + 200) + out.slice(at);
      else out = out.slice(0, at) + String.fromCharCode(Math.floor(next() * 256)) + out.slice(at + 1);
    }
    return out;
  }

  it('every mutation is mapped or quarantined and answered: never a crash', () => {
    const next = random(20310603);
    const sources = [
      { text: fixture(OCEAN), org: carrier(['XXXXXXXXXXX'], 'America/New_York') },
      { text: fixture(POSTI), org: carrier(['7080000714520'], 'Europe/Oslo') },
      { text: envelope(fixture(EANCOM)), org: carrier(['5422331123459'], 'Europe/London') },
      { text: EXAMPLE, org: carrier(['9110000000002']) },
    ];
    let mappedCount = 0;
    for (let i = 0; i < 800; i++) {
      const { text, org } = sources[i % sources.length];
      const result = mapped(edifact.map(entry(mutate(text, next)), org, [shipper]));
      expect(['mapped', 'quarantined']).toContain(result.kind);
      if (result.kind === 'quarantined') expect(result.reasons.length).toBeGreaterThan(0);
      else {
        mappedCount++;
        for (const m of result.milestones) {
          expect(m.references.length).toBeGreaterThan(0);
          expect(m.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
          expect(m.deduplicationKey).toMatch(/^[\x21-\x7e]{1,200}$/);
        }
      }
      const submitted = { kind: 'created', resources: [], mappings: [], milestones: (result.milestones ?? []).map((_: unknown, k: number) => ({ executionReferenceId: 'er', updateId: `u${k}` })) };
      const answers = edifact.acknowledge({ ...entry(''), result: result.kind === 'mapped' ? { ...result, submitted } : result }, org, NOW);
      expect(answers.length).toBeGreaterThan(0);
    }
    expect(mappedCount).toBeGreaterThan(10);
  });
});

describe('a status dated in the future (the exchange refuses what has not happened yet)', () => {
  it('is quarantined as TIME_IN_FUTURE at its status, beyond the exchange\'s 5 minutes of clock skew; the real message read on its own day is not', () => {
    // The real ocean carrier message, read on the day of its statuses: its first status (12:12 in
    // New York, 17:12 UTC) against a gateway clock before it, at it plus the skew, and years later.
    const [first] = mapped(edifact.map(entry(fixture(OCEAN)), carrier(['XXXXXXXXXXX'], 'America/New_York'), [])).milestones;
    expect(first.occurredAt).toBe('2015-01-13T17:12:00Z');
    expect(inTheFuture(first, new Date('2015-01-13T17:06:59Z'))).toEqual({
      code: 'TIME_IN_FUTURE',
      message: "it reports inTransit at 2015-01-13T17:12:00Z, after the gateway's now (2015-01-13T17:06:59.000Z) by more than 5 minutes (at the latest 2015-01-13T17:11:59.000Z): the exchange records what has happened; check the sender's clock and time zone",
      position: 'segment 7 (STS)',
    });
    expect(inTheFuture(first, new Date('2015-01-13T17:07:00Z'))).toBeUndefined();
    expect(inTheFuture(first, new Date())).toBeUndefined();
    // The same allowance as the exchange's.
    expect(GATEWAY_SKEW).toBe(CLOCK_SKEW_MINUTES);
  });
});
