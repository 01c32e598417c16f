// The planner's work queue (console/work.js): what waits for the organization and what it waits
// for, from either side of the same facts, and "my transports" with each one's step.
// @ts-ignore
import { sortTransports, TRANSPORT_COLUMNS, transportsOf, workQueue } from '../../console/work.js';

const SHIPPER = 'org-baltic';
const CARRIER = 'org-alpine';
const NOW = Date.parse('2026-12-12T12:00:00Z');
const stops = [
  { sequence: 1, role: 'pickup', area: { kind: 'unlocode', code: 'DEHAM' }, timeWindow: { start: '2026-12-12T08:00:00Z', end: '2026-12-12T10:00:00Z' } },
  { sequence: 2, role: 'delivery', area: { kind: 'unlocode', code: 'NLRTM' }, timeWindow: { start: '2026-12-13T08:00:00Z', end: '2026-12-13T14:00:00Z' } },
];
const proposal = (id: string, decidedBy: string[] = []) => ({ id, status: 'open', decisionState: 'PENDING_INITIATOR_ACCEPT', resourceVersion: 1, offerOwnerOrganizationId: CARRIER, requestOwnerOrganizationId: SHIPPER, validUntil: '2026-12-12T18:00:00Z', decisions: decidedBy.map((organizationId) => ({ organizationId })) });
const tender = (revision: number, author: string, decided: string[] = [], status = 'issued') => ({
  id: `t-${revision}`, status, currentRevision: revision, originatingProposalId: 'p-1', issuingOrganizationId: SHIPPER, executingOrganizationId: CARRIER, expiresAt: '2026-12-12T20:00:00Z',
  revisions: Array.from({ length: revision }, (_, i) => ({ number: i + 1, authorOrganizationId: i + 1 === revision ? author : SHIPPER })),
  decisions: decided.map((organizationId) => ({ organizationId, revision })),
});
const commitment = { id: 'c-1', tenderId: 't-2', commitmentVersion: 1, status: 'active', issuingOrganizationId: SHIPPER, executingOrganizationId: CARRIER, capacity: { originatingProposalId: 'p-1' }, acceptedRevision: { terms: { stops, commercialTerms: { amount: 950, currency: 'EUR' } } }, createdAt: '2026-12-11T10:00:00Z' };
const sides = (facts: Record<string, unknown>) => {
  const kinds = (me: string) => {
    const q = workQueue({ me, now: NOW, ...facts });
    return { forYou: q.forYou.map((i: any) => i.kind), forThem: q.forThem.map((i: any) => i.kind) };
  };
  return { shipper: kinds(SHIPPER), carrier: kinds(CARRIER) };
};

test('a proposal waits for whoever has not decided; the other side waits for it', () => {
  expect(sides({ proposals: [proposal('p-1')] })).toEqual({ shipper: { forYou: ['proposal'], forThem: [] }, carrier: { forYou: ['proposal'], forThem: [] } });
  expect(sides({ proposals: [proposal('p-1', [CARRIER])] })).toEqual({ shipper: { forYou: ['proposal'], forThem: [] }, carrier: { forYou: [], forThem: ['proposal'] } });
  // Matched or closed: nothing waits.
  expect(sides({ proposals: [{ ...proposal('p-1', [CARRIER, SHIPPER]), status: 'accepted' }] })).toEqual({ shipper: { forYou: [], forThem: [] }, carrier: { forYou: [], forThem: [] } });
});

test('a tender, a counter and an amendment wait for the side that has not accepted the current revision', () => {
  expect(sides({ tenders: [tender(1, SHIPPER, [])] })).toEqual({ shipper: { forYou: ['tender'], forThem: [] }, carrier: { forYou: ['tender'], forThem: [] } });
  // The carrier countered and (the console sends it with the counter) accepted its own revision.
  expect(sides({ tenders: [tender(2, CARRIER, [CARRIER])] })).toEqual({ shipper: { forYou: ['counter'], forThem: [] }, carrier: { forYou: [], forThem: ['counter'] } });
  expect(sides({ tenders: [tender(3, SHIPPER, [SHIPPER], 'amending')] })).toEqual({ shipper: { forYou: [], forThem: ['amendment'] }, carrier: { forYou: ['amendment'], forThem: [] } });
  expect(sides({ tenders: [tender(2, CARRIER, [CARRIER, SHIPPER], 'accepted')] })).toEqual({ shipper: { forYou: [], forThem: [] }, carrier: { forYou: [], forThem: [] } });
});

test('a commitment waits for its handover, a handover for its acknowledgement, a due pickup and a delivered transport for the carrier', () => {
  expect(sides({ commitments: [commitment] })).toEqual({ shipper: { forYou: ['handover'], forThem: [] }, carrier: { forYou: [], forThem: ['handover'] } });
  const offered = { id: 'h-1', commitmentId: 'c-1', status: 'offered', issuingOrganizationId: SHIPPER, executingOrganizationId: CARRIER };
  expect(sides({ commitments: [commitment], handovers: [offered] })).toEqual({ shipper: { forYou: [], forThem: ['acknowledge'] }, carrier: { forYou: ['acknowledge'], forThem: [] } });
  const imported = { ...offered, status: 'imported' };
  const reference = { id: 'r-1', status: 'linked', acceptedProposalId: 'p-1', commitmentIds: ['c-1'], carrierOrganizationId: CARRIER, shipperOrganizationId: SHIPPER };
  // The pickup window started at 08:00 and it is noon: the pickup is due.
  expect(sides({ commitments: [commitment], handovers: [imported], references: [reference] })).toEqual({ shipper: { forYou: [], forThem: ['pickup'] }, carrier: { forYou: ['pickup'], forThem: [] } });
  const pickedUp = { ...reference, currentMilestone: { milestone: 'pickedUp', occurredAt: '2026-12-12T09:00:00Z' } };
  expect(sides({ commitments: [commitment], handovers: [imported], references: [pickedUp] })).toEqual({ shipper: { forYou: [], forThem: [] }, carrier: { forYou: [], forThem: [] } });
  const delivered = { ...reference, currentMilestone: { milestone: 'delivered', occurredAt: '2026-12-12T11:00:00Z' } };
  expect(sides({ commitments: [commitment], handovers: [imported], references: [delivered] })).toEqual({ shipper: { forYou: [], forThem: ['outcome'] }, carrier: { forYou: ['outcome'], forThem: [] } });
  expect(sides({ commitments: [commitment], handovers: [imported], references: [{ ...delivered, status: 'completed' }] })).toEqual({ shipper: { forYou: [], forThem: [] }, carrier: { forYou: [], forThem: [] } });
});

test('my transports: one line per tender (its newest commitment version), with its step in order', () => {
  const amended = { ...commitment, id: 'c-2', commitmentVersion: 2, acceptedRevision: { terms: { stops, commercialTerms: { amount: 900, currency: 'EUR' } } } };
  const step = (facts: Record<string, unknown>) => transportsOf({ me: SHIPPER, commitments: [{ ...commitment, status: 'superseded' }, amended], ...facts }).map((x: any) => [x.step, x.price?.amount, x.role]);
  expect(step({})).toEqual([['handover', 900, 'shipper']]);
  const h = { id: 'h-1', commitmentId: 'c-2', status: 'offered' };
  expect(step({ handovers: [h] })).toEqual([['handedOver', 900, 'shipper']]);
  expect(step({ handovers: [{ ...h, status: 'imported' }] })).toEqual([['planned', 900, 'shipper']]);
  const reference = { id: 'r-1', status: 'linked', acceptedProposalId: 'p-1', commitmentIds: ['c-2'], currentMilestone: { milestone: 'pickedUp', occurredAt: '2026-12-12T09:00:00Z' } };
  expect(step({ handovers: [{ ...h, status: 'imported' }], references: [reference] })).toEqual([['milestone', 900, 'shipper']]);
  expect(step({ handovers: [{ ...h, status: 'imported' }], references: [{ ...reference, status: 'completed' }] })).toEqual([['completed', 900, 'shipper']]);
  expect(transportsOf({ me: CARRIER, commitments: [{ ...amended, status: 'cancelled' }] }).map((x: any) => [x.step, x.role])).toEqual([['cancelled', 'carrier']]);
});

test('my transports sorted by the column the planner chose, up and down; unsorted as they came (newest first)', () => {
  const line = (key: string, partner: string, pickup: string, amount: number, step: string) => ({ tenderId: key, partner, role: 'carrier', pickup: { timeWindow: { start: pickup } }, price: { amount, currency: 'EUR' }, step });
  const lines = [line('a', 'org-z', '2026-12-14T08:00:00Z', 900, 'completed'), line('b', 'org-y', '2026-12-12T08:00:00Z', 1200, 'handover'), line('c', 'org-x', '2026-12-13T08:00:00Z', 80, 'milestone')];
  const names: Record<string, string> = { 'org-z': 'Alpine', 'org-y': 'Cargo', 'org-x': 'Baltic' };
  const keys = (sort?: { key: string; direction: string }) => sortTransports(lines, sort, (id: string) => names[id]).map((l: { tenderId: string }) => l.tenderId);
  expect(keys()).toEqual(['a', 'b', 'c']);
  expect(keys({ key: 'partner', direction: 'ascending' })).toEqual(['a', 'c', 'b']);
  expect(keys({ key: 'pickup', direction: 'ascending' })).toEqual(['b', 'c', 'a']);
  // Prices as numbers (80 before 900), not as text.
  expect(keys({ key: 'price', direction: 'ascending' })).toEqual(['c', 'a', 'b']);
  expect(keys({ key: 'price', direction: 'descending' })).toEqual(['b', 'a', 'c']);
  // Steps in the order they come, not alphabetically.
  expect(keys({ key: 'step', direction: 'ascending' })).toEqual(['b', 'c', 'a']);
  expect(TRANSPORT_COLUMNS).toEqual(['partner', 'role', 'pickup', 'delivery', 'price', 'step']);
});
