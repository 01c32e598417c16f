// Execution handover fixtures: an active transport commitment between two fresh organizations (and
// an outsider), and an execution package that fits it.
import { activeRelationship } from './helpers';
import { connectors, get } from './matching-fixtures';
import { iso } from './listing-fixtures';
import { DAY, HOUR, directTerms, tenderCommand } from './tenders.fixtures';

/** An issuer, an executor, an outsider and an active commitment between the first two (a direct tender, INITIATOR_ONLY). */
export async function commitment(policy: Record<string, unknown> = {}) {
  const [issuer, executor, outsider] = await connectors(3);
  await activeRelationship(issuer, executor, { decisionPolicy: { mode: 'INITIATOR_ONLY' } });
  const created = (await issuer.post('/transport-tenders', { executingOrganizationId: executor.id, movementScope: 'fullTransport', expiresAt: iso(DAY), terms: directTerms(), ...policy })).body;
  const issued = (await tenderCommand(issuer, created, 'issue')).body;
  const accepted = (await tenderCommand(executor, issued, 'decisions', { decision: 'accept', revision: 1 })).body;
  if (accepted.status !== 'accepted') throw new Error(`tender not accepted: ${JSON.stringify(accepted)}`);
  return { issuer, executor, outsider, tender: accepted, commitment: await get(issuer, `/transport-commitments/${accepted.commitmentId}`) };
}

/** The execution package of a commitment: its agreed stops at exact places, an exact pickup slot. */
export function handoverBody(c: { id: string; acceptedRevision: { terms: { stops: any[] } } }, street = 'Kaistraße 7, Tor 3', extra: Record<string, unknown> = {}) {
  const stops = c.acceptedRevision.terms.stops.map((s: any) => ({
    sequence: s.sequence,
    role: s.role,
    location: {
      name: s.role === 'pickup' ? 'Hafen DC' : 'Maasvlakte DC',
      address: s.role === 'pickup' ? { lines: [street], postalCode: '20457', city: 'Hamburg', countryCode: 'DE' } : { lines: ['Europaweg 875'], postalCode: '3199 LC', city: 'Rotterdam', countryCode: 'NL' },
    },
    timeWindow: s.role === 'pickup' ? { start: new Date(Date.parse(s.timeWindow.start) + HOUR).toISOString(), end: new Date(Date.parse(s.timeWindow.start) + 2 * HOUR).toISOString() } : s.timeWindow,
    contacts: [{ role: s.role, name: 'Gate desk', phone: '+4940123456' }],
  }));
  return {
    commitmentId: c.id,
    package: {
      stops,
      cargo: { description: 'six pallets of shoes', weight: { value: 5, unitCode: 'TNE' }, palletSpaces: 6, packages: [{ count: 6, packaging: 'pallets' }] },
      equipment: { bodyTypes: ['curtainsider'] },
      references: [{ type: 'loadingReference', value: 'L-4711' }],
      instructions: 'Report at gate 3; high-visibility vest required.',
      documents: [{ type: 'cmr', uri: 'https://docs.issuer.example/cmr/4711', mediaType: 'application/pdf' }],
      contacts: [{ role: 'dispatch', name: 'Dispatch', email: 'dispatch@issuer.example' }],
    },
    sourceExternalReferences: [{ system: 'issuer-tms', type: 'shipment', value: 'S-4711' }],
    ...extra,
  };
}

