// The console's views in the planner's language: the inbox line (console/views.js), a proposal's
// detail and the way from tender to outcome (console/proposal-view.js, components), drawn into
// happy-dom's document (the unit project has no browser). English as test/console.test.ts reads it
// in Chromium; German and Polish from the same catalogue; a refusal shown the one way (useCommand).
import { Window } from 'happy-dom';
// The console's files are plain browser modules without type declarations (served as they are).
// @ts-ignore
import { settings } from '../../console/format.js';
// @ts-ignore
import { ProposalDetail, ProposalItem, Timeline } from '../../console/proposal-view.js';
// @ts-ignore
import { html, render } from '../../console/bundles/ui.js';

const browser = new Window({ url: 'http://localhost/console/' });
/** A component drawn into a fresh element of the document. */
function drawn(vnode: unknown): Element {
  const root = browser.document.createElement('div') as unknown as Element;
  render(vnode, root);
  return root;
}
/** The texts of the elements a selector finds. */
const texts = (root: Element, selector: string) => Array.from(root.querySelectorAll(selector)).map((n) => n.textContent);
/** Preact draws a state change on its next tick. */
const tick = () => new Promise((r) => setTimeout(r, 0));

const speak = (locale: string) => Object.assign(settings, { locale, timeZone: 'Europe/Berlin' });
beforeAll(() => Object.assign(globalThis, { Node: browser.Node, document: browser.document }));
afterAll(async () => {
  delete (globalThis as any).Node;
  delete (globalThis as any).document;
  speak('en-GB');
  await browser.happyDOM.close();
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
function timeline(onReport: (kind: string, fields: unknown) => Promise<unknown> = noop): Element {
  const facts = {
      tenders: [{ id: 'ten-1', status: 'issued', currentRevision: 2, issuingOrganizationId: 'org-baltic', executingOrganizationId: 'org-alpine', decisions: [{ organizationId: 'org-baltic', revision: 2 }] }],
      revisions: { 'ten-1': [{ number: 1, authorOrganizationId: 'org-baltic', createdAt: '2026-12-10T11:00:00Z', changes: [{ term: 'commercialTerms', after: { amount: 875, currency: 'EUR' } }, { term: 'stops', after: stops }], outcome: 'superseded' }] },
      commitments: [{ id: 'com-12345678', status: 'active', issuingOrganizationId: 'org-baltic', executingOrganizationId: 'org-alpine', acceptedRevision: { number: 2, terms: { commercialTerms: { amount: 950, currency: 'EUR' }, stops } }, digest: { algorithm: 'sha-256', canonicalization: 'JCS', value: 'abc' } }],
      handovers: [],
      reference: { id: 'ref-1', status: 'pickedUp', carrierOrganizationId: 'org-baltic' },
      updates: [{ occurredAt: '2026-12-12T08:00:00Z', milestone: 'pickedUp' }],
      outcomes: [],
  };
  return drawn(html`<${Timeline} facts=${facts} ctx=${{ ...ctx, request, onTender: noop, onCommitment: noop, onHandover: noop, onReport }} />`).firstElementChild!;
}
const detailOf = (p: unknown, c: unknown) => drawn(html`<${ProposalDetail} p=${p} ctx=${c} />`);
const itemText = (p: unknown, c: unknown, isNew: boolean) => drawn(html`<${ProposalItem} p=${p} ctx=${c} isNew=${isNew} onSelect=${noop} />`).textContent;

test('English as the browser test reads it', () => {
  speak('en-GB');
  expect(itemText(proposal, { ...ctx }, true)).toBe('newHamburg → Rotterdam12 Dec, 08:00 – 14:00 CET · 8 t, 10 pallets · with Alpine Freight GmbH · score 87 %your decision');
  const detail = detailOf(proposal, { ...ctx, canDecide: true, onDecide: noop });
  expect(texts(detail, 'h3')).toEqual(['Hamburg → Rotterdam: your load with Alpine Freight GmbH']);
  // Where it stands from the reader's side, never a bare protocol state ("pending initiator accept").
  expect(detail.textContent).toContain('Alpine Freight GmbH accepted; your decision is awaited until 11 Dec 2026, 18:00 CET. Score 87 %.Why it was proposed');
  expect(texts(detail, 'p.route')).toEqual(["The truck's route is 482 km, the load's 471 km (distances great circle × 1.2)."]);
  expect(texts(detail, 'ul.decisions')).toEqual(['Alpine Freight GmbH accepted on 10 Dec 2026, 10:00 CET, by its system (alpine-tms)']);
  expect(texts(detail, 'button')).toEqual(['Accept', 'Reject']);
  const steps = timeline();
  expect(steps.textContent).toContain('Tender issued by Baltic Shippers AB: issued, revision 2Revision 1 by Baltic Shippers AB, 10 Dec 2026, 12:00 CET: issued with commercial terms: €875.00; stops: pickup in Hamburg, 12 Dec, 08:00 – 14:00 CET; delivery in Rotterdam, 13 Dec, 08:00 – 14:00 CET (superseded)');
  expect(texts(steps, 'p.muted')).toEqual(['You accepted revision 2; waiting for Alpine Freight GmbH.']);
  expect(steps.textContent).toContain('Commitment: active, on revision 2 at €950.00Verify the seal');
  // The digest is behind "verify", not where a planner looks for an order number.
  expect(texts(steps, 'code.digest')).toEqual(['abc']);
  expect(texts(steps, 'label')).toEqual(expect.arrayContaining(['Amend the price (€)', 'Reason', 'Reason to cancel', 'Pickup 1: street', 'Delivery 2: street', 'Instructions for the driver', 'Milestone', 'Outcome']));
  expect(texts(steps, 'button')).toEqual(['Propose the amendment', 'Cancel the commitment', 'Hand over the execution details', 'Report milestone', 'Report outcome']);
  // Finishing needs when it actually happened (the broker requires both times for completed).
  expect(texts(steps, 'legend')).toContain('When it actually happened');
  expect(steps.textContent).toContain('Transport under way: picked up, 12 Dec 2026, 09:00 CET12 Dec 2026, 09:00 CET: picked up');
});

test('German: the same views from the catalogue', () => {
  speak('de-DE');
  expect(itemText(proposal, { ...ctx }, true)).toBe('neuHamburg → Rotterdam12. Dez., 08:00 – 14:00 MEZ · 8 t, 10 Paletten · mit Alpine Freight GmbH · Bewertung 87 %Ihre Entscheidung');
  const detail = detailOf(proposal, { ...ctx, canDecide: true, onDecide: noop });
  expect(texts(detail, 'h3')).toEqual(['Hamburg → Rotterdam: Ihre Ladung mit Alpine Freight GmbH']);
  expect(texts(detail, 'h4')).toEqual(['Warum es vorgeschlagen wurde', 'Entscheidungen']);
  expect(texts(detail, 'ul.decisions')).toEqual(['Alpine Freight GmbH hat am 10.12.2026, 10:00 MEZ angenommen, durch ihr System (alpine-tms)']);
  expect(detail.querySelector('.mark')?.getAttribute('aria-label')).toBe('nicht erfüllt');
  expect(texts(detail, 'button')).toEqual(['Annehmen', 'Ablehnen']);
  const steps = timeline();
  expect(steps.textContent).toContain('Fassung 1 von Baltic Shippers AB, 10.12.2026, 12:00 MEZ: ausgeschrieben mit Preis und Konditionen: 875,00\u00a0€; Stopps: Beladung in Hamburg');
  expect(texts(steps, 'p.muted')).toEqual(['Sie haben Fassung 2 angenommen; wir warten auf Alpine Freight GmbH.']);
  expect(steps.textContent).toContain('Auftrag: aktiv, auf Fassung 2 zu 950,00\u00a0€Siegel prüfen');
  expect(texts(steps, 'label')).toEqual(expect.arrayContaining(['Preis ändern (€)', 'Grund für die Stornierung', 'Beladung 1: Straße', 'Entladung 2: Straße', 'Hinweise für den Fahrer']));
  expect(texts(steps, 'button')).toEqual(['Änderung vorschlagen', 'Auftrag stornieren', 'Ausführungsdaten übergeben', 'Status melden', 'Ergebnis melden']);
  expect(steps.getAttribute('aria-label')).toBe('Ablauf der Ausführung');
});

test('Polish: the same views from the catalogue', () => {
  speak('pl-PL');
  expect(itemText(proposal, { ...ctx }, false)).toBe('Hamburg → Rotterdam12 gru, 08:00 – 14:00 CET · 8 t, 10 palet · z Alpine Freight GmbH · ocena 87 %Twoja decyzja');
  const detail = detailOf(proposal, { ...ctx, canDecide: false });
  expect(texts(detail, 'h3')).toEqual(['Hamburg → Rotterdam: Twój ładunek z Alpine Freight GmbH']);
  expect(texts(detail, 'p.muted')).toEqual(['Twoja rola nie pozwala decydować o propozycjach (podgląd).']);
  const steps = timeline();
  expect(texts(steps, 'p.muted')).toEqual(['Zaakceptowano wersję 2; czekamy na Alpine Freight GmbH.']);
  expect(texts(steps, 'label')).toEqual(expect.arrayContaining(['Zmień cenę (€)', 'Powód anulowania', 'Załadunek 1: ulica', 'Rozładunek 2: ulica']));
  expect(texts(steps, 'h4')).toEqual(['Od przetargu do wyniku', 'Zgłoś jako przewoźnik']);
  expect(steps.textContent).toContain('Transport w drodze: załadowane');
});

test("a refused report is shown by its form: the problem's title and detail, else the form's own word; nothing for an ended session", async () => {
  speak('de-DE');
  let refusal: unknown = { problem: { title: 'Forbidden', detail: 'not the carrier' } };
  const steps = timeline(async () => {
    throw refusal;
  });
  const report = steps.querySelector('.report')!;
  const milestone = report.querySelector('form')!;
  const problem = () => report.querySelector('[role=alert]')!.textContent;
  const submit = async () => {
    const event = new browser.Event('submit', { cancelable: true });
    milestone.dispatchEvent(event as unknown as Event);
    await tick();
    await tick();
    return event.defaultPrevented;
  };
  expect([await submit(), problem()]).toEqual([true, 'Forbidden: not the carrier']);
  refusal = new Error('offline');
  expect([await submit(), problem()]).toEqual([true, 'Nicht gemeldet']);
  refusal = { sessionEnded: true };
  expect([await submit(), problem()]).toEqual([true, '']);
});

test('a form keeps what the planner typed through a redraw with new facts, and another record\'s form starts empty', async () => {
  speak('en-GB');
  const facts = (commitmentId: string) => ({
    tenders: [], revisions: {}, handovers: [], reference: undefined, updates: [], outcomes: [],
    commitments: [{ id: commitmentId, status: 'active', issuingOrganizationId: 'org-baltic', executingOrganizationId: 'org-alpine', acceptedRevision: { number: 2, terms: { commercialTerms: { amount: 950, currency: 'EUR' }, stops } } }],
  });
  const root = browser.document.createElement('div') as unknown as Element;
  const draw = (id: string) => render(html`<${Timeline} facts=${facts(id)} ctx=${{ ...ctx, request, onCommitment: noop }} />`, root);
  draw('com-1');
  const reason = root.querySelector('#cancel-reason-com-1') as HTMLInputElement;
  reason.value = 'the customer called';
  reason.dispatchEvent(new browser.Event('input', { bubbles: true }) as unknown as Event);
  await tick();
  draw('com-1');
  await tick();
  expect((root.querySelector('#cancel-reason-com-1') as HTMLInputElement).value).toBe('the customer called');
  expect(root.querySelector('#cancel-reason-com-1')).toBe(reason);
  draw('com-2');
  await tick();
  expect((root.querySelector('#cancel-reason-com-2') as HTMLInputElement).value).toBe('');
});

test("a proposal whose partner's load is no longer listed (matched) is titled by the truck's lane, not just \"Proposal\"", () => {
  speak('en-GB');
  const offer = { kind: 'offer', id: 'off-1', ownerOrganizationId: 'org-baltic', originArea: { kind: 'unlocode', code: 'DEHAM' }, destinationArea: { kind: 'unlocode', code: 'NLRTM' } };
  const accepted = { ...proposal, status: 'accepted', decisionState: 'ACCEPTED' };
  const item = itemText(accepted, { ...ctx, listings: new Map([['off-1', offer]]) }, false);
  expect(item).toMatch(/^Hamburg → Rotterdam/);
  expect(itemText(accepted, { ...ctx, listings: new Map() }, false)).toMatch(/^Proposal/);
});
