// The console's views (console/views.js) in the planner's language: the inbox line, a proposal's
// detail and the way from tender to outcome, built on a document just large enough for them (the
// unit project has no DOM). English as test/console.test.ts reads it in Chromium; German and Polish
// from the same catalogue; a refusal shown the one way (guarded()).
// The console's files are plain browser modules without type declarations (served as they are).
// @ts-ignore
import { settings } from '../../console/format.js';
// @ts-ignore
import { proposalDetail, proposalItem, timelineView } from '../../console/views.js';

/** An element: attributes, children (strings or elements), listeners; its text as the DOM's textContent. */
class FakeNode {
  attributes: Record<string, string> = {};
  children: (string | FakeNode)[] = [];
  listeners: Record<string, (event: unknown) => unknown> = {};
  className = '';
  value = '';
  constructor(readonly tag: string) {}
  setAttribute(name: string, value: string) {
    this.attributes[name] = String(value);
    if (name === 'value') this.value = String(value);
  }
  addEventListener(type: string, fn: (event: unknown) => unknown) {
    this.listeners[type] = fn;
  }
  append(...children: (string | FakeNode)[]) {
    this.children.push(...children);
  }
  get textContent(): string {
    return this.children.map((c) => (typeof c === 'string' ? c : c.textContent)).join('');
  }
  set textContent(text: string) {
    this.children = [String(text)];
  }
  /** This element and every one below it. */
  all(): FakeNode[] {
    return [this, ...this.children.flatMap((c) => (typeof c === 'string' ? [] : c.all()))];
  }
  /** The texts of the elements with this tag (and class, "button.accept"). */
  texts(selector: string): string[] {
    const [tag, cls] = selector.split('.');
    return this.all().filter((n) => n.tag === tag && (!cls || n.className.split(' ').includes(cls))).map((n) => n.textContent);
  }
}

const speak = (locale: string) => Object.assign(settings, { locale, timeZone: 'Europe/Berlin' });
beforeAll(() => Object.assign(globalThis, { Node: FakeNode, document: { createElement: (tag: string) => new FakeNode(tag) } }));
afterAll(() => {
  delete (globalThis as any).Node;
  delete (globalThis as any).document;
  speak('en-GB');
});

const names = { 'org-alpine': 'Alpine Freight GmbH', 'org-baltic': 'Baltic Shippers AB' };
const places = { DEHAM: { name: 'Hamburg' }, NLRTM: { name: 'Rotterdam' } };
const request = {
  id: 'req-1', kind: 'request', ownerOrganizationId: 'org-baltic',
  pickupArea: { kind: 'unlocode', code: 'DEHAM' }, deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
  pickupWindow: { start: '2026-12-12T07:00:00Z', end: '2026-12-12T13:00:00Z' },
  requiredCapacity: { weight: { value: 8, unitCode: 'TNE' }, palletSpaces: 10 },
  restrictedDetails: { deliveryAddress: { lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' } },
};
const proposal = {
  id: 'prop-1', status: 'open', decisionState: 'PENDING_INITIATOR_ACCEPT', capacityOfferId: 'off-1', loadRequestId: 'req-1',
  offerOwnerOrganizationId: 'org-alpine', requestOwnerOrganizationId: 'org-baltic', score: 0.87, validUntil: '2026-12-11T17:00:00Z',
  routeCompatibility: { offerDistanceKm: 482, loadDistanceKm: 471, distanceModel: 'great circle × 1.2' },
  compatibility: [{ criterion: 'bodyType', result: 'fail', reasonCode: 'BODY_TYPE_MISMATCH', figures: { offered: 'box', accepted: ['curtainsider'] } }],
  decisions: [{ organizationId: 'org-alpine', decision: 'accept', decidedAt: '2026-12-10T09:00:00Z', decidedBy: { clientId: 'alpine-tms' } }],
};
const stops = [
  { sequence: 1, role: 'pickup', area: { kind: 'unlocode', code: 'DEHAM' }, timeWindow: { start: '2026-12-12T07:00:00Z', end: '2026-12-12T13:00:00Z' } },
  { sequence: 2, role: 'delivery', area: { kind: 'unlocode', code: 'NLRTM' }, timeWindow: { start: '2026-12-13T07:00:00Z', end: '2026-12-13T13:00:00Z' } },
];
const ctx = { me: 'org-baltic', names, places, listings: new Map([['req-1', request]]) };
const noop = async () => undefined;

/** Bruno's (the shipper's) view of a tender he accepted in revision 2 and its active commitment, the handover to make; a carrier's report form. */
function timeline(onReport: (kind: string, fields: unknown) => Promise<unknown> = noop): FakeNode {
  return timelineView(
    {
      tenders: [{ id: 'ten-1', status: 'issued', currentRevision: 2, issuingOrganizationId: 'org-baltic', executingOrganizationId: 'org-alpine', decisions: [{ organizationId: 'org-baltic', revision: 2 }] }],
      revisions: { 'ten-1': [{ number: 1, authorOrganizationId: 'org-baltic', createdAt: '2026-12-10T11:00:00Z', changes: [{ term: 'commercialTerms', after: { amount: 875, currency: 'EUR' } }, { term: 'stops', after: stops }], outcome: 'superseded' }] },
      commitments: [{ id: 'com-12345678', status: 'active', issuingOrganizationId: 'org-baltic', executingOrganizationId: 'org-alpine', acceptedRevision: { number: 2, terms: { commercialTerms: { amount: 950, currency: 'EUR' }, stops } }, digest: { algorithm: 'sha-256', canonicalization: 'JCS', value: 'abc' } }],
      handovers: [],
      reference: { id: 'ref-1', status: 'pickedUp', carrierOrganizationId: 'org-baltic' },
      updates: [{ occurredAt: '2026-12-12T08:00:00Z', milestone: 'pickedUp' }],
      outcomes: [],
    },
    { ...ctx, request, onTender: noop, onCommitment: noop, onHandover: noop, onReport },
  );
}

test('English as the browser test reads it', () => {
  speak('en-GB');
  expect(proposalItem(proposal, { ...ctx, isNew: true, onSelect: noop }).textContent).toBe('newHamburg → Rotterdam12 Dec, 08:00 – 14:00 CET · 8 t, 10 pallets · with Alpine Freight GmbH · score 87 %your decision');
  const detail: FakeNode = proposalDetail(proposal, { ...ctx, canDecide: true, onDecide: noop });
  expect(detail.texts('h3')).toEqual(['Hamburg → Rotterdam: your load with Alpine Freight GmbH']);
  // Where it stands from the reader's side, never a bare protocol state ("pending initiator accept").
  expect(detail.textContent).toContain('Alpine Freight GmbH accepted; your decision is awaited until 11 Dec 2026, 18:00 CET. Score 87 %.Why it was proposed');
  expect(detail.texts('p.route')).toEqual(["The truck's route is 482 km, the load's 471 km (distances great circle × 1.2)."]);
  expect(detail.texts('ul.decisions')).toEqual(['Alpine Freight GmbH accepted on 10 Dec 2026, 10:00 CET, by its system (alpine-tms)']);
  expect(detail.texts('button')).toEqual(['Accept', 'Reject']);
  const steps = timeline();
  expect(steps.textContent).toContain('Tender issued by Baltic Shippers AB: issued, revision 2Revision 1 by Baltic Shippers AB, 10 Dec 2026, 12:00 CET: issued with commercial terms: €875.00; stops: pickup in Hamburg, 12 Dec, 08:00 – 14:00 CET; delivery in Rotterdam, 13 Dec, 08:00 – 14:00 CET (superseded)');
  expect(steps.texts('p.muted')).toEqual(['You accepted revision 2; waiting for Alpine Freight GmbH.']);
  expect(steps.textContent).toContain('Commitment: active, on revision 2 at €950.00Verify the seal');
  // The digest is behind "verify", not where a planner looks for an order number.
  expect(steps.texts('code.digest')).toEqual(['abc']);
  expect(steps.texts('label')).toEqual(expect.arrayContaining(['Amend the price (€)', 'Reason', 'Reason to cancel', 'Pickup 1: street', 'Delivery 2: street', 'Instructions for the driver', 'Milestone', 'Outcome']));
  expect(steps.texts('button')).toEqual(['Propose the amendment', 'Cancel the commitment', 'Hand over the execution details', 'Report milestone', 'Report outcome']);
  // Finishing needs when it actually happened (the broker requires both times for completed).
  expect(steps.texts('legend')).toContain('When it actually happened');
  expect(steps.textContent).toContain('Transport under way: picked up, 12 Dec 2026, 09:00 CET12 Dec 2026, 09:00 CET: picked up');
});

test('German: the same views from the catalogue', () => {
  speak('de-DE');
  expect(proposalItem(proposal, { ...ctx, isNew: true, onSelect: noop }).textContent).toBe('neuHamburg → Rotterdam12. Dez., 08:00 – 14:00 MEZ · 8 t, 10 Paletten · mit Alpine Freight GmbH · Bewertung 87 %Ihre Entscheidung');
  const detail: FakeNode = proposalDetail(proposal, { ...ctx, canDecide: true, onDecide: noop });
  expect(detail.texts('h3')).toEqual(['Hamburg → Rotterdam: Ihre Ladung mit Alpine Freight GmbH']);
  expect(detail.texts('h4')).toEqual(['Warum es vorgeschlagen wurde', 'Entscheidungen']);
  expect(detail.texts('ul.decisions')).toEqual(['Alpine Freight GmbH hat am 10.12.2026, 10:00 MEZ angenommen, durch ihr System (alpine-tms)']);
  expect(detail.all().find((n) => n.className === 'mark')?.attributes['aria-label']).toBe('nicht erfüllt');
  expect(detail.texts('button')).toEqual(['Annehmen', 'Ablehnen']);
  const steps = timeline();
  expect(steps.textContent).toContain('Fassung 1 von Baltic Shippers AB, 10.12.2026, 12:00 MEZ: ausgeschrieben mit Preis und Konditionen: 875,00\u00a0€; Stopps: Beladung in Hamburg');
  expect(steps.texts('p.muted')).toEqual(['Sie haben Fassung 2 angenommen; wir warten auf Alpine Freight GmbH.']);
  expect(steps.textContent).toContain('Auftrag: aktiv, auf Fassung 2 zu 950,00\u00a0€Siegel prüfen');
  expect(steps.texts('label')).toEqual(expect.arrayContaining(['Preis ändern (€)', 'Grund für die Stornierung', 'Beladung 1: Straße', 'Entladung 2: Straße', 'Hinweise für den Fahrer']));
  expect(steps.texts('button')).toEqual(['Änderung vorschlagen', 'Auftrag stornieren', 'Ausführungsdaten übergeben', 'Status melden', 'Ergebnis melden']);
  expect(steps.attributes['aria-label']).toBe('Ablauf der Ausführung');
});

test('Polish: the same views from the catalogue', () => {
  speak('pl-PL');
  expect(proposalItem(proposal, { ...ctx, isNew: false, onSelect: noop }).textContent).toBe('Hamburg → Rotterdam12 gru, 08:00 – 14:00 CET · 8 t, 10 palet · z Alpine Freight GmbH · ocena 87 %Twoja decyzja');
  const detail: FakeNode = proposalDetail(proposal, { ...ctx, canDecide: false });
  expect(detail.texts('h3')).toEqual(['Hamburg → Rotterdam: Twój ładunek z Alpine Freight GmbH']);
  expect(detail.texts('p.muted')).toEqual(['Twoja rola nie pozwala decydować o propozycjach (podgląd).']);
  const steps = timeline();
  expect(steps.texts('p.muted')).toEqual(['Zaakceptowano wersję 2; czekamy na Alpine Freight GmbH.']);
  expect(steps.texts('label')).toEqual(expect.arrayContaining(['Zmień cenę (€)', 'Powód anulowania', 'Załadunek 1: ulica', 'Rozładunek 2: ulica']));
  expect(steps.texts('h4')).toEqual(['Od przetargu do wyniku', 'Zgłoś jako przewoźnik']);
  expect(steps.textContent).toContain('Transport w drodze: załadowane');
});

test("a refused report is shown by guarded(): the problem's title and detail, else the form's own word", async () => {
  speak('de-DE');
  let refusal: unknown = { problem: { title: 'Forbidden', detail: 'not the carrier' } };
  const steps = timeline(async () => {
    throw refusal;
  });
  const report = steps.all().find((n) => n.className === 'report')!;
  const [milestone] = report.all().filter((n) => n.tag === 'form');
  const problem = report.all().find((n) => n.attributes.role === 'alert')!;
  let prevented = 0;
  await milestone.listeners.submit({ preventDefault: () => prevented++ });
  expect([problem.textContent, prevented]).toEqual(['Forbidden: not the carrier', 1]);
  refusal = new Error('offline');
  await milestone.listeners.submit({ preventDefault: () => prevented++ });
  expect(problem.textContent).toBe('Nicht gemeldet');
  refusal = { sessionEnded: true };
  problem.textContent = '';
  await milestone.listeners.submit({ preventDefault: () => prevented++ });
  expect(problem.textContent).toBe('');
});

test("a proposal whose partner's load is no longer listed (matched) is titled by the truck's lane, not just \"Proposal\"", () => {
  speak('en-GB');
  const offer = { kind: 'offer', id: 'off-1', ownerOrganizationId: 'org-baltic', originArea: { kind: 'unlocode', code: 'DEHAM' }, destinationArea: { kind: 'unlocode', code: 'NLRTM' } };
  const accepted = { ...proposal, status: 'accepted', decisionState: 'ACCEPTED' };
  const item = proposalItem(accepted, { ...ctx, listings: new Map([['off-1', offer]]), isNew: false, onSelect: noop }).textContent;
  expect(item).toMatch(/^Hamburg → Rotterdam/);
  expect(proposalItem(accepted, { ...ctx, listings: new Map(), isNew: false, onSelect: noop }).textContent).toMatch(/^Proposal/);
});
