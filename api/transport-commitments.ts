// HTTP API of TransportCommitment: reads for its two organizations, the canonical bytes its digest
// covers, amendments (a new tender revision linked to the commitment) and cancellation. There is
// no create: the broker creates commitments when a tender is accepted.
import { Hono } from 'hono';
import { Problem } from '../core/problems';
import { canonicalBytes, digestInput, sha256Hex } from '../core/digest';
import { loadDocument } from '../activities/projection-document';
import { transportCommitment, type TransportCommitment } from '../domain/transport-commitment';
import { transportTender, type TransportTender } from '../domain/transport-tender';
import { runCommand } from './commands';
import { checkTerms } from './transport-tenders';
import type { AppEnv } from './context';
import { authorize } from './gates';
import { etagOf, observedVersion, readJson } from './http';
import { commandRoute, getRoute, listRoute, participantAccess, viewFor } from './resource-routes';



const resource = transportCommitment;

const access = (scope: string) => participantAccess<TransportCommitment>(resource, scope);

export const transportCommitments = new Hono<AppEnv>();

listRoute(transportCommitments, resource, { links: { tender: 'tenderId' } });

getRoute(transportCommitments, resource, access(resource.scopes.read));

// The exact bytes the digest covers (RFC 8785), as the caller sees them: hash them with SHA-256
// and compare with digest.value (docs/decisions.md, "Commitment digest").
transportCommitments.get('/:id/digest-input', async (c) => {
  const { resource: doc } = await authorize(c, access(resource.scopes.read));
  const bytes = canonicalBytes(digestInput(doc as unknown as Record<string, unknown>));
  return new Response(new Uint8Array(bytes), {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'x-correlation-id': c.get('correlationId'),
      'x-digest-sha256': sha256Hex(bytes),
      etag: etagOf(doc.resourceVersion),
    },
  });
});

// Changed decision-relevant terms, proposed as a new revision of the commitment's tender. The
// commitment keeps its terms until the policy's parties accept that revision (POST
// /transport-tenders/{id}/decisions); then the next commitment version replaces it (rule 15).
transportCommitments.post('/:id/amendments', async (c) => {
  const { resource: doc, principal } = await authorize(c, access(resource.scopes.write));
  const body = c.get('services').schemas.assert<Record<string, any>>(`${resource.kind}#/$defs/AmendmentRequest`, await readJson(c));
  const { observedResourceVersion, ...payload } = body;
  checkTerms(payload.terms, '/terms');
  // If-Match names the commitment version amended; the revision goes to its tender.
  const expected = observedVersion(c, { observedResourceVersion });
  if (expected !== doc.resourceVersion || doc.status !== 'active') {
    throw new Problem(doc.status !== 'active' ? 'INVALID_STATE_TRANSITION' : 'STALE_RESOURCE_VERSION', `the commitment is ${doc.status} at version ${doc.resourceVersion}`, {
      currentState: doc.status,
      currentResourceVersion: doc.resourceVersion,
    });
  }
  const tender = await loadDocument<TransportTender>(c.get('services').db, transportTender, doc.tenderId);
  if (!tender) throw new Problem('SERVICE_UNAVAILABLE', 'the commitment\u2019s tender is not readable yet; retry', {}, { 'retry-after': '1' });
  return runCommand(c, {
    resource: transportTender,
    name: 'amend',
    id: tender.id,
    expectedVersion: tender.resourceVersion,
    payload: { ...payload, commitmentId: doc.id },
    view: viewFor(transportTender, principal),
    current: () => loadDocument(c.get('services').db, transportTender, tender.id),
  });
});

commandRoute<TransportCommitment>(transportCommitments, resource, 'cancel', { body: 'common#/$defs/ReasonedCommand', access: access(resource.scopes.write) });
