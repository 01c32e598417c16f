// HTTP API of MatchProposal and its MatchDecisions: reads for the proposal's two organizations,
// decisions under the relationship's decision policy, and proposals a participant asks for.
// Nobody else learns that a proposal exists (404). Rules live in domain/match-proposal.ts.
import { Hono } from 'hono';
import { operation } from './operations';
import { Problem } from '../domain/problems';
import { grantedInForce } from '../read-model/partner-relationship';
import { incompleteDetail, MATCHING_SCOPES, missingPairTerms } from '../domain/matching';
import { FLOWS } from '../domain/flows';
import { loadDocument } from '../read-model/projection-document';
import { capacityOffer, type CapacityOffer } from '../domain/capacity-offer';
import { effectWorkflowId } from '../domain/resource';
import { loadRequest, type LoadRequest } from '../domain/load-request';
import { matchProposal, type DecisionContext, type MatchProposal } from '../domain/match-proposal';
import type { Envelope } from '../domain/machine';
import type { ProposeOutcome, ProposePairInput } from '../domain/match-proposal';
import { runCommand } from './commands';
import type { AppEnv, Principal } from './context';
import { authorize } from './gates';
import { etagOf, observedVersion, type Ctx } from './http';
import { fingerprint, idempotent } from './idempotency';
import { listingReadAccess } from './listings';
import { getRoute, listRoute, nestedListRoute, participantAccess, viewFor } from './resource-routes';
import { viewOf } from '../domain/views';


const resource = matchProposal;
/** How long a decision that completes the acceptance waits for it to be committed. */
const SETTLE_MS = 20_000;

/** Gate 4: the proposal's two organizations; everyone else gets 404. */
const participantOnly = (scope: string) => participantAccess<MatchProposal>(resource, scope);

export const matchProposals = new Hono<AppEnv>();

listRoute(matchProposals, resource, {
  links: {
    offer: { field: 'capacityOfferId', description: 'Only proposals on this capacity offer. One value.' },
    request: { field: 'loadRequestId', description: 'Only proposals on this load request. One value.' },
  },
  roles: {
    parameter: 'role',
    fields: { carrier: 'offerOwnerOrganizationId', shipper: 'requestOwnerOrganizationId' },
    descriptions: { carrier: 'the caller owns the offer', shipper: 'the caller owns the request' },
  },
  doc: {
    summary: "List the caller's match proposals",
    description:
      "The proposals the caller's organization takes part in (as the owner of the offer or of the " +
      'request); nobody else sees a proposal. Filters combine with AND: `status` (one or more), ' +
      '`role` (`carrier`: the caller owns the offer; `shipper`: the caller owns the request), ' +
      '`offer` and `request` (ids). Ordered by id (creation order); repeat with `cursor`. Needs ' +
      'scope `matches:read`.',
    client: {
      name: 'proposals',
      columns: ['id', 'status', 'decisionState', 'capacityOfferId', 'loadRequestId', 'resourceVersion'],
    },
    parameters: ['ProposalStatusQuery'],
  },
});

getRoute(matchProposals, resource, participantOnly(resource.scopes.read), {
  summary: 'Read a match proposal',
  description:
    'The proposal with its explanation (compatibility per criterion, routeCompatibility, ' +
    'capacityCompatibility, rationale), its decision policy, decision state and decisions. Only ' +
    'its two organizations; anyone else gets 404. Needs scope `matches:read`.',
});

nestedListRoute(matchProposals, participantOnly(resource.scopes.read), {
  path: 'decisions',
  returns: 'MatchProposalDecisionPage',
  items: (_c, doc) => doc.decisions,
  doc: {
    id: 'listMatchDecisions',
    summary: 'List the decisions on a match proposal',
    description:
      "The append-only MatchDecision records, oldest first, with their comments: for the proposal's " +
      'two organizations only. Needs scope `matches:read`.',
    responses: { '200': 'The decisions (a single page).' },
  },
});

// A decision (accept, reject, withdraw) on the version the caller observed. The decision that
// completes the policy starts the acceptance; the answer waits for it to be committed, so the
// caller learns whether the match holds.
operation(matchProposals, {
  method: 'POST', path: '/:id/decisions', access: participantOnly(resource.scopes.write), body: 'MatchProposalDecisionRequest', answers: [200],
  versioned: true,
  idempotent: true,
  returns: 'MatchProposal',
  doc: {
    id: 'decideMatchProposal',
    summary: 'Accept, reject or withdraw a match proposal',
    description:
      "A decision of one of the proposal's two organizations on the version it observed " +
      '(`observedProposalVersion` or If-Match; a stale one is 409 `STALE_RESOURCE_VERSION`, never ' +
      'applied to a changed proposal). Recorded as an append-only MatchDecision ' +
      '(`pcx.match-decision.recorded.v1`). Under `BILATERAL_REQUIRED` the proposal is accepted when ' +
      'the second, distinct organization accepts; under `INITIATOR_ONLY` when the initiator ' +
      'accepts. A repeated accept by one organization is idempotent and does not advance. The ' +
      "accept that completes the policy commits the match: the offer's reserved capacity is " +
      "consumed, the request becomes matched (`pcx.load-request.matched.v1`), the request's other " +
      'open proposals are superseded, and the answer is the accepted proposal ' +
      '(`pcx.match-proposal.accepted.v1`). If the request changed meanwhile (withdrawn, matched by ' +
      'another proposal), the acceptance cannot be committed: 409 `STALE_RESOURCE_VERSION` and the ' +
      'proposal is withdrawn. `reject` and `withdraw` end the proposal and release the capacity and ' +
      'the request. An action on an ended decision is 409 `DECISION_TERMINAL` with `currentState`; ' +
      'after validUntil, 422 `RESOURCE_EXPIRED`. A relationship whose decision policy names ' +
      '`decidingRoles` admits only connectors with one of those roles (403 `ACTOR_NOT_PERMITTED`). ' +
      'Once no relationship granting matching is in force between the two organizations (suspended, ' +
      'terminated, past effectiveUntil), an accept is 403 `RELATIONSHIP_INACTIVE`; reject and ' +
      'withdraw remain. Needs scope `matches:decide`.',
    responses: { '200': 'The proposal after the decision, with its new ETag.' },
  },
}, async ({ c, resource: doc, principal, body }) => {
  const { observedProposalVersion, ...payload } = body;
  const expectedVersion = observedVersion(c, { observedResourceVersion: observedProposalVersion }, 'observedProposalVersion');
  const context: DecisionContext = { actorRoles: principal.actorRoles };
  // Only an accept needs it (reject and withdraw end the proposal whatever the relationship).
  if (payload.decision === 'accept') {
    context.relationshipInForce = await grantedInForce(c.get('services').db, doc.offerOwnerOrganizationId, doc.requestOwnerOrganizationId, MATCHING_SCOPES);
  }
  return runCommand(c, {
    resource,
    name: 'decide',
    id: doc.id,
    expectedVersion,
    payload,
    context,
    view: viewFor(resource, principal),
    current: () => loadDocument(c.get('services').db, resource, doc.id),
    settle: (snapshot, commandId) => settleAcceptance(c, snapshot as MatchProposal, commandId),
  });
});

/** Waits for the acceptance flow a decision started; a match the request no longer allows is 409. */
async function settleAcceptance(c: Ctx, snapshot: MatchProposal, commandId: string): Promise<Envelope> {
  if (snapshot.decisionState !== 'COMMITTING') return snapshot;
  const { entities } = c.get('services');
  const flow = await entities.flowResult<'committed' | 'abandoned'>(effectWorkflowId(resource.workflowId(snapshot.id), commandId, 0), SETTLE_MS);
  const outcome = flow.ended ? flow.value : undefined;
  // The proposal's final state once it has ended; one still committing (the flow is slow) answers as it stands.
  const after = await entities.finalState<MatchProposal>(resource, snapshot.id, 2_000);
  // Abandoned, or the flow failed and withdrew the proposal (workflows/flows/matching.ts): the
  // decision is recorded, the match is not.
  if (after && (outcome === 'abandoned' || (outcome === undefined && after.status === 'withdrawn'))) {
    throw new Problem('STALE_RESOURCE_VERSION', `the acceptance could not be committed: ${after.endReason?.reason ?? 'the offer or the request changed'}`, {
      currentState: after.decisionState,
      currentResourceVersion: after.resourceVersion,
    });
  }
  // Committed, or still being committed when the wait ended (the answer shows COMMITTING).
  return after ?? snapshot;
}

// A participant proposes a pair it owns one side of and can see the other side of: the same
// evaluation and the same reservation as the broker's, with the caller as initiator.
operation(matchProposals, {
  method: 'POST', path: '/', access: { scope: resource.scopes.write }, body: 'MatchProposalCreateRequest', answers: [201],
  idempotent: true,
  returns: 'MatchProposal',
  doc: {
    id: 'proposeMatch',
    summary: 'Propose a pair as a participant',
    description:
      'The owner of the offer or of the request proposes this pair; it must be able to read the ' +
      "other listing (as its reads decide; otherwise 404). The pair is evaluated as the broker's " +
      'matching evaluates it and, if compatible, proposed the same way (the capacity reserved on ' +
      'the offer, the request moved to proposed), with the caller as the initiator of the decision ' +
      'policy and `createdBy.kind` `participant`. An incompatible pair is 422 `INCOMPATIBLE_MATCH` ' +
      'with the `evaluation`; a pair with an open proposal is 409 `DUPLICATE_MATCH`; an offer ' +
      'without the capacity 409 `CAPACITY_EXCEEDED`; a request with its full number of open ' +
      'proposals 409 `PROPOSAL_LIMIT_REACHED`; a pair that lacks a term matching reads (a draft ' +
      'without its areas, say) 422 `LISTING_INCOMPLETE` with `missingTerms`, and nothing is ' +
      'started. Needs scope `matches:decide`.',
    responses: {
      '201': 'The proposal, open.',
      '403':
        '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `ACTOR_NOT_PERMITTED` (the caller owns ' +
        'neither listing).',
      '404': true,
      '422': true,
    },
  },
}, async ({ c, principal, body }) => {
  const { offer, request } = await visiblePair(c, body.capacityOfferId, body.loadRequestId);
  if (offer.ownerOrganizationId !== principal.organizationId && request.ownerOrganizationId !== principal.organizationId) {
    throw new Problem('ACTOR_NOT_PERMITTED', 'only the owner of the offer or of the request may propose this pair');
  }
  requireMatchable(offer, request);
  const stored = await idempotent(c, fingerprint(['propose-pair', body]), async (commandId) => {
    const { entities } = c.get('services');
    const input: ProposePairInput = { offerId: offer.id, requestId: request.id, proposedBy: { organizationId: principal.organizationId, clientId: principal.clientId } };
    const workflowId = `proposal-request/${commandId}`;
    // A retry joins the first run (the start is idempotent by the id derived from the command).
    await entities.startFlow(FLOWS.proposePair, workflowId, input);
    const ran = await entities.flowResult<ProposeOutcome | { ok: false; incompatible: true; evaluation: unknown }>(workflowId, SETTLE_MS);
    if (!ran.ended || !ran.value) throw new Problem('SERVICE_UNAVAILABLE', 'the proposal was not made in time; retry with the same Idempotency-Key', {}, { 'retry-after': '1' });
    const outcome = ran.value;
    if (outcome.ok) {
      return { status: 201, headers: { etag: etagOf(outcome.proposal.resourceVersion), location: `/${resource.collection}/${outcome.proposal.id}` }, body: viewOf(resource, outcome.proposal, principal) };
    }
    if ('incompatible' in outcome) throw new Problem('INCOMPATIBLE_MATCH', 'the offer and the load request are not compatible', { evaluation: outcome.evaluation });
    throw Problem.fromRefusal(outcome.refusal);
    // The flow's id derives from the command id: derived from the key, a retry the read model
    // lost joins the first flow and gets its proposal.
  }, { commandIds: 'derived' });
  return c.json(stored.body as object, stored.status as 201, stored.headers);
});

/**
 * A pair matching can evaluate: both listings hold every term compatibility reads (a draft may
 * not). Otherwise 422 LISTING_INCOMPLETE naming each missing term, before anything starts.
 */
export function requireMatchable(offer: CapacityOffer, request: LoadRequest): void {
  const missing = missingPairTerms(offer, request);
  if (!missing) return;
  const errors = [
    ...missing.capacityOffer.map((t) => ({ pointer: `/capacityOfferId`, message: `the capacity offer has no ${t}` })),
    ...missing.loadRequest.map((t) => ({ pointer: `/loadRequestId`, message: `the load request has no ${t}` })),
  ];
  throw new Problem('LISTING_INCOMPLETE', incompleteDetail(missing), { missingTerms: missing, errors });
}

/**
 * Both listings, if the caller may read both (the reads' gates: owner, operator, counterpart or a
 * partner they are shared with); otherwise 404, as their reads would answer.
 */
export async function visiblePair(c: Ctx, offerId: string, requestId: string): Promise<{ offer: CapacityOffer; request: LoadRequest; principal: Principal }> {
  const db = c.get('services').db;
  const offer = await authorize(c, listingReadAccess(capacityOffer, () => loadDocument<CapacityOffer>(db, capacityOffer, offerId) as any));
  const request = await authorize(c, listingReadAccess(loadRequest, () => loadDocument<LoadRequest>(db, loadRequest, requestId) as any));
  return { offer: offer.resource as CapacityOffer, request: request.resource as LoadRequest, principal: offer.principal };
}
