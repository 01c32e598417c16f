// The EPCIS side of the adapter gateway on real documents (test/fixtures/epcis/SOURCES.md): GS1's
// JSON Schema, a carrier's events to milestones (the business step table, times, references,
// places, other organizations' identities), what is quarantined and where, hostile input and a
// fuzz of mutated real documents, the result a sender reads, and the EPCIS document a shipper is
// told a milestone in.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedOrganization } from '../../gateway/config';
import { MILESTONES, type Milestone, type MilestoneNotice } from '../../gateway/format';
import { formatOfFile } from '../../gateway/formats';
import { BIZ_STEP_MILESTONES, canonical, deduplicationKeyOf, milestoneOfBizStep, pcxBizStep, utcOf } from '../../gateway/epcis/events';
import { epcis, type EpcisMapped, type EpcisQuarantined } from '../../gateway/epcis/format';
import { cbvTerm, checkDigit, glnOfIdentity, glnOfUri, movementKeyOf } from '../../gateway/epcis/identifiers';
import { LIMITS } from '../../gateway/epcis/json';
import { EPCIS_CONTEXT, MILESTONE_BIZ_STEPS, milestoneDocument } from '../../gateway/epcis/notify';
import { SCHEMA_FILE, SEARCHED_VALUES, schemaReasons, validator } from '../../gateway/epcis/schema';
import type { InboxEntry } from '../../gateway/store';

const FIXTURES = join(__dirname, '..', 'fixtures', 'epcis');
const fixture = (name: string) => epcis.decode(readFileSync(join(FIXTURES, name)));
const FIXTURE_NAMES = readFileSync(join(FIXTURES, 'SOURCES.md'), 'utf8').match(/`[a-z0-9]+_[^`]+\.jsonld`/g)!.map((n) => n.slice(1, -1));

const entry = (content: string, result: unknown = null): InboxEntry => ({
  id: 'mb-epcis-1',
  organizationId: 'org-carrier',
  transport: 'mailbox',
  format: 'epcis',
  name: 'events.jsonld',
  contentSha256: '',
  content,
  status: 'received',
  receivedAt: '2031-06-03T07:00:00.000Z',
  result,
});
const carrier = (settings: ServedOrganization['epcis'] = {}, places: Record<string, string> = {}): ServedOrganization => ({ organizationId: 'org-carrier', clientId: 'carrier', clientSecret: 'secret', epcis: settings, places });
const map = (content: string, org = carrier(), others: ServedOrganization[] = []) => epcis.map(entry(content), org, others) as EpcisMapped | EpcisQuarantined;
const mapped = (content: string, org = carrier(), others: ServedOrganization[] = []): EpcisMapped => {
  const r = map(content, org, others);
  if (r.kind !== 'mapped') throw new Error(`quarantined: ${JSON.stringify(r.reasons)}`);
  return r;
};
/** The reasons as "CODE position". */
const reasons = (r: EpcisMapped | EpcisQuarantined) => (r.kind === 'quarantined' ? r.reasons.map((x) => `${x.code} ${x.position ?? ''}`.trim()) : []);
const summary = (r: EpcisMapped) => r.milestones.map((m) => `${m.milestone} ${m.occurredAt}${m.unLocode ? ` ${m.unLocode}` : ''}`);

/** A real document with a change. */
const edited = (name: string, change: (doc: any) => void) => {
  const doc = JSON.parse(fixture(name));
  change(doc);
  return JSON.stringify(doc);
};

const BOL = 'urn:epcglobal:cbv:bt:5790000000005:BS-2031-0001';
const event = (fields: Record<string, unknown> = {}) => ({
  type: 'ObjectEvent',
  eventTime: '2031-06-01T10:40:00+02:00',
  eventTimeZoneOffset: '+02:00',
  epcList: [],
  action: 'OBSERVE',
  bizStep: 'departing',
  bizTransactionList: [{ type: 'bol', bizTransaction: BOL }],
  ...fields,
});
const document = (...events: unknown[]) => JSON.stringify({ '@context': [EPCIS_CONTEXT], type: 'EPCISDocument', schemaVersion: '2.0', creationDate: '2031-06-03T06:40:00Z', epcisBody: { eventList: events } });

describe("GS1's JSON Schema", () => {
  it('is draft-07, compiled once, and every fixture is valid against it', () => {
    expect(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')).$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(validator()).toBe(validator());
    expect(FIXTURE_NAMES.length).toBeGreaterThanOrEqual(18);
    for (const name of FIXTURE_NAMES) expect([name, schemaReasons(JSON.parse(fixture(name)))]).toEqual([name, []]);
  });

  it('quarantines an invalid document with the JSON Pointer of each error, a bounded number of them', () => {
    const missing = edited('gs1_Example_9.6.1-ObjectEvent.jsonld', (d) => {
      delete d.epcisBody.eventList[1].eventTime;
      d.epcisBody.eventList[0].action = 'LOOK';
    });
    expect(map(missing)).toEqual(
      expect.objectContaining({
        kind: 'quarantined',
        reasons: [
          expect.objectContaining({ code: 'SCHEMA_INVALID', position: '/epcisBody/eventList/0/action', message: expect.stringContaining('allowed values') }),
          expect.objectContaining({ code: 'SCHEMA_INVALID', position: '/epcisBody/eventList/1', message: expect.stringContaining("required property 'eventTime'") }),
        ],
      }),
    );
    const many = document(...Array.from({ length: 40 }, () => event({ eventTime: 'yesterday' })));
    const r = map(many) as EpcisQuarantined;
    expect(r.reasons).toHaveLength(10);
    expect(r.reasons[0].position).toBe('/epcisBody/eventList/0/eventTime');
    expect(r.reasons[9].message).toContain('and 30 more places');
  });

  it('refuses the URN form of a CBV term, as GS1 made it, and says which forms EPCIS 2.0 JSON takes', () => {
    const r = map(document(event({ bizStep: 'urn:epcglobal:cbv:bizstep:departing' })));
    expect(reasons(r)).toEqual(['SCHEMA_INVALID /epcisBody/eventList/0/bizStep']);
    expect((r as EpcisQuarantined).reasons[0].message).toContain('https://ref.gs1.org/cbv/BizStep-departing');
    // The other forms are valid and read alike.
    for (const form of ['departing', 'https://ref.gs1.org/cbv/BizStep-departing', 'cbv:BizStep-departing']) expect(summary(mapped(document(event({ bizStep: form }))))).toEqual(['inTransit 2031-06-01T08:40:00Z']);
  });
});

describe('real documents', () => {
  const reading = carrier({ referenceTypes: ['bol', 'desadv', 'po'] }, { '9:0614141073467': 'USCHI' });

  it("GS1's example 9.6.1: shipping names only a purchase order, which is no movement reference by default", () => {
    expect(reasons(map(fixture('gs1_Example_9.6.1-ObjectEvent.jsonld')))).toEqual(['REFERENCE_MISSING /epcisBody/eventList/0']);
  });

  it("GS1's example 9.6.1 for a carrier that reads purchase orders: picked up at its place, then delivered", () => {
    const r = mapped(fixture('gs1_Example_9.6.1-ObjectEvent.jsonld'), reading);
    expect(summary(r)).toEqual(['pickedUp 2005-04-04T02:33:31.116Z USCHI', 'delivered 2005-04-05T02:33:31.116Z']);
    expect(r.milestones[0]).toEqual({
      // The Web URI and the number it ends in: the number is what the carrier's systems know.
      references: [
        { type: 'po', value: 'http://transaction.acme.com/po/12345678' },
        { type: 'po', value: '12345678' },
      ],
      milestone: 'pickedUp',
      occurredAt: '2005-04-04T02:33:31.116Z',
      deduplicationKey: 'ni:///sha-256;df7bb3c352fef055578554f09f5e2aa41782150ced7bd0b8af24dd3ccb30ba69?ver=CBV2.0',
      unLocode: 'USCHI',
      source: '/epcisBody/eventList/0',
    });
    // The despatch advice is named by its URN and by its number; the receiving dock is no place of the carrier's.
    expect(r.milestones[1].references).toEqual([
      { type: 'po', value: 'http://transaction.acme.com/po/12345678' },
      { type: 'po', value: '12345678' },
      { type: 'desadv', value: 'urn:epcglobal:cbv:bt:0614141073467:1152' },
      { type: 'desadv', value: '1152' },
    ]);
    expect(r.events[1].notes).toEqual(['readPoint GLN 0012345111112 is not one of the organization\'s places: left out', 'bizLocation GLN 0012345111112 is not one of the organization\'s places: left out']);
    // The same with Digital Link EPCs, and with a comment.
    expect(summary(mapped(fixture('gs1_Example_9.6.1-ObjectEventWithDigitalLink.jsonld'), reading))).toEqual(summary(r));
  });

  it("GS1's query document (a subscription's results) maps as the capture document, at its own pointers", () => {
    const r = mapped(fixture('gs1_EPCISQueryDocument.jsonld'), reading);
    expect(summary(r)).toEqual(['pickedUp 2005-04-04T02:33:31.116Z USCHI', 'delivered 2005-04-05T02:33:31.116Z']);
    expect(r.milestones.map((m) => m.source)).toEqual(['/epcisBody/queryResults/resultsBody/eventList/0', '/epcisBody/queryResults/resultsBody/eventList/1']);
    expect(r.document).toEqual(expect.objectContaining({ type: 'EPCISQueryDocument', queryName: 'SimpleEventQuery', events: 2 }));
  });

  it("GS1's 9.6.2 and 9.6.3 (receiving, by EPC only) name no movement; 9.6.4 and a sensor report report no milestone", () => {
    expect(reasons(map(fixture('gs1_Example_9.6.2-ObjectEvent.jsonld')))).toEqual(['REFERENCE_MISSING /epcisBody/eventList/0']);
    expect(reasons(map(fixture('gs1_Example_9.6.3-AggregationEvent.jsonld')))).toEqual(['REFERENCE_MISSING /epcisBody/eventList/0']);
    const commissioning = map(fixture('gs1_Example_9.6.4-TransformationEvent.jsonld')) as EpcisQuarantined;
    expect(reasons(commissioning)).toEqual(['NO_MILESTONE /epcisBody/eventList']);
    expect(commissioning.events).toEqual([expect.objectContaining({ pointer: '/epcisBody/eventList/0', dropped: 'business step commissioning reports no milestone' })]);
    expect(reasons(map(fixture('gs1_SensorDataExample13.jsonld')))).toEqual(['NO_MILESTONE /epcisBody/eventList']);
  });

  it("GS1's rail example: a passage is the carrier's reference once it names that type; its own business step is dropped", () => {
    expect(reasons(map(fixture('gs1_Example-TransactionEvents-2020_07_03y.jsonld')))).toEqual(['REFERENCE_MISSING /epcisBody/eventList/1']);
    const r = mapped(fixture('gs1_Example-TransactionEvents-2020_07_03y.jsonld'), carrier({ referenceTypes: ['urn:gs1:epcisapp:rail:btt:passage'] }));
    expect(summary(r)).toEqual(['inTransit 2014-12-12T10:00:00Z']);
    expect(r.milestones[0].references).toEqual([
      { type: 'urn:gs1:epcisapp:rail:btt:passage', value: 'http://transaction.examplerail.com/passage/xyz12345' },
      { type: 'urn:gs1:epcisapp:rail:btt:passage', value: 'xyz12345' },
    ]);
    expect(r.events[0]).toEqual(expect.objectContaining({ dropped: 'business step http://epcis.example.org/hc/bizstep/summarising_discharge reports no milestone' }));
    // No eventID: the key is a digest of the event's canonical JSON.
    expect(r.milestones[0].deduplicationKey).toMatch(/^epcis-sha256:[0-9a-f]{64}$/);
  });

  it("GS1's persistent disposition example: received under a despatch advice, the inspection dropped", () => {
    const r = mapped(fixture('gs1_PersistentDisposition-example.jsonld'));
    expect(summary(r)).toEqual(['delivered 2020-06-07T17:10:16Z']);
    expect(r.milestones[0].references).toEqual([{ type: 'desadv', value: 'urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6' }]);
    expect(r.events[1]).toEqual(expect.objectContaining({ bizStep: 'inspecting', dropped: expect.any(String) }));
  });

  it("GS1's error declarations of shipping events: a milestone is never withdrawn, so they are listed, and the rest of the document is read", () => {
    const declared = mapped(fixture('gs1_Example_9.6.1-ObjectEvent-with-error-declaration.jsonld'), reading);
    expect(declared.events[0]).toEqual(expect.objectContaining({ dropped: expect.stringMatching(/error declaration of a pickedUp event/) }));
    expect(summary(declared)).toEqual(['delivered 2005-04-05T02:33:31.116Z']);
    // A document of nothing but such a declaration reports nothing: held, as any document without a milestone.
    expect(reasons(map(fixture('gs1_transaction_event_all_possible_fields.jsonld'), reading))).toEqual(['NO_MILESTONE /epcisBody/eventList']);
  });

  it("an error declaration of a delivery (GS1's 9.6.1 receiving event, declared in error): the outcome is corrected to disputed, no milestone recorded", () => {
    const document = JSON.parse(fixture('gs1_Example_9.6.1-ObjectEvent.jsonld'));
    const receiving = document.epcisBody.eventList[1];
    receiving.errorDeclaration = { declarationTime: '2005-04-06T10:00:00Z', reason: 'incorrect_data' };
    const r = mapped(JSON.stringify(document), reading);
    const declared = r.milestones.find((m) => m.correction)!;
    expect(declared).toEqual(expect.objectContaining({ milestone: 'delivered', source: '/epcisBody/eventList/1/errorDeclaration', correction: { status: 'disputed', reason: expect.stringMatching(/EPCIS error declaration of event .*incorrect_data, declared 2005-04-06T10:00:00Z/), reasonCode: 'DATA_ENTRY_ERROR', only: true } }));
  });

  it("RalphTro's departing and transporting: the transport is read by its SSCC and a geo point only, so the document is held", () => {
    const r = map(fixture('ralphtro_epcisDocWithShippingAndTransportingEvent.jsonld')) as EpcisQuarantined;
    expect(reasons(r)).toEqual(['REFERENCE_MISSING /epcisBody/eventList/1']);
    expect(r.events![0]).toEqual(expect.objectContaining({ milestone: 'inTransit' }));
  });

  it("RalphTro's thirteen events of every type: three milestones, ten dropped", () => {
    expect(reasons(map(fixture('ralphtro_epcisDocWithVariousEventTypes.jsonld')))).toEqual(['REFERENCE_MISSING /epcisBody/eventList/8']);
    const r = mapped(fixture('ralphtro_epcisDocWithVariousEventTypes.jsonld'), reading);
    expect(summary(r)).toEqual(['inTransit 2019-10-21T10:00:30Z', 'delivered 2019-10-21T11:00:30Z', 'pickedUp 2019-10-21T06:05:00Z']);
    expect(r.events.filter((e) => e.dropped).map((e) => e.bizStep)).toEqual(['inspecting', 'commissioning', 'packing', 'packing', 'unpacking', 'unpacking', 'holding', 'commissioning', 'commissioning', 'http://epcis.example.com/user/vocab/bizstep/exampling']);
  });

  it("RalphTro's CURIE example: a Digital Link read point is a place by its GLN", () => {
    const r = mapped(fixture('ralphtro_epcisEventWithCURIEs.jsonld'), carrier({}, { '9:4012345000115': 'DEHAM' }));
    expect(summary(r)).toEqual(['delivered 2023-01-11T11:00:00Z DEHAM']);
    expect(r.milestones[0].references).toEqual([
      { type: 'desadv', value: 'urn:epcglobal:cbv:bt:4012345000009:ASN1099' },
      { type: 'desadv', value: 'ASN1099' },
    ]);
  });

  it("RalphTro's departing in transit, with no eventID: keyed by its canonical digest", () => {
    const r = mapped(fixture('ralphtro_ReferenceEventHashAlgorithm3.jsonld'), reading);
    expect(summary(r)).toEqual(['inTransit 2020-03-04T10:00:30Z']);
    const again = mapped(JSON.stringify(JSON.parse(fixture('ralphtro_ReferenceEventHashAlgorithm3.jsonld')), null, 4), reading);
    expect(again.milestones[0].deduplicationKey).toBe(r.milestones[0].deduplicationKey);
  });

  it("RalphTro's GS1 keys: a GINC and a GSIN among the EPCs are the movement's references", () => {
    expect(reasons(map(fixture('ralphtro_epcisDocWithAllGS1Keys.jsonld')))).toEqual(['NO_MILESTONE /epcisBody/eventList']);
    const r = mapped(edited('ralphtro_epcisDocWithAllGS1Keys.jsonld', (d) => (d.epcisBody.eventList[0].bizStep = 'departing')));
    expect(r.milestones[0].references).toEqual([
      { type: 'ginc', value: '4012345333' },
      { type: 'ginc', value: 'urn:epc:id:ginc:4012345.333' },
      { type: 'gsin', value: '40123459999876541' },
      { type: 'gsin', value: 'urn:epc:id:gsin:4012345.999987654' },
    ]);
    expect(reasons(map(fixture('ralphtro_epclist_normalisation.jsonld')))).toEqual(['NO_MILESTONE /epcisBody/eventList']);
  });

  it("RalphTro's time stamps: fractions of a second kept as written", () => {
    expect(reasons(map(fixture('ralphtro_TimeStampRoundOff.jsonld')))).toEqual(['REFERENCE_MISSING /epcisBody/eventList/0', 'REFERENCE_MISSING /epcisBody/eventList/1', 'REFERENCE_MISSING /epcisBody/eventList/2']);
    const r = mapped(edited('ralphtro_TimeStampRoundOff.jsonld', (d) => d.epcisBody.eventList.forEach((e: any) => (e.bizTransactionList = [{ type: 'bol', bizTransaction: BOL }]))));
    expect(summary(r)).toEqual(['pickedUp 2023-02-02T11:04:03.1415Z', 'inTransit 2023-02-02T11:04:03.1414Z', 'delivered 2023-02-12T11:04:03.1415Z']);
  });

  it("the example a carrier drops (examples/epcis) maps for Alpine Freight as config/gateway.json sets it up", () => {
    const organizations = JSON.parse(readFileSync(join(__dirname, '..', '..', 'config', 'gateway.json'), 'utf8')) as ServedOrganization[];
    const alpine = organizations.find((o) => o.organizationId === 'org-alpine-freight')!;
    const content = epcis.decode(readFileSync(join(__dirname, '..', '..', 'examples', 'epcis', 'track-and-trace.jsonld')));
    const r = mapped(content, alpine, organizations.filter((o) => o !== alpine));
    expect(r.milestones.map((m) => `${m.milestone} ${m.occurredAt}`)).toEqual(['pickedUp 2031-06-01T08:40:00Z', 'inTransit 2031-06-01T09:05:00Z', 'inTransit 2031-06-02T07:30:00Z', 'atDelivery 2031-06-03T05:50:00Z', 'delivered 2031-06-03T06:35:00Z']);
    for (const m of r.milestones) expect(m.references).toEqual(expect.arrayContaining([{ type: 'bol', value: 'BS-2031-0001' }, { type: 'https://alpine-freight.example/btt/trip', value: 'TR-2031-0001' }]));
    // With the docks among Alpine's places (docs/adapters.md, "Try it"), the positions.
    const placed = mapped(content, { ...alpine, places: { '9:5790000000012': 'SEGOT', '9:5790000000029': 'DEHAM' } }, organizations.filter((o) => o !== alpine));
    expect(placed.milestones.map((m) => m.unLocode)).toEqual(['SEGOT', 'SEGOT', undefined, 'DEHAM', 'DEHAM']);
    expect(schemaReasons(JSON.parse(content))).toEqual([]);
    expect(formatOfFile('track-and-trace.jsonld')).toBe(epcis);
    expect(formatOfFile('TRACK.JSON')).toBe(epcis);
  });
});

describe('business steps', () => {
  const steps: string[] = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')).definitions.bizStep.anyOf[1].enum;
  const EXPECTED: Record<string, Milestone | 'SHIPPING_VOIDED'> = {
    loading: 'pickedUp',
    shipping: 'pickedUp',
    consigning: 'pickedUp',
    collecting: 'pickedUp',
    departing: 'inTransit',
    transporting: 'inTransit',
    arriving: 'atDelivery',
    unloading: 'atDelivery',
    receiving: 'delivered',
    accepting: 'delivered',
    void_shipping: 'SHIPPING_VOIDED',
  };

  it('the table covers the CBV steps it names, and nothing else', () => {
    expect(Object.keys(BIZ_STEP_MILESTONES).every((s) => steps.includes(s))).toBe(true);
    expect(steps).toHaveLength(41);
  });

  it.each(steps)('%s', (step) => {
    const expected = EXPECTED[step];
    for (const form of [step, `https://ref.gs1.org/cbv/BizStep-${step}`, `cbv:BizStep-${step}`]) {
      const r = map(document(event({ bizStep: form })));
      if (expected === 'SHIPPING_VOIDED') expect(reasons(r)).toEqual(['SHIPPING_VOIDED /epcisBody/eventList/0/bizStep']);
      else if (expected) expect((r as EpcisMapped).milestones?.map((m) => m.milestone)).toEqual([expected]);
      else expect(reasons(r)).toEqual(['NO_MILESTONE /epcisBody/eventList']);
    }
    expect(milestoneOfBizStep(`urn:epcglobal:cbv:bizstep:${step}`)).toBe(expected === 'SHIPPING_VOIDED' ? 'void' : expected);
  });

  it('an arrival, unloading or receipt still in_transit is at a place between: in transit', () => {
    for (const step of ['arriving', 'unloading', 'receiving', 'accepting']) {
      expect(mapped(document(event({ bizStep: step, disposition: 'in_transit' }))).milestones[0].milestone).toBe('inTransit');
      expect(mapped(document(event({ bizStep: step, disposition: 'https://ref.gs1.org/cbv/Disp-in_transit' }))).milestones[0].milestone).toBe('inTransit');
    }
    expect(mapped(document(event({ bizStep: 'receiving', disposition: 'in_progress' }))).milestones[0].milestone).toBe('delivered');
    expect(mapped(document(event({ bizStep: 'loading', disposition: 'in_transit' }))).milestones[0].milestone).toBe('pickedUp');
  });

  it("the organization's own steps, and the exchange's vocabulary for every milestone", () => {
    const own = carrier({ bizSteps: { 'https://alpine.example/bizstep/gate-out': 'inTransit', arriving: 'inTransit', commissioning: null, accepting: null } });
    expect(mapped(document(event({ bizStep: 'https://alpine.example/bizstep/gate-out' })), own).milestones[0].milestone).toBe('inTransit');
    expect(mapped(document(event({ bizStep: 'arriving' })), own).milestones[0].milestone).toBe('inTransit');
    expect(reasons(map(document(event({ bizStep: 'accepting' })), own))).toEqual(['NO_MILESTONE /epcisBody/eventList']);
    for (const milestone of MILESTONES) expect(mapped(document(event({ bizStep: pcxBizStep(milestone) }))).milestones[0].milestone).toBe(milestone);
    expect(reasons(map(document(event({ bizStep: 'https://schemas.pcx.example/v0/epcis/BizStep-teleported' }))))).toEqual(['NO_MILESTONE /epcisBody/eventList']);
  });

  it('a delay told with its reason, in the exchange vocabulary', () => {
    const doc = JSON.parse(document(event({ bizStep: pcxBizStep('delayed'), 'pcx:reason': 'ferry cancelled (storm)' })));
    doc['@context'].push({ pcx: 'https://schemas.pcx.example/v0/epcis/' });
    expect(mapped(JSON.stringify(doc)).milestones[0]).toEqual(expect.objectContaining({ milestone: 'delayed', reason: 'ferry cancelled (storm)' }));
  });

  it('a TransactionEvent that dissociates is dropped; no business step at all is dropped', () => {
    const tx = { ...event(), type: 'TransactionEvent', action: 'DELETE' };
    expect(reasons(map(document(tx, event({ bizStep: undefined }))))).toEqual(['NO_MILESTONE /epcisBody/eventList']);
  });
});

describe('times', () => {
  it.each([
    ['2005-04-03T20:33:31.116000-06:00', '2005-04-04T02:33:31.116Z'],
    ['2013-06-08T14:58:56.591Z', '2013-06-08T14:58:56.591Z'],
    ['2031-06-01T10:40:00+02:00', '2031-06-01T08:40:00Z'],
    ['2031-01-01T05:00:00+14:00', '2030-12-31T15:00:00Z'],
    ['2031-12-31T20:00:00-12:00', '2032-01-01T08:00:00Z'],
    ['2031-03-30T01:30:00+05:45', '2031-03-29T19:45:00Z'],
    ['2023-03-27T11:30:00.0Z', '2023-03-27T11:30:00Z'],
    ['2031-06-01T10:40:00.123456789123+00:00', '2031-06-01T10:40:00.123456789Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00Z'],
    ['1969-12-31T23:00:00-05:00', '1970-01-01T04:00:00Z'],
    ['1969-12-31T23:00:00Z', undefined],
    ['9999-12-31T23:00:00-05:00', undefined],
    ['2016-12-31T23:59:60Z', undefined],
    ['2023-02-29T12:00:00Z', undefined],
    ['2031-06-01T10:40:00', undefined],
  ])('%s is %s', (time, utc) => expect(utcOf(time)).toBe(utc));

  it('eventTimeZoneOffset says where it happened, not when: the instant is eventTime', () => {
    expect(mapped(document(event({ eventTime: '2031-06-01T08:40:00Z', eventTimeZoneOffset: '+02:00' }))).milestones[0].occurredAt).toBe('2031-06-01T08:40:00Z');
    expect(mapped(document(event({ eventTime: '2031-06-01T08:40:00Z', eventTimeZoneOffset: '-11:00' }))).milestones[0].occurredAt).toBe('2031-06-01T08:40:00Z');
  });

  it('a time the exchange cannot hold is quarantined where it is', () => {
    expect(reasons(map(document(event(), event({ eventTime: '2016-12-31T23:59:60Z' }))))).toEqual(['TIME_INVALID /epcisBody/eventList/1/eventTime']);
    expect(reasons(map(document(event({ eventTime: '1960-01-01T00:00:00Z' }))))).toEqual(['TIME_INVALID /epcisBody/eventList/0/eventTime']);
  });
});

describe('identifiers', () => {
  it('computes the GS1 check digit, as the keys in GS1 examples have it', () => {
    expect(checkDigit('401234500000')).toBe(9); // GLN 4012345000009
    expect(checkDigit('061414107346')).toBe(7); // GLN 0614141073467 of example 9.6.1's business transaction
    expect(checkDigit('400638133393')).toBe(1); // GTIN-13 4006381333931
  });

  it('reads GLNs from SGLN, PGLN and Digital Link', () => {
    expect(glnOfUri('urn:epc:id:sgln:0614141.07346.1234')).toBe('0614141073467');
    expect(glnOfUri('urn:epc:id:sgln:4012345.00022.0')).toBe('4012345000221');
    expect(glnOfUri('urn:epc:id:sgln:0012345.11111.400')).toBe('0012345111112');
    expect(glnOfUri('urn:epc:id:sgln:952005385.011.ts4711')).toBe('9520053850113');
    expect(glnOfUri('urn:epc:id:pgln:4012345.00000')).toBe('4012345000009');
    expect(glnOfUri('urn:epc:id:pgln:4012345.00000', ['location'])).toBeUndefined();
    expect(glnOfUri('https://id.gs1.org/414/4012345000115')).toBe('4012345000115');
    expect(glnOfUri('https://id.example.com/some/path/414/4012345000115/254/dock-1')).toBe('4012345000115');
    expect(glnOfUri('https://id.gs1.org/417/4012345000009')).toBe('4012345000009');
    expect(glnOfUri('https://id.gs1.org/414/4012345000116')).toBeUndefined(); // wrong check digit
    expect(glnOfUri('urn:epc:id:sgln:4012345.0002.0')).toBeUndefined(); // 11 digits
    expect(glnOfUri('geo:47.506694,11.104301')).toBeUndefined();
    expect(glnOfIdentity('4012345000009')).toBe('4012345000009');
    expect(glnOfIdentity('4012345000008')).toBeUndefined();
  });

  it('reads GINC and GSIN from EPC URIs and Digital Link', () => {
    expect(movementKeyOf('urn:epc:id:ginc:0614141.xyz47%2F11')).toEqual({ type: 'ginc', value: '0614141xyz47/11' });
    expect(movementKeyOf('urn:epc:id:gsin:4012345.222333444')).toEqual({ type: 'gsin', value: '40123452223334442' });
    expect(movementKeyOf('https://id.gs1.org/402/40123452223334442')).toEqual({ type: 'gsin', value: '40123452223334442' });
    expect(movementKeyOf('https://id.gs1.org/402/40123452223334443')).toBeUndefined();
    expect(movementKeyOf('https://id.gs1.org/401/0614141xyz47%2F11')).toEqual({ type: 'ginc', value: '0614141xyz47/11' });
    expect(movementKeyOf('urn:epc:id:sscc:4012345.0000000333')).toBeUndefined();
  });

  it('reads CBV terms in every form', () => {
    expect(['departing', 'https://ref.gs1.org/cbv/BizStep-departing', 'http://ref.gs1.org/cbv/BizStep-departing', 'cbv:BizStep-departing', 'urn:epcglobal:cbv:bizstep:departing'].map((f) => cbvTerm(f, 'bizStep'))).toEqual(Array(5).fill('departing'));
    expect(cbvTerm('urn:epcglobal:cbv:btt:bol', 'bizTransactionType')).toBe('bol');
    expect(cbvTerm('https://ref.gs1.org/cbv/BTT-desadv', 'bizTransactionType')).toBe('desadv');
    expect(cbvTerm('https://ref.gs1.org/cbv/Disp-in_transit', 'disposition')).toBe('in_transit');
    expect(cbvTerm('https://ref.gs1.org/cbv/BizStep-departing', 'disposition')).toBeUndefined();
    expect(cbvTerm('urn:example:bizstep:departing', 'bizStep')).toBeUndefined();
  });

  it('references: the types the organization names (any form), the number of a CBV business transaction URN', () => {
    const bts = [
      { type: 'https://ref.gs1.org/cbv/BTT-bol', bizTransaction: 'urn:epcglobal:cbv:bt:5790000000005:BS%2F2031%2F1' },
      { type: 'po', bizTransaction: 'urn:epcglobal:cbv:bt:5790000000005:PO-1' },
      { bizTransaction: 'urn:epcglobal:cbv:bt:5790000000005:UNTYPED' },
    ];
    expect(mapped(document(event({ bizTransactionList: bts })), carrier({ referenceTypes: ['urn:epcglobal:cbv:btt:bol'] })).milestones[0].references).toEqual([
      { type: 'bol', value: 'urn:epcglobal:cbv:bt:5790000000005:BS%2F2031%2F1' },
      { type: 'bol', value: 'BS/2031/1' },
    ]);
  });
});

describe('places and other organizations', () => {
  const shipper: ServedOrganization = { organizationId: 'org-shipper', clientId: 'x', clientSecret: 'y', epcis: { glns: ['5790000000005'] }, places: { '9:5790000000012': 'SEGOT' } };

  it('a read point, else the business location, by GLN in the places; the position is left out otherwise', () => {
    const places = carrier({}, { '9:4012345000221': 'ATVIE', '9:4012345000009': 'ATLNZ' });
    expect(mapped(document(event({ readPoint: { id: 'urn:epc:id:sgln:4012345.00022.17' } })), places).milestones[0].unLocode).toBe('ATVIE');
    expect(mapped(document(event({ readPoint: { id: 'geo:47.5,11.1' }, bizLocation: { id: 'urn:epc:id:sgln:4012345.00000.0' } })), places).milestones[0].unLocode).toBe('ATLNZ');
    const unknown = mapped(document(event({ readPoint: { id: 'urn:epc:id:sgln:4012345.00099.0' } })), places);
    expect(unknown.milestones[0].unLocode).toBeUndefined();
    expect(unknown.events[0].notes).toEqual(["readPoint GLN 4012345000993 is not one of the organization's places: left out"]);
    expect(mapped(document(event({ readPoint: { id: 'urn:epc:id:sgln:4012345.00022.17' } })), carrier({}, { '9:4012345000221': 'not a locode' })).milestones[0].unLocode).toBeUndefined();
  });

  it("quarantines a document naming another served organization's GLN, wherever", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ readPoint: { id: 'urn:epc:id:sgln:5790000.00001.0' } }, '/epcisBody/eventList/0/readPoint/id'],
      [{ bizLocation: { id: 'https://id.gs1.org/414/5790000000012' } }, '/epcisBody/eventList/0/bizLocation/id'],
      [{ sourceList: [{ type: 'owning_party', source: 'urn:epc:id:pgln:4012345.00000' }, { type: 'possessing_party', source: 'urn:epc:id:pgln:5790000.00000' }] }, '/epcisBody/eventList/0/sourceList/1/source'],
      [{ destinationList: [{ type: 'location', destination: 'https://id.gs1.org/414/5790000000012/254/7' }] }, '/epcisBody/eventList/0/destinationList/0/destination'],
    ];
    for (const [fields, position] of cases) expect(reasons(map(document(event(fields)), carrier(), [shipper]))).toEqual([`NAMES_OTHER_ORGANIZATION ${position}`]);
    // Even on an event that reports no milestone, and as the document's sender.
    expect(reasons(map(document(event(), event({ bizStep: 'inspecting', readPoint: { id: 'urn:epc:id:sgln:5790000.00001.0' } })), carrier(), [shipper]))).toEqual(['NAMES_OTHER_ORGANIZATION /epcisBody/eventList/1/readPoint/id']);
    const sent = JSON.parse(document(event()));
    sent.sender = '5790000000005';
    expect(reasons(map(JSON.stringify(sent), carrier(), [shipper]))).toEqual(['NAMES_OTHER_ORGANIZATION /sender']);
  });

  it('a GLN the organization lists too (a shipper dock it loads at) is shared, not refused', () => {
    const loadsThere = carrier({ glns: ['5790000000005'] }, { '9:5790000000012': 'SEGOT' });
    const r = mapped(document(event({ readPoint: { id: 'urn:epc:id:sgln:5790000.00001.0' }, sourceList: [{ type: 'possessing_party', source: 'urn:epc:id:pgln:5790000.00000' }] })), loadsThere, [shipper]);
    expect(summary(r)).toEqual(['inTransit 2031-06-01T08:40:00Z SEGOT']);
  });
});

describe('keys and repeats', () => {
  it("the eventID when it fits the exchange's key, else its digest", () => {
    expect(deduplicationKeyOf(event({ eventID: 'urn:uuid:0b0e7b52-3a6e-4f43-9d53-6f1d2c1a0001' }))).toBe('urn:uuid:0b0e7b52-3a6e-4f43-9d53-6f1d2c1a0001');
    expect(deduplicationKeyOf(event({ eventID: `urn:example:${'x'.repeat(200)}` }))).toMatch(/^epcis-id-sha256:[0-9a-f]{64}$/);
    expect(deduplicationKeyOf(event({ eventID: 'urn:example:Größe' }))).toMatch(/^epcis-id-sha256:[0-9a-f]{64}$/);
  });

  it('without an eventID: a digest of the canonical event, the same however written and whenever recorded', () => {
    const a = event();
    const b = Object.fromEntries(Object.entries(event({ recordTime: '2031-06-05T00:00:00Z' })).reverse());
    expect(canonical({ b: [1, { y: 'ä', x: null }], a: 1.5 })).toBe('{"a":1.5,"b":[1,{"x":null,"y":"ä"}]}');
    expect(deduplicationKeyOf(b)).toBe(deduplicationKeyOf(a));
    expect(deduplicationKeyOf(event({ bizStep: 'arriving' }))).not.toBe(deduplicationKeyOf(a));
  });

  it('an event repeated in one document is acted on once; the same eventID reporting something else is held', () => {
    const id = { eventID: 'urn:uuid:0b0e7b52-3a6e-4f43-9d53-6f1d2c1a0009' };
    const twice = mapped(document(event(id), event(id)));
    expect(twice.milestones).toHaveLength(1);
    expect(twice.events[1].dropped).toBe('a repeat of /epcisBody/eventList/0');
    expect(reasons(map(document(event(id), event({ ...id, bizStep: 'arriving' }))))).toEqual(['DUPLICATE_EVENT /epcisBody/eventList/1/eventID']);
  });
});

describe('hostile input', () => {
  // (A hang is bounded by jest's timeout; how fast is measured in bench/, never asserted here.)
  const quick = (content: string) => map(content);

  it('nesting 100 000 deep is refused before parsing, with where', () => {
    expect(reasons(quick('['.repeat(100_000) + ']'.repeat(100_000)))).toEqual([`TOO_DEEP character ${LIMITS.depth + 1} (line 1, column ${LIMITS.depth + 1})`]);
    expect(reasons(quick(`{"a":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_001)}`))[0]).toMatch(/^TOO_DEEP/);
    // Brackets inside strings are text, not nesting.
    expect(quick(document(event({ eventID: `urn:x:${'%5B'.repeat(10)}`, 'example:note': '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{"\\"' }))).kind).toBe('mapped');
  });

  it('huge arrays and too many events are refused; ten thousand distinct EPCs are read quickly', () => {
    expect(reasons(quick(document(event({ epcList: Array.from({ length: 20_000 }, (_, i) => `urn:epc:id:sscc:4012345.${String(i).padStart(10, '0')}`) }))))).toEqual(['TOO_MANY_ITEMS /epcisBody/eventList/0/epcList']);
    const many = mapped(document(event({ epcList: Array.from({ length: 10_000 }, (_, i) => `urn:epc:id:sscc:4012345.${String(i).padStart(10, '0')}`) })));
    expect(many.milestones).toHaveLength(1);
    expect(reasons(quick(document(...Array.from({ length: LIMITS.events + 1 }, () => event()))))).toEqual([`TOO_MANY_EVENTS /epcisBody/eventList`]);
    expect(reasons(quick(JSON.stringify({ '@context': Array(51).fill({}), type: 'EPCISDocument' })))).toEqual(['TOO_MANY_ITEMS /@context']);
    expect(reasons(quick(' '.repeat(LIMITS.characters + 1)))[0]).toBe('TOO_LARGE');
    // Thousands of errors: every one searched in a document of up to SEARCHED_VALUES values, the first one in a larger one.
    const wrong = (n: number) => quick(document(event({ bizTransactionList: Array.from({ length: n }, (_, i) => ({ type: 'urn:epcglobal:cbv:btt:bol', bizTransaction: `urn:x:${i}` })) }))) as EpcisQuarantined;
    const searched = wrong(Math.floor(SEARCHED_VALUES / 3) - 20);
    expect(searched.reasons.map((r) => r.position)).toEqual(Array.from({ length: 10 }, (_, i) => `/epcisBody/eventList/0/bizTransactionList/${i}/type`));
    expect(searched.reasons[9].message).toContain(`and ${Math.floor(SEARCHED_VALUES / 3) - 30} more places`);
    const first = wrong(10_000);
    expect(first.reasons).toEqual([expect.objectContaining({ code: 'SCHEMA_INVALID', position: '/epcisBody/eventList/0/bizTransactionList/0/type', message: expect.stringContaining('not searched for all') })]);
    // Errors that ajv would collect at every level, 10 000 values deep in events.
    expect(reasons(quick(document(...Array.from({ length: 600 }, () => event({ eventTime: 'soon', bizStep: 'urn:epcglobal:cbv:bizstep:x', action: 'LOOK', disposition: 7 }))))).length).toBe(10);
  });

  it('keys that reach a prototype are refused, and pollute nothing', () => {
    const polluted = document(event()).replace('"bizStep"', '"__proto__":{"polluted":true},"bizStep"');
    expect(reasons(quick(polluted))).toEqual(['UNSAFE_KEY /epcisBody/eventList/0/__proto__']);
    expect(reasons(quick('{"constructor":{"prototype":{"polluted":true}},"type":"EPCISDocument"}'))).toEqual(['UNSAFE_KEY /constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('what is not JSON, or no EPCIS document, is quarantined with where', () => {
    expect(reasons(quick('{"type": "EPCISDocument",}'))).toEqual(['NOT_JSON character 26 (line 1, column 26)']);
    expect(reasons(quick('UNB+UNOC:3+5790000000005'))[0]).toMatch(/^NOT_JSON/);
    expect(reasons(quick(''))[0]).toMatch(/^NOT_JSON/);
    expect(reasons(quick(document(event()).slice(0, 300)))[0]).toMatch(/^NOT_JSON/);
    expect(reasons(quick('\u0000\u0001\u0002'))[0]).toMatch(/^NOT_JSON/);
    for (const value of ['[]', '42', '"EPCISDocument"', 'null']) expect(reasons(quick(value))).toEqual(['UNSUPPORTED_DOCUMENT']);
    // A single event is valid EPCIS JSON, but no document.
    expect(reasons(quick(JSON.stringify({ '@context': [EPCIS_CONTEXT], ...event() })))).toEqual(['UNSUPPORTED_DOCUMENT /type']);
    // Another type is read by GS1's schema as an extension event, at the document's root (pointer "").
    expect((quick(JSON.stringify({ type: 'https://example.com/Document' })) as EpcisQuarantined).reasons).toEqual([expect.objectContaining({ code: 'SCHEMA_INVALID', position: '', message: expect.stringContaining("required property 'eventTime'") })]);
  });

  it('decodes UTF-8 without its byte order mark', () => {
    const text = document(event({ 'example:note': 'Größe' }));
    expect(epcis.decode(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]))).toBe(text);
  });

  it('a fuzz of mutated real documents: always mapped or quarantined, never a throw, quickly', () => {
    let seed = 28;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const JUNK: unknown[] = [null, 0, -1, 1e308, '', 'x', true, {}, [], [[[[]]]], JSON.parse('{"__proto__":{"polluted":1}}'), 'urn:epcglobal:cbv:bizstep:departing', 'departing', 'arriving', 'void_shipping', 'https://ref.gs1.org/cbv/BizStep-receiving', 'in_transit', '2031-13-45T99:99:99Z', '1969-12-31T23:59:59Z', '2016-12-31T23:59:60Z', '2031-06-01T10:40:00+14:00', 'https://id.gs1.org/414/5790000000012', 'urn:epc:id:sgln:5790000.00001.0', 'urn:epc:id:ginc:4012345.333', 'urn:epcglobal:cbv:bt:5790000000005:BS-2031-0001', 'a'.repeat(300), '\u0000', '💥', { type: 'bol', bizTransaction: BOL }];
    const bases = ['gs1_Example_9.6.1-ObjectEvent.jsonld', 'gs1_EPCISQueryDocument.jsonld', 'gs1_transaction_event_all_possible_fields.jsonld', 'ralphtro_epcisDocWithVariousEventTypes.jsonld', 'ralphtro_epcisDocWithShippingAndTransportingEvent.jsonld', 'gs1_PersistentDisposition-example.jsonld'].map((n) => fixture(n));
    const containers = (root: unknown) => {
      const found: Array<Record<string, unknown> | unknown[]> = [];
      const stack = [root];
      while (stack.length) {
        const v = stack.pop();
        if (v && typeof v === 'object') {
          found.push(v as Record<string, unknown>);
          stack.push(...Object.values(v));
        }
      }
      return found;
    };
    const others = [{ organizationId: 'org-shipper', clientId: 'x', clientSecret: 'y', places: { '9:5790000000012': 'SEGOT' } }];
    const org = carrier({ referenceTypes: ['bol', 'desadv', 'po'] }, { '9:0614141073467': 'USCHI' });
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < 400; i++) {
      let text = pick(bases);
      if (random() < 0.2) {
        // Damage the text itself: cut it, or put a character somewhere.
        const at = Math.floor(random() * text.length);
        text = random() < 0.5 ? text.slice(0, at) : text.slice(0, at) + pick(['{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', 'é']) + text.slice(at);
      } else {
        const doc = JSON.parse(text);
        for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
          const target = pick(containers(doc));
          const keys = Object.keys(target);
          const roll = random();
          if (Array.isArray(target)) {
            if (roll < 0.4 && target.length) target.push(structuredClone(pick(target)));
            else if (roll < 0.7 && target.length) target.splice(Math.floor(random() * target.length), 1);
            else target[Math.floor(random() * (target.length + 1))] = structuredClone(pick(JUNK));
          } else if (roll < 0.3 && keys.length) delete target[pick(keys)];
          else if (roll < 0.8 && keys.length) target[pick(keys)] = structuredClone(pick(JUNK));
          else Object.defineProperty(target, pick(['bizStep', 'disposition', 'eventTime', 'readPoint', 'bizTransactionList', '__proto__', 'example:x']), { value: structuredClone(pick(JUNK)), enumerable: true, writable: true, configurable: true });
        }
        text = JSON.stringify(doc);
      }
      const r = map(text, org, others);
      expect(['mapped', 'quarantined']).toContain(r.kind);
      if (r.kind === 'quarantined') {
        expect(r.reasons.length).toBeGreaterThan(0);
        for (const reason of r.reasons) expect(typeof reason.code === 'string' && typeof reason.message === 'string').toBe(true);
        outcomes[r.reasons[0].code] = (outcomes[r.reasons[0].code] ?? 0) + 1;
      } else {
        outcomes.mapped = (outcomes.mapped ?? 0) + 1;
        for (const m of r.milestones) {
          expect(MILESTONES).toContain(m.milestone);
          expect(m.occurredAt).toMatch(/^(19[7-9][0-9]|[2-9][0-9]{3})-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?Z$/);
          expect(m.deduplicationKey).toMatch(/^[\x21-\x7e]{1,200}$/);
          expect(m.references.length).toBeGreaterThan(0);
        }
      }
      JSON.parse(epcis.acknowledge(entry(text, r), org, new Date())[0].content);
    }
    expect(outcomes.mapped).toBeGreaterThan(20);
    expect(outcomes.SCHEMA_INVALID).toBeGreaterThan(20);
    expect(outcomes.NOT_JSON).toBeGreaterThan(20);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('the result a sender reads', () => {
  const now = new Date('2031-06-03T07:00:05Z');

  it('per event: its milestone, and the execution reference and update it became, or the refusal', () => {
    const r = mapped(fixture('gs1_Example_9.6.1-ObjectEvent.jsonld'), carrier({ referenceTypes: ['po', 'desadv'] }));
    const submitted = {
      kind: 'created',
      resources: [],
      mappings: [],
      milestones: [
        { executionReferenceId: '3f1a2b3c-0000-4000-8000-000000000001', updateId: '9a8b7c6d-0000-4000-8000-000000000002' },
        { executionReferenceId: '3f1a2b3c-0000-4000-8000-000000000001', problem: { status: 422, code: 'REFERENCE_COMPLETED', detail: 'the execution reference is completed' } },
      ],
    };
    const [draft] = epcis.acknowledge(entry('', { ...r, submitted }), carrier(), now);
    expect(draft.kind).toBe('epcis-result');
    expect(draft.name).toBe('events.result.json');
    const result = JSON.parse(draft.content);
    expect(result).toEqual(
      expect.objectContaining({
        profile: 'EPCIS 2.0 JSON 1',
        status: 'partly-refused',
        writtenAt: '2031-06-03T07:00:05.000Z',
        message: { id: 'mb-epcis-1', name: 'events.jsonld', receivedAt: '2031-06-03T07:00:00.000Z' },
        events: [
          expect.objectContaining({ pointer: '/epcisBody/eventList/0', milestone: 'pickedUp', executionReferenceId: '3f1a2b3c-0000-4000-8000-000000000001', updateId: '9a8b7c6d-0000-4000-8000-000000000002' }),
          expect.objectContaining({ pointer: '/epcisBody/eventList/1', milestone: 'delivered', problem: expect.objectContaining({ code: 'REFERENCE_COMPLETED' }) }),
        ],
      }),
    );
    expect(result.events[0].index).toBeUndefined();
  });

  it('a quarantined document: the reasons with their pointers', () => {
    const r = map(fixture('gs1_Example_9.6.2-ObjectEvent.jsonld'));
    const result = JSON.parse(epcis.acknowledge(entry('', r), carrier(), now)[0].content);
    expect(result.status).toBe('quarantined');
    expect(result.reasons).toEqual([expect.objectContaining({ code: 'REFERENCE_MISSING', position: '/epcisBody/eventList/0' })]);
    // Held by the gateway after mapping (no movement known by its references): the events as mapped, and why.
    const held = { ...mapped(document(event())), kind: 'quarantined', reasons: [{ code: 'UNKNOWN_REFERENCE', message: 'no movement', position: '/epcisBody/eventList/0' }] };
    const heldResult = JSON.parse(epcis.acknowledge(entry('', held), carrier(), now)[0].content);
    expect(heldResult).toEqual(expect.objectContaining({ status: 'quarantined', reasons: held.reasons, events: [expect.objectContaining({ milestone: 'inTransit' })] }));
    expect(JSON.parse(epcis.acknowledge({ ...entry(''), name: null }, carrier(), now)[0].content).status).toBe('quarantined');
  });

  it('submit creates nothing: the gateway records the milestones', async () => {
    await expect(epcis.submit(mapped(document(event())), undefined as never, () => 'k')).resolves.toEqual({ kind: 'created', resources: [], mappings: [] });
  });
});

describe('milestones told to a shipper', () => {
  const shipper: ServedOrganization = { organizationId: 'org-baltic-shippers', clientId: 'x', clientSecret: 'y', epcis: { glns: ['5790000000005'] }, places: { '9:5790000000012': 'SEGOT', '9:5790000000029': 'DEHAM', '9:5790000000036': 'DEHAM' } };
  const notice = (milestone: Milestone, extra: Partial<MilestoneNotice> = {}): MilestoneNotice => ({
    executionReferenceId: '3f1a2b3c-0000-4000-8000-000000000001',
    updateId: '9A8B7C6D-0000-4000-8000-000000000002',
    milestone,
    occurredAt: '2031-06-01T08:40:00Z',
    recordedAt: '2031-06-01T08:41:00Z',
    consignment: {
      documentNumber: 'BS-2031-0001',
      references: [
        { system: 'edifact:baltic-erp', type: 'BGM+610', value: 'BS-2031-0001' },
        { system: 'edifact:baltic-erp', type: 'RFF+CU', value: 'PO-88121' },
        { system: 'edifact:baltic-erp', type: 'RFF+BM', value: 'CMR 4711/31' },
      ],
    },
    ...extra,
  });
  const now = new Date('2031-06-01T08:41:30Z');

  it.each(MILESTONES)('%s: a capture document valid against GS1 schema', (milestone) => {
    const draft = epcis.notify!(notice(milestone, { unLocode: 'SEGOT', reason: milestone === 'delayed' ? 'ferry cancelled' : undefined }), shipper, now);
    expect(draft.kind).toBe('epcis');
    expect(draft.name).toBe('9A8B7C6D-0000-4000-8000-000000000002.epcis.json');
    const doc = JSON.parse(draft.content);
    expect(schemaReasons(doc)).toEqual([]);
    const [e] = doc.epcisBody.eventList;
    expect(e).toEqual(
      expect.objectContaining({
        type: 'ObjectEvent',
        eventID: 'urn:uuid:9a8b7c6d-0000-4000-8000-000000000002',
        eventTime: '2031-06-01T08:40:00Z',
        eventTimeZoneOffset: '+00:00',
        epcList: [],
        action: 'OBSERVE',
        bizStep: MILESTONE_BIZ_STEPS[milestone].bizStep,
        readPoint: { id: 'https://id.gs1.org/414/5790000000012' },
        'pcx:milestone': milestone,
        'pcx:unLocode': 'SEGOT',
      }),
    );
    // Read back as the same milestone, when and where (a carrier that reads bills of lading, with the shipper's places).
    const back = mapped(draft.content, carrier({ referenceTypes: ['bol'] }, shipper.places as Record<string, string>));
    expect(back.milestones[0]).toEqual(expect.objectContaining({ milestone, occurredAt: '2031-06-01T08:40:00Z', unLocode: 'SEGOT', deduplicationKey: 'urn:uuid:9a8b7c6d-0000-4000-8000-000000000002' }));
    if (milestone === 'delayed') expect(back.milestones[0].reason).toBe('ferry cancelled');
  });

  it("names the shipper's consignment: its document number first, as a bill of lading, by its GLN", () => {
    const doc = milestoneDocument(notice('inTransit'), shipper, now) as any;
    expect(doc['@context']).toEqual([EPCIS_CONTEXT, { pcx: 'https://schemas.pcx.example/v0/epcis/' }]);
    expect(doc.creationDate).toBe('2031-06-01T08:41:30.000Z');
    const [e] = doc.epcisBody.eventList;
    expect(e.disposition).toBe('in_transit');
    expect(e.bizTransactionList).toEqual([
      { type: 'bol', bizTransaction: 'urn:epcglobal:cbv:bt:5790000000005:BS-2031-0001' },
      { bizTransaction: 'https://schemas.pcx.example/v0/epcis/bt/edifact%3Abaltic-erp/RFF%2BCU/PO-88121' },
      { type: 'bol', bizTransaction: 'https://schemas.pcx.example/v0/epcis/bt/edifact%3Abaltic-erp/RFF%2BBM/CMR%204711%2F31' },
    ]);
  });

  it('a shipper without a GLN, a place known by two GLNs or none: still valid, the readPoint left out', () => {
    const bare: ServedOrganization = { organizationId: 'org-b', clientId: 'x', clientSecret: 'y' };
    for (const [org, unLocode] of [
      [bare, 'SEGOT'],
      [shipper, 'DEHAM'],
      [shipper, undefined],
    ] as const) {
      const doc = milestoneDocument(notice('delivered', { unLocode, updateId: 'not-a-uuid' }), org, now) as any;
      expect(schemaReasons(doc)).toEqual([]);
      expect(doc.epcisBody.eventList[0].readPoint).toBeUndefined();
      expect(doc.epcisBody.eventList[0].eventID).toBe('https://schemas.pcx.example/v0/epcis/update/not-a-uuid');
    }
    const doc = milestoneDocument(notice('delivered'), bare, now) as any;
    expect(doc.epcisBody.eventList[0].bizTransactionList[0]).toEqual({ type: 'bol', bizTransaction: 'https://schemas.pcx.example/v0/epcis/bt/edifact%3Abaltic-erp/BGM%2B610/BS-2031-0001' });
  });
});
