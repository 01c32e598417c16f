// HTTP API of TransportTender: create (from an accepted match proposal, or directly to a
// partner), issue, counterproposals, decisions, withdraw, and reads of the tender and its
// revisions. A draft is its issuer's alone; from issue on both organizations see it all; nobody
// else ever sees a tender (404). Rules live in domain/transport-tender.ts.
import { Hono } from 'hono';
import { operation, type Body } from './operations';
import { Problem, type FieldError } from '../domain/problems';
import { validateArea } from '../core/areas';
import { loadDocument } from '../read-model/projection-document';
import { grantedInForce, relationshipInForce } from '../read-model/partner-relationship';
import { capacityOffer, type CapacityOffer } from '../domain/capacity-offer';
import { effectWorkflowId } from '../domain/resource';
import { loadRequest, type LoadRequest } from '../domain/load-request';
import { matchProposal, type MatchProposal } from '../domain/match-proposal';
import type { Envelope } from '../domain/machine';
import { TENDER_SCOPES, transportTender, type TenderCommandContext, type TenderContext, type TenderTerms, type TransportTender } from '../domain/transport-tender';
import { precheckCreate, runCommand } from './commands';
import type { AppEnv } from './context';

import { notFound, type Ctx } from './http';
import { commandRoute, getRoute, listRoute, nestedListRoute, participantAccess, viewFor } from './resource-routes';



const resource = transportTender;
/** How long a decision that completes the policy waits for the commitment. */
const SETTLE_MS = 20_000;

/** Gate 4: the issuer always; the executing organization from issue on (its participants); nobody else. */
const access = (scope: string) => participantAccess<TransportTender>(resource, scope);

/**
 * Terms from the accepted proposal's request (and the offer's price if the request names none),
 * as the caller may see them in the accepted phase: cargo, equipment, the two stops' areas and
 * windows, the price.
 */
export function prefilledTerms(offer: CapacityOffer, request: LoadRequest, givenPrice?: unknown): TenderTerms | undefined {
  const capacity = (request.requiredCapacity ?? {}) as Record<string, any>;
  const handling = (request.handlingRequirements ?? {}) as Record<string, any>;
  const goods = (request.goodsProfile ?? {}) as Record<string, any>;
  const requirements = (request.vehicleRequirements ?? {}) as Record<string, any>;
  const price = ((request.restrictedDetails as any)?.price ?? (offer.restrictedDetails as any)?.price) as TenderTerms['commercialTerms'];
  if ((!price && !givenPrice) || !request.pickupWindow || !request.deliveryWindow) return undefined;
  return {
    cargo: {
      ...(goods.category ? { goodsCategory: goods.category } : {}),
      ...(capacity.weight ? { weight: capacity.weight } : {}),
      ...(capacity.volume ? { volume: capacity.volume } : {}),
      ...(capacity.loadingMetres ? { loadingMetres: capacity.loadingMetres } : {}),
      ...(capacity.palletSpaces !== undefined ? { palletSpaces: capacity.palletSpaces } : {}),
      ...(handling.dangerousGoods ? { dangerousGoods: handling.dangerousGoods } : {}),
      ...(handling.temperature ? { temperature: handling.temperature } : {}),
    },
    equipment: { ...(requirements.bodyTypes ? { bodyTypes: requirements.bodyTypes } : {}), ...(requirements.equipment ? { equipment: requirements.equipment } : {}) },
    stops: [
      { sequence: 1, role: 'pickup', area: request.pickupArea, timeWindow: request.pickupWindow },
      { sequence: 2, role: 'delivery', area: request.deliveryArea, timeWindow: request.deliveryWindow },
    ],
    ...(price ? { commercialTerms: { amount: price.amount, currency: price.currency } } : {}),
  };
}

/** What the schema cannot check of terms: every stop's area is one the broker knows. */
export function checkTerms(terms: Partial<TenderTerms> | undefined, pointer: string): void {
  const errors: FieldError[] = [];
  for (const [i, stop] of (terms?.stops ?? []).entries()) errors.push(...validateArea(stop.area, `${pointer}/stops/${i}/area`));
  if (errors.length) throw new Problem('VALIDATION_FAILED', 'the tender terms are not valid', { errors });
}

export const transportTenders = new Hono<AppEnv>();

operation(transportTenders, {
  method: 'POST', path: '/', access: { scope: resource.scopes.write }, body: 'TransportTenderCreateRequest', answers: [201],
  idempotent: true,
  returns: 'TransportTender',
  doc: {
    id: 'createTransportTender',
    summary: 'Create a draft transport tender',
    description:
      'A draft by the issuing organization (the caller): from an accepted match proposal the caller ' +
      "takes part in (`originatingProposalId`; the executing organization is the proposal's " +
      "counterpart; the terms not given in `terms` (a price alone, say) are prefilled from the " +
      "request's cargo, equipment, areas and windows and the request's or the offer's price), or directly to a partner (`terms` " +
      'required). Needs an active relationship with the executing organization granting ' +
      '`tenders:read` and `tenders:decide` (403 `RELATIONSHIP_INACTIVE`). Stops name coarse areas ' +
      'and windows; exact addresses travel in the execution handover. A first pickup window ending ' +
      'less than 60 minutes from now is 422 `WINDOW_PASSED`; `expiresAt` must fall at least 60 minutes ' +
      'before it (400 `VALIDATION_FAILED`). A draft is visible to its issuer only. Needs scope `tenders:publish`.',
    responses: {
      '201': 'The draft.',
      '404': true,
      '422': true,
    },
  },
}, async ({ c, principal, body }) => {
  const { db } = c.get('services');
  // Facts the machine decides on: the proposal (if any), the relationship in force.
  const context: TenderContext = {};
  if (body.originatingProposalId) {
    const proposal = await loadDocument<MatchProposal>(db, matchProposal, body.originatingProposalId);
    const participants = proposal ? [proposal.offerOwnerOrganizationId, proposal.requestOwnerOrganizationId] : [];
    if (proposal && participants.includes(principal.organizationId)) {
      context.proposal = { id: proposal.id, status: proposal.status, capacityOfferId: proposal.capacityOfferId, loadRequestId: proposal.loadRequestId, participants };
      if (!body.terms?.stops && proposal.status === 'accepted') {
        const [offer, request] = await Promise.all([
          loadDocument<CapacityOffer>(db, capacityOffer, proposal.capacityOfferId),
          loadDocument<LoadRequest>(db, loadRequest, proposal.loadRequestId),
        ]);
        const given = body.terms ?? {};
        const prefilled = offer && request ? prefilledTerms(offer, request, given.commercialTerms ?? given.externalTermsReference) : undefined;
        if (!prefilled) throw new Problem('VALIDATION_FAILED', 'the proposal\u2019s listings name no price: give the terms', { errors: [{ pointer: '/terms', message: 'is required' }] });
        // The terms given replace the prefilled ones term by term (a price alone, as the console
        // sends it); the rest are made of the listings' validated terms (units the listing schemas allow).
        const { commercialTerms: _price, ...rest } = prefilled;
        body.terms = { ...(given.externalTermsReference ? rest : prefilled), ...given } as Body<'TransportTenderCreateRequest'>['terms'];
      }
    }
  }
  // Gate 4 for the proposal: a proposal the caller takes no part in does not exist for it.
  if (body.originatingProposalId && !context.proposal) throw notFound('match proposal');
  if (!body.terms) throw new Problem('VALIDATION_FAILED', 'terms are required unless the tender follows an accepted proposal', { errors: [{ pointer: '/terms', message: 'is required' }] });
  if (!body.terms.stops) throw new Problem('VALIDATION_FAILED', 'stops are required unless the tender follows an accepted proposal', { errors: [{ pointer: '/terms/stops', message: 'is required' }] });
  checkTerms(body.terms, '/terms');
  const relationship = await relationshipInForce(db, principal.organizationId, body.executingOrganizationId);
  if (relationship) context.relationship = relationship;
  precheckCreate(c, resource, body, context);
  return runCommand(c, { resource, name: 'create', payload: body, context, view: viewFor(resource, principal) });
});

listRoute(transportTenders, resource, {
  links: {
    proposal: { field: 'originatingProposalId', description: 'Only tenders that follow this match proposal. One value.' },
  }, owners: true,
  doc: {
    summary: "List the caller's transport tenders",
    description:
      'Tenders the caller issues (drafts included) and tenders issued to it. Filters: `status` (one ' +
      'or more), `proposal` (the originating proposal). Ordered by id; repeat with `cursor`. Needs ' +
      'scope `tenders:read`.',
    client: {
      name: 'tenders',
      columns: [
        'id',
        'status',
        'issuingOrganizationId',
        'executingOrganizationId',
        'currentRevision',
        'resourceVersion',
      ],
    },
    parameters: ['TenderStatusQuery'],
  },
});

getRoute(transportTenders, resource, access(resource.scopes.read), {
  summary: 'Read a transport tender',
  description:
    'The tender with its revisions and decisions: for the issuer always, for the executing ' +
    'organization from issue on; anyone else gets 404. Needs scope `tenders:read`.',
});

nestedListRoute(transportTenders, access(resource.scopes.read), {
  path: 'revisions',
  returns: 'TransportTenderRevisionPage',
  items: (_c, doc) => doc.revisions,
  doc: {
    id: 'listTransportTenderRevisions',
    summary: 'List the revisions of a tender',
    description:
      'The immutable, numbered revisions, each with what changed against the previous one, its ' +
      'author, reason and outcome. Needs scope `tenders:read`.',
    responses: { '200': 'The revisions (a single page).' },
  },
});

/** A decision that completes the policy waits for its commitment; a refused commit is 409. */
async function settleAcceptance(c: Ctx, snapshot: TransportTender, commandId: string): Promise<Envelope> {
  if (snapshot.status !== 'accepting') return snapshot;
  const flow = await c.get('services').entities.flowResult<'committed' | 'abandoned'>(effectWorkflowId(resource.workflowId(snapshot.id), commandId, 0), SETTLE_MS);
  const outcome = flow.ended ? flow.value : undefined;
  const after = await loadDocument<TransportTender>(c.get('services').db, resource, snapshot.id);
  if (outcome === 'abandoned') {
    throw new Problem('STALE_RESOURCE_VERSION', `the acceptance could not be committed: ${after?.endReason?.reason ?? 'the match changed'}`, { currentState: after?.status });
  }
  return after ?? snapshot;
}

/** Whether the tender's two organizations still have a relationship granting the tender scopes. */
async function tenderRelationship(c: Ctx, t: TransportTender): Promise<TenderCommandContext> {
  return { relationshipInForce: await grantedInForce(c.get('services').db, t.issuingOrganizationId, t.executingOrganizationId, TENDER_SCOPES) };
}

commandRoute(transportTenders, resource, 'issue', {
  body: 'CommonCommand', access: access(resource.scopes.write), context: tenderRelationship,
  doc: {
    summary: 'Issue a draft tender (revision 1)',
    description:
      "draft → issued. The issuer presents revision 1 (the draft's terms) to the executing " +
      'organization; `pcx.transport-tender.issued.v1`. After expiresAt: 422 `RESOURCE_EXPIRED`; a first ' +
      'pickup window ending less than 60 minutes from now: 422 `WINDOW_PASSED`. ' +
      'Without a relationship in force granting tenders:read and tenders:decide: 403 ' +
      '`RELATIONSHIP_INACTIVE`. Needs scope `tenders:publish`.',
  },
});
commandRoute(transportTenders, resource, 'counterpropose', {
  path: 'counterproposals',
  body: 'TransportTenderCounterproposalRequest',
  access: access('tenders:decide'),
  payload: (_c, body) => (checkTerms(body.terms, '/terms'), body),
  doc: {
    summary: 'Counter the current revision with new terms',
    description:
      'Either organization, while the tender is issued: revision n+1 with the changed terms (the ' +
      'rest carries over) and a reason; the revision it answers must be current (409 ' +
      '`STALE_RESOURCE_VERSION` with `currentRevision`); no presented revision ever changes; ' +
      'accepts given on earlier revisions do not carry over. `pcx.transport-tender.countered.v1`. ' +
      'Needs scope `tenders:decide`.',
  },
});
commandRoute(transportTenders, resource, 'decide', {
  path: 'decisions',
  body: 'TransportTenderDecisionRequest',
  access: access('tenders:decide'),
  context: tenderRelationship,
  settle: (c, snapshot, commandId) => settleAcceptance(c, snapshot as TransportTender, commandId),
  doc: {
    summary: 'Accept or reject the current revision',
    description:
      'Either organization decides on the revision it names; a revision that is no longer current ' +
      "is 409 `STALE_RESOURCE_VERSION`. Under BILATERAL_REQUIRED the current revision's author and " +
      "the other organization must both accept it; under INITIATOR_ONLY the recipient's accept " +
      "suffices (presenting a revision is its author's acceptance); a repeated accept changes " +
      'nothing. The accept that completes the policy commits: the broker creates the ' +
      'TransportCommitment (or, for an amendment, its next version) and the answer is the accepted ' +
      'tender with `commitmentId` (409 if the commitment cannot be made). A reject ends an issued ' +
      'tender (`rejected`) and an amendment (the commitment stays). Accepting an issued tender ' +
      'needs a relationship in force granting tenders:read and tenders:decide (403 ' +
      '`RELATIONSHIP_INACTIVE`; reject remains). Needs scope `tenders:decide`.',
  },
});
commandRoute(transportTenders, resource, 'withdraw', {
  body: 'CommonReasonedCommand', access: access(resource.scopes.write),
  doc: {
    summary: 'Withdraw a draft or issued tender',
    description: 'The issuer, with a reason: draft or issued → withdrawn. Needs scope `tenders:publish`.',
  },
});
