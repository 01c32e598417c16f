// HTTP API of TransportCommitment: reads for its two organizations, the canonical bytes its digest
// covers, amendments (a new tender revision linked to the commitment) and cancellation. There is
// no create: the broker creates commitments when a tender is accepted.
import { Hono } from 'hono';
import { operation } from './operations';
import { Problem } from '../domain/problems';
import { canonicalBytes, digestInput, sha256Hex } from '../core/digest';
import { loadDocument } from '../read-model/projection-document';
import { transportCommitment, type TransportCommitment } from '../domain/transport-commitment';
import { transportTender, type AmendmentContext, type TransportTender } from '../domain/transport-tender';
import { runCommand } from './commands';
import { checkTerms } from './transport-tenders';
import type { AppEnv } from './context';

import { etagOf, observedVersion } from './http';
import { commandRoute, getRoute, listRoute, participantAccess, viewFor } from './resource-routes';



const resource = transportCommitment;

const access = (scope: string) => participantAccess<TransportCommitment>(resource, scope);

export const transportCommitments = new Hono<AppEnv>();

listRoute(transportCommitments, resource, { links: { tender: 'tenderId' } });

getRoute(transportCommitments, resource, access(resource.scopes.read));

// The exact bytes the digest covers (RFC 8785), as the caller sees them: hash them with SHA-256
// and compare with digest.value (docs/decisions.md, "Commitment digest").
operation(transportCommitments, { method: 'GET', path: '/:id/digest-input', access: access(resource.scopes.read), answers: [200] }, async ({ c, resource: doc }) => {
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
operation(transportCommitments, { method: 'POST', path: '/:id/amendments', access: access(resource.scopes.write), body: 'TransportCommitmentAmendmentRequest', answers: [200] }, async ({ c, resource: doc, principal, body }) => {
  const { observedResourceVersion, ...payload } = body;
  checkTerms(payload.terms, '/terms');
  // If-Match names the commitment version amended; the revision goes to its tender, whose machine
  // decides against the commitment as the read model holds it (AmendmentContext).
  const context: AmendmentContext = { commitment: { id: doc.id, status: doc.status, resourceVersion: doc.resourceVersion }, observedCommitmentVersion: observedVersion(c, { observedResourceVersion }) };
  const tender = await loadDocument<TransportTender>(c.get('services').db, transportTender, doc.tenderId);
  if (!tender) throw new Problem('SERVICE_UNAVAILABLE', 'the commitment\u2019s tender is not readable yet; retry', {}, { 'retry-after': '1' });
  return runCommand(c, {
    resource: transportTender,
    name: 'amend',
    id: tender.id,
    expectedVersion: tender.resourceVersion,
    payload: { ...payload, commitmentId: doc.id },
    context,
    view: viewFor(transportTender, principal),
    current: () => loadDocument(c.get('services').db, transportTender, tender.id),
  });
});

commandRoute(transportCommitments, resource, 'cancel', { body: 'CommonReasonedCommand', access: access(resource.scopes.write) });
