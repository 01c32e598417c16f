// HTTP API of ExecutionHandover and its acknowledgement: the commitment's issuing organization
// hands over the execution package, the executing organization acknowledges it; both read it and
// nobody else learns that it exists (404). Rules live in domain/execution-handover.ts; this
// router gathers the facts (the commitment, the package digest) and derives the handover's id.
//
// One handover per commitment (rule 14): its id derives from the commitment's (handoverIdOf,
// domain/execution-handover.ts), so every delivery for one commitment addresses one workflow and
// one record, whoever sends it and with whatever Idempotency-Key. A repeated delivery is answered by the machine's
// redelivery rule on the stored handover: the same package is 200 with it, another 409.
//
// Acknowledgements take no If-Match: they are deduplicated by content (an acknowledgement equal to
// one recorded changes nothing and answers 200 with the handover), and a final one cannot be
// replaced (409 ACKNOWLEDGEMENT_CONFLICT), so a version precondition would only turn a repeated
// delivery into a 409. The router sends the version it read and, if another acknowledgement won
// the race, decides again on what that one made (docs/decisions.md, "ExecutionHandover and
// acknowledgement").
import { Hono } from 'hono';
import { operation } from './operations';
import { canonicalBytes, sha256Hex } from '../core/digest';
import { EntityUnavailable } from '../core/entities';
import { Problem } from '../domain/problems';
import { listParticipating, loadDocument } from '../read-model/projection-document';
import {
  executionHandover,
  handoverIdOf,
  redeliver,
  type AcknowledgementPayload,
  type CommitmentFacts,
  type CreatePayload,
  type ExecutionHandover,
  type HandoverContext,
  type PackageDigest,
} from '../domain/execution-handover';
import { RefusalError, type Command } from '../domain/machine';
import { transportCommitment, type TransportCommitment } from '../domain/transport-commitment';
import type { AppEnv, Principal } from './context';

import { etagOf, notFound, type Ctx } from './http';
import { fingerprint, idempotent, type StoredResponse } from './idempotency';
import { getRoute, listRoute, participantAccess } from './resource-routes';
import { viewOf } from '../domain/views';
import { answerErasure } from './erasures';
import { HANDOVER_CONTACTS } from '../read-model/erasures';


const resource = executionHandover;
/** The members of a delivery its digest covers, in the documented order. */
export const PACKAGE_DIGEST_FIELDS = ['commitmentId', 'package', 'sourceExternalReferences'] as const;
/** Acknowledgements that lose a race to another are decided again on its result, this often. */
const ACKNOWLEDGE_ATTEMPTS = 5;

/** SHA-256 over the RFC 8785 bytes of the delivery's members (core/digest.ts): equal deliveries, equal digests. */
export function packageDigestOf(body: CreatePayload): PackageDigest {
  const input: Record<string, unknown> = {};
  for (const field of PACKAGE_DIGEST_FIELDS) input[field] = body[field];
  return { algorithm: 'SHA-256', canonicalization: 'RFC 8785', fields: [...PACKAGE_DIGEST_FIELDS], value: sha256Hex(canonicalBytes(input)) };
}

function commitmentFacts(c: TransportCommitment): CommitmentFacts {
  return {
    id: c.id,
    status: c.status,
    commitmentVersion: c.commitmentVersion,
    tenderId: c.tenderId,
    issuingOrganizationId: c.issuingOrganizationId,
    executingOrganizationId: c.executingOrganizationId,
    movementScope: c.movementScope,
    stops: c.acceptedRevision.terms.stops.map(({ sequence, role, timeWindow }) => ({ sequence, role, timeWindow })),
    ...(c.capacity.originatingProposalId ? { originatingProposalId: c.capacity.originatingProposalId } : {}),
  };
}

/** Gate 4: the handover's two organizations (the issuer owns it); everyone else gets 404. */
const access = (scope: string) => participantAccess<ExecutionHandover>(resource, scope);

const actorOf = (p: Principal) => ({ kind: 'connector' as const, organizationId: p.organizationId, clientId: p.clientId });

/** Runs a machine rule here, on the stored handover or before a workflow starts; a refusal is its problem. */
function decideHere<T>(decide: () => T): T {
  try {
    return decide();
  } catch (err) {
    if (err instanceof RefusalError) throw Problem.fromRefusal(err.refusal);
    throw err;
  }
}

/** An unknown outcome (Temporal unreachable, too slow) is 503: the claim stays for the retry. */
function unavailableOnUnknown(err: unknown): never {
  throw err instanceof EntityUnavailable ? Problem.unavailable() : err;
}

const answer = (status: number, snapshot: ExecutionHandover, principal: Principal): StoredResponse => ({
  status,
  headers: { etag: etagOf(snapshot.resourceVersion), location: `/${resource.collection}/${snapshot.id}` },
  body: viewOf(resource, snapshot, principal),
});

export const executionHandovers = new Hono<AppEnv>();

// The issuing organization hands over the execution package of an active commitment.
operation(executionHandovers, {
  method: 'POST', path: '/', access: { scope: resource.scopes.write }, body: 'ExecutionHandoverCreateRequest', answers: [201, 200],
  idempotent: true,
  returns: 'ExecutionHandover',
  doc: {
    id: 'createExecutionHandover',
    summary: 'Hand over the execution package of a commitment',
    description:
      'The issuing organization of an `active` transport commitment hands the executing ' +
      'organization the bounded execution package: the agreed stops at their exact addresses with ' +
      'time windows inside the agreed ones, cargo facts, equipment constraints, references, ' +
      'instructions, document references and contacts, nothing more; with ' +
      "`sourceExternalReferences`, the issuing system's records. Exact addresses and contacts are " +
      'disclosed here, to the executing organization only. One handover per commitment: its id is ' +
      'UUIDv5 of the commitment id, so a repeated delivery for the same commitment answers 200 with ' +
      'the existing handover when the delivery is equal (same `packageDigest`), and 409 ' +
      '`HANDOVER_CONFLICT` when it differs. A commitment the caller takes no part in is 404; the ' +
      'executing organization gets 403 `ACTOR_NOT_PERMITTED`; a superseded or cancelled commitment ' +
      "is 422 `INVALID_STATE_TRANSITION` (an amendment's new commitment version gets its own " +
      'handover); stops that do not fit the commitment are 400; a first delivery after a pickup ' +
      "stop's window has closed is 422 `WINDOW_PASSED`. Emits " +
      '`pcx.execution-handover.offered.v1` to both organizations. Needs scope `handovers:write`.',
    responses: {
      '200': 'A repeated, equal delivery for the commitment; the existing handover, unchanged.',
      '201': 'The handover, offered.',
      '403':
        '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `ACTOR_NOT_PERMITTED` (the caller executes ' +
        'the commitment; only its issuer hands over).',
      '404': true,
      '409':
        '`HANDOVER_CONFLICT` (the commitment already has a handover with another package; with ' +
        '`handoverId`), `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.',
      '422': true,
    },
  },
}, async ({ c, principal, body: sent }) => {
  const { db, entities } = c.get('services');
  const body = sent as CreatePayload;
  const commitment = await loadDocument<TransportCommitment>(db, transportCommitment, body.commitmentId);
  // Gate 4 for the commitment: one the caller takes no part in does not exist for it.
  if (!commitment || !transportCommitment.participants!(commitment).includes(principal.organizationId)) throw notFound('transport commitment');
  const id = handoverIdOf(commitment.id);
  const context: HandoverContext = { commitment: commitmentFacts(commitment), packageDigest: packageDigestOf(body) };
  const stored = await idempotent(c, fingerprint([resource.kind, 'create', body]), async (commandId) => {
    // The contact persons sealed under the handover's key (core/personal-data.ts); the digest above is the delivery's as sent.
    const payload = c.get('services').personalData.sealFields(resource.kind, id, body);
    const command: Command<CreatePayload, HandoverContext> = { name: 'create', commandId, actor: actorOf(principal), payload, correlationId: c.get('correlationId'), context };
    // A repeated delivery: the machine's redelivery rule on the stored handover.
    const redelivered = async () => {
      // By its id, or by its commitment: handovers made before ids were derived as UUIDv8 have
      // UUIDv5 ids (docs/decisions.md, "Derived ids").
      const existing =
        (await loadDocument<ExecutionHandover>(db, resource, id)) ??
        (await listParticipating<ExecutionHandover>(db, resource, principal.organizationId, { equal: [{ field: 'commitmentId', value: commitment.id }], limit: 1 }))[0];
      return existing ? answer(200, decideHere(() => redeliver(existing, command)), principal) : undefined;
    };
    const existing = await redelivered();
    if (existing) return existing;
    // The create rules before a workflow is started for a create they would refuse.
    decideHere(() => resource.machine.create(command, id, new Date().toISOString()));
    const created = await entities.create<ExecutionHandover>(resource, id, command).catch(unavailableOnUnknown);
    if (created.ok) return answer(201, created.snapshot, principal);
    // Another delivery for the commitment created it first (the workflow refuses a second
    // create, whatever code it gives that), or its workflow has already ended: once a handover
    // is stored, the redelivery rule answers every delivery for its commitment.
    const again = await redelivered();
    if (again) return again;
    throw 'refusal' in created ? Problem.fromRefusal(created.refusal) : Problem.unavailable();
    // The handover's id derives from its commitment, so its command id may derive from the key.
  }, { commandIds: 'derived' });
  return c.json(stored.body as object, stored.status as 200, stored.headers);
});

listRoute(executionHandovers, resource, {
  links: {
    commitment: { field: 'commitmentId', description: 'Only the handover of this transport commitment. One value.' },
  },
  doc: {
    summary: "List the caller's execution handovers",
    description:
      "Handovers of the caller's organization (as issuer or executor); nobody else sees a handover. " +
      'Filters combine with AND: `status` (one or more), `commitment` (a commitment id: its ' +
      'handover, at most one). Ordered by id (handover ids derive from commitment ids, so this is ' +
      'not creation order); repeat with `cursor`. Needs scope `handovers:read`.',
    client: {
      name: 'handovers',
      columns: ['id', 'status', 'commitmentId', 'executingOrganizationId', 'resourceVersion'],
    },
    parameters: ['HandoverStatusQuery'],
  },
});

getRoute(executionHandovers, resource, access(resource.scopes.read), {
  summary: 'Read an execution handover',
  description:
    'The package, the commitment it belongs to (`commitmentId`, `commitmentVersion`), both ' +
    "systems' references (`sourceExternalReferences`; `destinationExternalReference` once " +
    'imported or linked), the package digest and the acknowledgements. Only its two ' +
    'organizations; anyone else gets 404. Needs scope `handovers:read`.',
});

// The executing organization's technical acknowledgement: imported, linked, rejected, quarantined.
operation(executionHandovers, {
  method: 'POST', path: '/:id/acknowledgements', access: access('handovers:acknowledge'), body: 'ExecutionHandoverAcknowledgementRequest', answers: [200],
  idempotent: true,
  returns: 'ExecutionHandover',
  doc: {
    id: 'acknowledgeExecutionHandover',
    summary: 'Acknowledge an execution handover',
    description:
      'The executing organization records whether its system `imported` the handover (created work ' +
      'from it), `linked` it to work it already had, `rejected` it or `quarantined` it for review. ' +
      "`imported` and `linked` need `destinationExternalReference` (the executing system's record, " +
      'then shown on the handover); `rejected` and `quarantined` need a `reason`. `imported`, ' +
      '`linked` and `rejected` are final; `quarantined` may be followed by another acknowledgement. ' +
      'Acknowledgements are deduplicated by content and take no If-Match: one equal to an ' +
      'acknowledgement already recorded changes nothing and answers 200 with the handover; a ' +
      'different one after a final acknowledgement is 409 `ACKNOWLEDGEMENT_CONFLICT` (with ' +
      '`currentState` and the final `acknowledgement`). The acknowledgement is a fact of its own, ' +
      "separate from the commitment's commercial acceptance; it emits " +
      '`pcx.execution-handover.acknowledged.v1` to both organizations. The issuing organization ' +
      'gets 403 `ACTOR_NOT_PERMITTED`. Needs scope `handovers:acknowledge`.',
    responses: {
      '200': 'The handover with the acknowledgement, and its ETag.',
      '403':
        '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `ACTOR_NOT_PERMITTED` (the caller issued ' +
        'the handover; only the executing organization acknowledges).',
      '409':
        '`ACKNOWLEDGEMENT_CONFLICT` (a final acknowledgement is recorded and this one differs), ' +
        '`IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.',
      '422': true,
    },
  },
}, async ({ c, resource: doc, principal, body }) => {
  const payload = body as AcknowledgementPayload;
  const stored = await idempotent(c, fingerprint([resource.kind, 'acknowledge', doc.id, payload]), async (commandId) => {
    const snapshot = await acknowledge(c, doc.id, payload, principal, commandId);
    return { status: 200, headers: { etag: etagOf(snapshot.resourceVersion) }, body: viewOf(resource, snapshot, principal) };
  }, { commandIds: 'derived' });
  return c.json(stored.body as object, stored.status as 200, stored.headers);
});

/**
 * Decides the acknowledgement on the stored handover first (a duplicate, a refusal and a final
 * handover, whose workflow has ended, are answered from it), then sends it with the version read.
 * If another acknowledgement changed the handover in between, it decides again on the new state.
 */
async function acknowledge(c: Ctx, id: string, payload: AcknowledgementPayload, principal: Principal, commandId: string): Promise<ExecutionHandover> {
  const { db, entities } = c.get('services');
  for (let attempt = 0; attempt < ACKNOWLEDGE_ATTEMPTS; attempt++) {
    const current = await loadDocument<ExecutionHandover>(db, resource, id);
    if (!current) throw notFound();
    // A new Update id per attempt: an Update the workflow refused after accepting it is
    // remembered under its id, and a retry under that id would only get the same refusal.
    const command: Command<AcknowledgementPayload> = {
      name: 'acknowledge',
      commandId: attempt === 0 ? commandId : `${commandId}:${attempt}`,
      actor: actorOf(principal),
      expectedVersion: current.resourceVersion,
      payload,
      correlationId: c.get('correlationId'),
    };
    const decided = decideHere(() => resource.machine.commands.acknowledge(current, command, new Date().toISOString()));
    if (decided.state.resourceVersion === current.resourceVersion) return current;
    const sent = await entities.send<ExecutionHandover>(resource, id, command).catch(unavailableOnUnknown);
    if (sent.ok) return sent.snapshot;
    // Another acknowledgement won the race, or made the handover final (its workflow ended):
    // decide again on what it made.
    if (!('refusal' in sent) || sent.refusal.code === 'STALE_RESOURCE_VERSION') continue;
    throw Problem.fromRefusal(sent.refusal);
  }
  throw new Problem('STALE_RESOURCE_VERSION', 'the handover kept changing while the acknowledgement was decided; retry', {}, { 'retry-after': '1' });
}

// Personal data erasure before the retention policy's period (issue 34 part 4; docs/retention.md):
// the contact persons of a final handover go from the read model, its events and Temporal's
// histories; the package digest stays as computed over the package as delivered.
operation(executionHandovers, {
  method: 'POST', path: '/:id/contact-erasures', access: participantAccess<ExecutionHandover>(resource, 'handovers:read', { anyScope: ['handovers:write', 'handovers:acknowledge'], operator: true }),
  body: 'PurgedRecordContactErasureRequest', answers: [200],
  returns: 'ExecutionHandover',
  doc: {
    id: 'eraseExecutionHandoverContacts',
    summary: "Erase the contact persons of an execution handover",
    description:
      "On a person's request, before the retention policy's personal data period ends: the contact persons " +
      "(name, phone, email) of the handover's package and of its stops are removed from the handover, from " +
      "the data of its events and from the broker's workflow histories. The handover records " +
      '`contactsErased` (when, why, the pointers of what went), gets a new resourceVersion and emits ' +
      '`pcx.execution-handover.contacts-erased.v1` to both organizations. Its `packageDigest` stays, ' +
      'computed over the package as delivered: the parties that received it can still prove what they ' +
      'received; the broker no longer can. Only a final handover (imported, linked, rejected): while ' +
      'it is offered or quarantined its executing system still needs them (422 `INVALID_STATE_TRANSITION`). ' +
      'A second erasure changes nothing and answers 200. Either organization of the handover ' +
      '(`handovers:write` or `handovers:acknowledge`) or a protocol operator.',
    responses: {
      '200': 'The handover without its contact persons, and its ETag.',
      '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
      '404': true,
      '422': '`INVALID_STATE_TRANSITION` (the handover is not final yet).',
    },
  },
}, async ({ c, resource: doc, principal, body }) =>
  answerErasure(c, resource, doc.id, principal, (body as { reason: string }).reason, HANDOVER_CONTACTS, (status) =>
    `the handover is ${status}: its contact persons can be erased once it is imported, linked or rejected`)
);
