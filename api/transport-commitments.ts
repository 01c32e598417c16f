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

listRoute(transportCommitments, resource, {
  links: {
    tender: { field: 'tenderId', description: 'Only commitments of this transport tender. One value.' },
  },
  doc: {
    summary: "List the caller's transport commitments",
    description:
      "Commitments of the caller's organization (as issuer or executor), every version. Filters: " +
      '`status`, `tender`. Needs scope `commitments:read`.',
    client: {
      name: 'commitments',
      columns: ['id', 'status', 'tenderId', 'commitmentVersion', 'digest.value', 'resourceVersion'],
    },
    parameters: ['CommitmentStatusQuery'],
  },
});

getRoute(transportCommitments, resource, access(resource.scopes.read), {
  summary: 'Read a transport commitment',
  description:
    "The accepted revision, the required decisions, the relationship's policy version, the " +
    'capacity consumed and the digest. For its two organizations only. Needs scope ' +
    '`commitments:read`.',
});

// The exact bytes the digest covers (RFC 8785), as the caller sees them: hash them with SHA-256
// and compare with digest.value (docs/decisions.md, "Commitment digest").
operation(transportCommitments, {
  method: 'GET', path: '/:id/digest-input', access: access(resource.scopes.read), answers: [200],
  doc: {
    id: 'getTransportCommitmentDigestInput',
    summary: 'The canonical bytes the digest covers',
    description:
      "The RFC 8785 (JSON Canonicalization Scheme) serialisation of the commitment's members named " +
      'in `digest.fields`, exactly the bytes SHA-256 was computed over (`X-Digest-SHA256` repeats ' +
      'the hex value). Recompute it from the commitment itself: take those members, canonicalize, ' +
      'hash. Needs scope `commitments:read`.',
    responses: {
      '200': {
        description: 'The canonical bytes (a JSON object in RFC 8785 form).',
        headers: {
          ETag: { $ref: '#/components/headers/ETag' },
          'X-Digest-SHA256': {
            description: 'Lower-case hex SHA-256 of the body; equals digest.value.',
            schema: { type: 'string' },
          },
        },
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
  },
}, async ({ c, resource: doc }) => {
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
operation(transportCommitments, {
  method: 'POST', path: '/:id/amendments', access: access(resource.scopes.write), body: 'TransportCommitmentAmendmentRequest', answers: [200],
  versioned: true,
  idempotent: true,
  returns: 'TransportTender',
  doc: {
    id: 'amendTransportCommitment',
    summary: 'Propose an amendment to a commitment',
    description:
      'Either organization proposes changed decision-relevant terms (the rest carries over) with a ' +
      'reason, on the commitment version named by If-Match (stale: 409). The amendment is a new ' +
      "revision of the commitment's tender linked to the commitment (`amendsCommitmentId`); the " +
      "answer is the tender, now `amending`. The commitment keeps its terms until the policy's " +
      'parties accept that revision (POST /transport-tenders/{id}/decisions); then a new commitment ' +
      'version with a new digest replaces it (`pcx.transport-commitment.amended.v1`) and this one ' +
      'becomes `superseded`, still readable. 422 `AMENDMENT_NOT_ALLOWED` under a tender whose ' +
      'amendment policy is `none`. Needs scope `tenders:decide`.',
  },
}, async ({ c, resource: doc, principal, body }) => {
  const { observedResourceVersion, ...payload } = body;
  checkTerms(payload.terms, '/terms');
  // If-Match names the commitment version amended; the revision goes to its tender, whose machine
  // decides against the commitment as the read model holds it (AmendmentContext).
  const context: AmendmentContext = { commitment: { id: doc.id, status: doc.status, resourceVersion: doc.resourceVersion }, observedCommitmentVersion: observedVersion(c, { observedResourceVersion }, 'observedResourceVersion') };
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

commandRoute(transportCommitments, resource, 'cancel', {
  body: 'CommonReasonedCommand', access: access(resource.scopes.write),
  doc: {
    summary: 'Cancel a commitment',
    description:
      "Either organization, with a reason, under the tender's cancellation policy (`either`, " +
      '`issuerOnly` or `none`, and `noticeHours` before the first stop; otherwise 422 ' +
      "`CANCELLATION_NOT_ALLOWED`): records who and why, releases the offer's capacity and the load " +
      'request (both matched again), closes the tender; `pcx.transport-commitment.cancelled.v1`. A ' +
      'cancelled or superseded commitment accepts nothing further. Needs scope `tenders:decide`.',
  },
});
