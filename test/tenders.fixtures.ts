// Tender fixtures: an accepted match and a tender for it, and tender commands with If-Match.
import { Connector } from './helpers';
import { decide, market, waitProposals } from './matching-fixtures';
import { iso } from './listing-fixtures';

export const HOUR = 3600_000;
export const DAY = 24 * HOUR;

/** An accepted match between a carrier and a shipper, and the shipper's tender for it, issued. */
export async function acceptedMatch(options: Parameters<typeof market>[0] = {}) {
  const m = await market(options);
  const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
  const first = (await decide(m.shipper, proposal, 'accept')).body;
  const accepted = (await decide(m.carrier, first, 'accept')).body;
  expect(accepted.decisionState).toBe('COMMITTED');
  return { ...m, proposal: accepted };
}

export const tenderCommand = (c: Connector, tender: { id: string; resourceVersion: number }, path: string, body: unknown = {}) =>
  c.command(`/transport-tenders/${tender.id}/${path}`, tender.resourceVersion, body);

export async function issuedTender(m: Awaited<ReturnType<typeof acceptedMatch>>, body: Record<string, unknown> = {}) {
  const created = await m.shipper.post('/transport-tenders', { executingOrganizationId: m.carrier.id, originatingProposalId: m.proposal.id, movementScope: 'fullTransport', expiresAt: iso(DAY), ...body });
  if (created.status !== 201) throw new Error(`create tender: ${created.status} ${JSON.stringify(created.body)}`);
  const issued = await tenderCommand(m.shipper, created.body, 'issue');
  if (issued.status !== 200) throw new Error(`issue tender: ${issued.status} ${JSON.stringify(issued.body)}`);
  return { draft: created.body, tender: issued.body };
}

export const directTerms = (amount = 700) => ({
  cargo: { goodsCategory: 'retail', weight: { value: 5, unitCode: 'TNE' }, palletSpaces: 6 },
  equipment: { bodyTypes: ['curtainsider'] },
  stops: [
    { sequence: 1, role: 'pickup', area: { kind: 'unlocode', code: 'DEHAM' }, timeWindow: { start: iso(DAY), end: iso(DAY + 4 * HOUR) } },
    { sequence: 2, role: 'delivery', area: { kind: 'unlocode', code: 'NLRTM' }, timeWindow: { start: iso(DAY + 12 * HOUR), end: iso(2 * DAY) } },
  ],
  commercialTerms: { amount, currency: 'EUR' },
});

