// HTTP API of ExecutionReference and of what is recorded through it: the reference (create, link,
// complete, cancel, reads), its milestones (POST /execution-updates, GET .../updates) and its
// outcome chain (POST /execution-outcomes, corrections, reads). Readable by the participating
// organizations (with outcomes:review or outcomes:write) and by authorized operators; nobody else
// learns it exists (404). Rules live in domain/execution-reference.ts.
import { Hono } from 'hono';
import { operation, type BodyName } from './operations';
import { validateArea } from '../core/areas';
import { Problem } from '../domain/problems';
import { listOutcomes, listUpdates, loadOutcome, referenceFacts } from '../read-model/execution-reference';
import { loadDocument } from '../read-model/projection-document';
import {
  executionReference,
  outcomeRecord,
  referenceIdOf,
  type ExecutionOutcome,
  type ExecutionReference,
  type ExecutionUpdate,
} from '../domain/execution-reference';
import type { Envelope } from '../domain/machine';
import { runCommand, type CommandRequest } from './commands';
import type { AppEnv } from './context';
import { authorize, type AccessPolicy } from './gates';
import { etagOf, notFound, querySingle, type Ctx } from './http';
import type { StoredResponse } from './idempotency';
import { commandRoute, getRoute, listRoute, loader, nestedListRoute, participantAccess, viewFor } from './resource-routes';

import { isUuid } from '../domain/ids';

const resource = executionReference;
/** Reading needs one of these: a writer reads what it writes, an auditor reviews read-only. */
const READ_SCOPES = ['outcomes:review', 'outcomes:write'];

/** Reads: the participating organizations, and authorized operators (rule 7). */
const readAccess = participantAccess<ExecutionReference>(resource, '', { anyScope: READ_SCOPES, operator: true });
/** Writes: participants only (an operator reads, it does not report). */
const writeAccess = (scope: string, load: (c: Ctx) => Promise<ExecutionReference | undefined> = loader(resource)): AccessPolicy<ExecutionReference> => ({
  ...participantAccess<ExecutionReference>(resource, scope),
  load,
});

export const executionReferences = new Hono<AppEnv>();

// A participant (or the broker, automatically on acceptance) ties a reference to an accepted
// proposal; there is one per proposal, so its id derives from the proposal's.
operation(executionReferences, {
  method: 'POST', path: '/', access: { scope: resource.scopes.write }, body: 'ExecutionReferenceCreateRequest', answers: [201],
  idempotent: true,
  returns: 'ExecutionReference',
  doc: {
    id: 'createExecutionReference',
    summary: 'Create the execution reference of an accepted proposal',
    description:
      "One reference per accepted proposal (its id derives from the proposal's): the broker creates " +
      'it when the proposal is accepted; a party to the proposal may create it too, naming the ' +
      'proposal and the version it observed (stale: 409) and participatingOrganizationIds that ' +
      'include the carrier and the shipper. A second create is 409 `RESOURCE_EXISTS` naming it. ' +
      'Needs scope `outcomes:write`.',
    responses: {
      '201': 'The reference, in status created.',
      '404': true,
      '422': true,
    },
  },
}, async ({ c, principal, body }) => {
  const { proposalDoc, ...context } = await referenceFacts(c.get('services').db, body.acceptedProposalId);
  // Gate 4 for the proposal: a proposal the caller takes no part in does not exist for it.
  if (!proposalDoc || ![proposalDoc.offerOwnerOrganizationId, proposalDoc.requestOwnerOrganizationId].includes(principal.organizationId)) throw notFound('match proposal');
  return runCommand(c, { resource, name: 'create', id: referenceIdOf(proposalDoc.id), payload: body, context, view: viewFor(resource, principal) });
});

listRoute(executionReferences, resource, {
  links: {
    proposal: { field: 'acceptedProposalId', description: 'Only the reference of this accepted match proposal. One value.' },
  }, anyScope: READ_SCOPES,
  doc: {
    summary: "List the caller's execution references",
    description:
      "References the caller's organization participates in. Filters: `status`, `proposal`. Needs " +
      'scope `outcomes:review` or `outcomes:write`.',
    client: {
      name: 'references',
      columns: [
        'id',
        'status',
        'acceptedProposalId',
        'carrierOrganizationId',
        'shipperOrganizationId',
        'resourceVersion',
      ],
    },
    parameters: ['ReferenceStatusQuery'],
  },
});

getRoute(executionReferences, resource, readAccess, {
  summary: 'Read an execution reference',
  description:
    "The links to the executing systems' records, the commitment and handover, the current " +
    'milestone and the head of the outcome chain. For the participating organizations (with ' +
    '`outcomes:review` or `outcomes:write`) and authorized operators; anyone else gets 404.',
});

// The milestone timeline, in occurrence order (late arrivals take their place).
nestedListRoute(executionReferences, { ...readAccess, anyScope: [...READ_SCOPES, 'execution:update'] }, {
  path: 'updates',
  returns: 'ExecutionReferenceUpdatePage',
  items: (c, doc) => listUpdates(c.get('services').db, doc.id),
  doc: {
    id: 'listExecutionUpdates',
    summary: 'The milestone timeline of a reference',
    description:
      'Every milestone recorded, in occurrence order (one that arrived late takes its place). Needs ' +
      '`outcomes:review`, `outcomes:write` or `execution:update`.',
    responses: { '200': 'The milestones (a single page).' },
  },
});

// The commands a participant sends on a reference: each answers the reference after it.
const command = <N extends BodyName>(name: string, body: N, doc: { summary: string; description: string }) =>
  commandRoute<ExecutionReference, N>(executionReferences, resource, name, {
    body,
    access: writeAccess(resource.scopes.write),
    doc: { ...doc, responses: { '200': 'The reference after the command, with its new ETag.' } },
  });

command('link', 'ExecutionReferenceLinkRequest', {
  summary: "Link the executing systems' records",
  description:
    'A participant adds an externalTripRef or an externalOrderRef (at least one), and source and ' +
    'destination references, each with system, type and value; several links may add more, each ' +
    'with If-Match for the version after the previous one (a losing concurrent link gets 409 and ' +
    'retries). References from different systems are never equivalent. created or linked → ' +
    'linked; `pcx.execution-reference.linked.v1`. Needs scope `outcomes:write`.',
});
command('complete', 'CommonCommand', {
  summary: 'Complete an execution reference',
  description:
    'linked → completed, only when the head of its outcome chain is completed or cancelled (the ' +
    'broker does it itself when such an outcome heads the chain); `pcx.execution.completed.v1`. ' +
    'Completed and cancelled references accept nothing further. Needs scope `outcomes:write`.',
});
command('cancel', 'CommonReasonedCommand', {
  summary: 'Cancel an execution reference',
  description:
    'created or linked → cancelled, with a reason; every participating organization is told ' +
    '(`pcx.execution-reference.cancelled.v1`). A delayed cancel never overwrites a completed ' +
    'reference (422). Needs scope `outcomes:write`.',
});

/** What a record's create answers: a new record, or the original of an exact replay; on a reference that must exist and accept it. */
const RECORD_ANSWERS = { '200': 'An exact replay (the original record).', '201': 'The new record.', '404': true, '422': true };

/** The reference a body names, for a participant with `scope` (404 otherwise). */
async function referenceFor(c: Ctx, id: string, scope: string) {
  return authorize(c, writeAccess(scope, () => loadDocument<ExecutionReference>(c.get('services').db, resource, id)));
}

/** 201 with a record the command created, 200 with the original of an exact replay. */
function recorded<T extends { id: string; resourceVersion?: number }>(record: T | undefined, created: boolean, location: string): StoredResponse {
  if (!record) throw new Problem('SERVICE_UNAVAILABLE', 'the record is not readable yet; retry with the same Idempotency-Key', {}, { 'retry-after': '1' });
  return { status: created ? 201 : 200, headers: { location: `${location}/${record.id}`, etag: etagOf(record.resourceVersion ?? 1) }, body: record };
}

/**
 * A reference as its workflow held it, from the read model: the document with its milestones and
 * outcomes. Commands on an ended (terminal) reference are decided against it (api/commands.ts).
 */
async function referenceState(c: Ctx, id: string): Promise<Envelope | undefined> {
  const db = c.get('services').db;
  const doc = await loadDocument<ExecutionReference>(db, resource, id);
  if (!doc) return undefined;
  const [updates, outcomes] = await Promise.all([listUpdates(db, id), listOutcomes(db, id)]);
  return { ...doc, updates, outcomes } as unknown as Envelope;
}

/**
 * A command that records a milestone or an outcome on the reference `id` (its Update, through
 * idempotency): answered with the record it made (201) or the original of a replay (200).
 */
function recordOnReference(c: Ctx, id: string, name: 'recordUpdate' | 'recordOutcome' | 'correctOutcome', payload: Record<string, unknown>, respond: NonNullable<CommandRequest['respond']>) {
  return runCommand(c, { resource, name, id, payload, view: () => undefined, current: () => referenceState(c, id), respond });
}

export const executionUpdates = new Hono<AppEnv>();

// A milestone: deduplicated by its key (same content: the original; another: 409), stored even
// when it arrives out of order.
operation(executionUpdates, {
  method: 'POST', path: '/', access: { scope: 'execution:update' }, body: 'ExecutionReferenceUpdateRequest', answers: [201, 200],
  idempotent: true,
  returns: 'ExecutionReferenceExecutionUpdate',
  doc: {
    id: 'recordExecutionUpdate',
    summary: 'Record a milestone',
    description:
      'A participant records a shared milestone of a reference: occurredAt from the source, ' +
      'recordedAt from the broker, a deduplication key, an optional reason, estimated times and a ' +
      'coarse position (an Area). The same key with the same content answers 200 with the original; ' +
      'with other content 409 `IDEMPOTENCY_CONFLICT`. A milestone older than the current one is ' +
      'stored and shown in occurrence order but never moves the current milestone back. occurredAt ' +
      "is a fact: more than 5 minutes after the broker's now, or more than 5 minutes before the " +
      'reference was created, it is 400 `VALIDATION_FAILED` at `/occurredAt` (the detail names the ' +
      "broker's now and the bound) and nothing is recorded; estimatedTimes may lie ahead. " +
      '`pcx.execution.updated.v1`. Needs scope `execution:update`.',
    tag: 'ExecutionReferences',
    responses: RECORD_ANSWERS,
  },
}, async ({ c, body }) => {
  const { executionReferenceId, ...payload } = body;
  const { resource: doc } = await referenceFor(c, executionReferenceId, 'execution:update');
  if (payload.position) {
    const errors = validateArea(payload.position, '/position');
    if (errors.length) throw new Problem('VALIDATION_FAILED', 'the position is not a known area', { errors });
  }
  return recordOnReference(c, doc.id, 'recordUpdate', payload, (snapshot, commandId) => {
    const update = (snapshot as unknown as ExecutionReference).updates.find((u: ExecutionUpdate) => u.deduplicationKey === payload.deduplicationKey);
    return recorded(update, update?.id === commandId, `/execution-references/${doc.id}/updates`);
  });
});

export const executionOutcomes = new Hono<AppEnv>();

const outcomeAnswer = (key: string) => (snapshot: Envelope, commandId: string) => {
  const outcome = (snapshot as unknown as ExecutionReference).outcomes.find((o: ExecutionOutcome) => o.deduplicationKey === key);
  return recorded(outcome && outcomeRecord(outcome), outcome?.commandId === commandId, '/execution-outcomes');
};

operation(executionOutcomes, {
  method: 'POST', path: '/', access: { scope: 'outcomes:write' }, body: 'ExecutionReferenceOutcomeRequest', answers: [201, 200],
  idempotent: true,
  returns: 'ExecutionReferenceExecutionOutcome',
  doc: {
    id: 'recordExecutionOutcome',
    summary: 'Report an execution outcome',
    description:
      'A participant reports how the execution went, on a created or linked reference: status, time ' +
      'ranges (actualTimeRange required when completed), confirmations, deviations, observations, ' +
      'schemaVersion and a deduplicationKey unique per reference. An exact replay (same key and ' +
      'content) answers 200 with the original; another content under the key is 409 ' +
      '`IDEMPOTENCY_CONFLICT`. On a chain that has a head, the new report follows it (supersedes ' +
      'it); there is always one head. The first completed or cancelled head completes the ' +
      "reference. The times of what happened (actualTimeRange, a confirmation's or a deviation's " +
      "`at`) more than 5 minutes after the broker's now, or more than 5 minutes before the " +
      'reference was created, are 400 `VALIDATION_FAILED` at each field (plannedTimeRange is a ' +
      'plan and may lie anywhere). `pcx.execution-outcome.recorded.v1`. Needs scope `outcomes:write`.',
    responses: RECORD_ANSWERS,
  },
}, async ({ c, body }) => {
  const { executionReferenceId, ...payload } = body;
  const { resource: doc } = await referenceFor(c, executionReferenceId, 'outcomes:write');
  return recordOnReference(c, doc.id, 'recordOutcome', payload, outcomeAnswer(payload.deduplicationKey));
});

operation(executionOutcomes, {
  method: 'POST', path: '/:id/corrections', access: { scope: 'outcomes:write' }, body: 'ExecutionReferenceCorrectionRequest', answers: [201, 200],
  idempotent: true,
  returns: 'ExecutionReferenceExecutionOutcome',
  doc: {
    id: 'correctExecutionOutcome',
    summary: 'Correct the head of an outcome chain',
    description:
      "A new record that supersedes the path's record: observedOutcomeVersion must equal that " +
      "record's resourceVersion (else 409 `STALE_RESOURCE_VERSION`: the loser of concurrent " +
      'corrections), the path must be the current head (else 409 `IDEMPOTENCY_CONFLICT`), with ' +
      'correctionReason, a correctionReasonCode from the vocabulary, and a new deduplicationKey. ' +
      'The prior record changes only by gaining supersededByOutcomeId. A completed or cancelled ' +
      'reference takes no correction. `pcx.execution-outcome.corrected.v1` names both records (the ' +
      "reference's lastOutcomeChange). Its times are held to the report's rule (400 " +
      "`VALIDATION_FAILED` beyond 5 minutes after the broker's now or before the reference was " +
      "created). Needs scope `outcomes:write`.",
    responses: {
      '200': 'An exact replay (the original record).',
      '201': 'The new record.',
      '422': true,
    },
  },
}, async ({ c, body }) => {
  const stored = await authorizeOutcome(c, true);
  return recordOnReference(c, stored.doc.executionReferenceId, 'correctOutcome', { ...body, outcomeId: stored.doc.id }, outcomeAnswer(body.deduplicationKey));
});

operation(executionOutcomes, {
  method: 'GET', path: '/', access: { scope: [], anyScope: READ_SCOPES }, answers: [200],
  returns: 'ExecutionReferenceOutcomePage',
  doc: {
    id: 'listExecutionOutcomes',
    summary: 'The outcome chain of a reference',
    description:
      "Every record of the reference's chain, head first. `executionReferenceId` is required. For " +
      'the participating organizations (with `outcomes:review` or `outcomes:write`) and authorized ' +
      'operators.',
    client: { name: 'outcomes', columns: ['id', 'executionReferenceId', 'status', 'createdAt'] },
    parameters: [
      {
        name: 'executionReferenceId',
        in: 'query',
        required: true,
        description: 'The execution reference whose chain to list. One value.',
        schema: { type: 'string', format: 'uuid' },
      },
    ],
    responses: { '200': 'The chain (a single page).', '404': true },
  },
}, async ({ c }) => {
  const referenceId = querySingle(c, 'executionReferenceId');
  if (referenceId === undefined || !isUuid(referenceId)) {
    throw new Problem('VALIDATION_FAILED', 'executionReferenceId is required: the chain of one reference', { errors: [{ pointer: '/query/executionReferenceId', message: 'must be a reference id' }] });
  }
  const { resource: doc } = await authorize(c, { ...readAccess, load: () => loadDocument<ExecutionReference>(c.get('services').db, resource, referenceId) });
  return c.json({ items: await listOutcomes(c.get('services').db, doc.id), nextCursor: null });
});

operation(executionOutcomes, {
  method: 'GET', path: '/:id', access: { scope: [], anyScope: READ_SCOPES }, answers: [200],
  returns: 'ExecutionReferenceExecutionOutcome',
  doc: {
    id: 'getExecutionOutcome',
    summary: 'Read an execution outcome record',
    description:
      'One record of a chain; it never changes but for gaining supersededByOutcomeId. For the ' +
      'participating organizations (with `outcomes:review` or `outcomes:write`) and authorized ' +
      'operators.',
    responses: { '200': 'The record; ETag carries its resourceVersion.' },
  },
}, async ({ c }) => {
  const stored = await authorizeOutcome(c, false);
  return c.json(stored.doc, 200, { etag: etagOf(stored.doc.resourceVersion) });
});

/** Gate 4 for one outcome (gate 6 is the operation's): the reference's participants, and operators to read. */
async function authorizeOutcome(c: Ctx, write: boolean) {
  const principal = c.get('principal');
  const stored = await loadOutcome(c.get('services').db, c.req.param('id') ?? '');
  if (!stored) throw notFound('execution outcome');
  const participant = stored.participants.includes(principal.organizationId);
  if (!participant && (write || !principal.operator)) throw notFound('execution outcome');
  return stored;
}
