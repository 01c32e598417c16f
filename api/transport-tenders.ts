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
import { commandRoute, getRoute, listRoute, participantAccess, viewFor } from './resource-routes';



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
export function prefilledTerms(offer: CapacityOffer, request: LoadRequest): TenderTerms | undefined {
  const capacity = (request.requiredCapacity ?? {}) as Record<string, any>;
  const handling = (request.handlingRequirements ?? {}) as Record<string, any>;
  const goods = (request.goodsProfile ?? {}) as Record<string, any>;
  const requirements = (request.vehicleRequirements ?? {}) as Record<string, any>;
  const price = ((request.restrictedDetails as any)?.price ?? (offer.restrictedDetails as any)?.price) as TenderTerms['commercialTerms'];
  if (!price || !request.pickupWindow || !request.deliveryWindow) return undefined;
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
    commercialTerms: { amount: price.amount, currency: price.currency },
  };
}

/** What the schema cannot check of terms: every stop's area is one the broker knows. */
export function checkTerms(terms: Partial<TenderTerms> | undefined, pointer: string): void {
  const errors: FieldError[] = [];
  for (const [i, stop] of (terms?.stops ?? []).entries()) errors.push(...validateArea(stop.area, `${pointer}/stops/${i}/area`));
  if (errors.length) throw new Problem('VALIDATION_FAILED', 'the tender terms are not valid', { errors });
}

export const transportTenders = new Hono<AppEnv>();

operation(transportTenders, { method: 'POST', path: '/', access: { scope: resource.scopes.write }, body: 'TransportTenderCreateRequest', answers: [201] }, async ({ c, principal, body }) => {
  const { db } = c.get('services');
  // Facts the machine decides on: the proposal (if any), the relationship in force.
  const context: TenderContext = {};
  if (body.originatingProposalId) {
    const proposal = await loadDocument<MatchProposal>(db, matchProposal, body.originatingProposalId);
    const participants = proposal ? [proposal.offerOwnerOrganizationId, proposal.requestOwnerOrganizationId] : [];
    if (proposal && participants.includes(principal.organizationId)) {
      context.proposal = { id: proposal.id, status: proposal.status, capacityOfferId: proposal.capacityOfferId, loadRequestId: proposal.loadRequestId, participants };
      if (!body.terms && proposal.status === 'accepted') {
        const [offer, request] = await Promise.all([
          loadDocument<CapacityOffer>(db, capacityOffer, proposal.capacityOfferId),
          loadDocument<LoadRequest>(db, loadRequest, proposal.loadRequestId),
        ]);
        const terms = offer && request ? prefilledTerms(offer, request) : undefined;
        if (!terms) throw new Problem('VALIDATION_FAILED', 'the proposal\u2019s listings name no price: give the terms', { errors: [{ pointer: '/terms', message: 'is required' }] });
        // Made of the listings' validated terms (their units the listing schemas allow).
        body.terms = terms as Body<'TransportTenderTerms'>;
      }
    }
  }
  // Gate 4 for the proposal: a proposal the caller takes no part in does not exist for it.
  if (body.originatingProposalId && !context.proposal) throw notFound('match proposal');
  if (!body.terms) throw new Problem('VALIDATION_FAILED', 'terms are required unless the tender follows an accepted proposal', { errors: [{ pointer: '/terms', message: 'is required' }] });
  checkTerms(body.terms, '/terms');
  const relationship = await relationshipInForce(db, principal.organizationId, body.executingOrganizationId);
  if (relationship) context.relationship = relationship;
  precheckCreate(c, resource, body, context);
  return runCommand(c, { resource, name: 'create', payload: body, context, view: viewFor(resource, principal) });
});

listRoute(transportTenders, resource, { links: { proposal: 'originatingProposalId' }, owners: true });

getRoute(transportTenders, resource, access(resource.scopes.read));

operation(transportTenders, { method: 'GET', path: '/:id/revisions', access: access(resource.scopes.read), answers: [200] }, async ({ c, resource: doc }) => {
  return c.json({ items: doc.revisions, nextCursor: null });
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

commandRoute(transportTenders, resource, 'issue', { body: 'CommonCommand', access: access(resource.scopes.write), context: tenderRelationship });
commandRoute(transportTenders, resource, 'counterpropose', {
  path: 'counterproposals',
  body: 'TransportTenderCounterproposalRequest',
  access: access('tenders:decide'),
  payload: (_c, body) => (checkTerms(body.terms, '/terms'), body),
});
commandRoute(transportTenders, resource, 'decide', {
  path: 'decisions',
  body: 'TransportTenderDecisionRequest',
  access: access('tenders:decide'),
  context: tenderRelationship,
  settle: (c, snapshot, commandId) => settleAcceptance(c, snapshot as TransportTender, commandId),
});
commandRoute(transportTenders, resource, 'withdraw', { body: 'CommonReasonedCommand', access: access(resource.scopes.write) });
