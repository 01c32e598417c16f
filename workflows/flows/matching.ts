// The matching flows: a listing's candidates turned into proposals, and a proposal's acceptance or
// end carried to its offer and request. Each command goes through `send` (deterministic command
// ids, so a crash or a retry never applies a step twice), under optimistic concurrency on the
// versions the match observed: a step refused as stale re-reads, re-evaluates and tries again.
// The serialisation points are the entities themselves: the offer keeps its allocations within
// its capacity and refuses a second proposal of one pair; the request accepts exactly one
// proposal and refuses it once withdrawn.
import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities, CommandOutcome, MatchCandidate } from '../../domain/activities';
import { capacityOffer } from '../../domain/capacity-offer';
import { executionReference, referenceIdOf } from '../../domain/execution-reference';
import { workflowUuid7 } from '../ids';
import { loadRequest } from '../../domain/load-request';
import type { Refusal } from '../../domain/machine';
import { matchProposal, type CreatePayload, type MatchProposal, type ProposeOutcome, type ProposePairInput } from '../../domain/match-proposal';
import { bestEffort, FLOW_ACTIVITIES, flowFailed, gaveUp, inOrder, send, step } from './commands';
import type { AcceptInput, EndProposalsInput, EndRelationshipProposalsInput, MatchInput, MatchRelationshipInput, ReleaseInput } from '../../domain/flows';

const { findMatches, evaluatePair, openListingsOf, openProposalsOf, createResource, prepareReference } = proxyActivities<Activities>(FLOW_ACTIVITIES);

/** Re-evaluations after stale versions before a pair is left for the next run. */
const ATTEMPTS = 5;


/** Matching for one listing: every compatible pair proposed, best scores first. */
export async function matchListingFlow(input: MatchInput): Promise<string[]> {
  const candidates = await findMatches(input);
  const created: string[] = [];
  for (const [index, c] of candidates.entries()) {
    const outcome = await proposePair(c, `pair${index}`);
    if (outcome.ok) created.push(outcome.proposal.id);
  }
  return created;
}

/** Matching for the open listings of two organizations whose relationship came into force. */
export async function matchRelationshipFlow(input: MatchRelationshipInput): Promise<number> {
  // A relationship accepted before its effectiveFrom: its partners' listings become candidates
  // only then (a timer).
  const wait = input.notBefore ? Date.parse(input.notBefore) - Date.now() : 0;
  if (wait > 0) await sleep(wait);
  const listings = await openListingsOf(input.organizationIds);
  let created = 0;
  for (const [l, listing] of listings.entries()) {
    const candidates = await findMatches(listing);
    for (const [index, c] of candidates.entries()) if ((await proposePair(c, `l${l}.pair${index}`)).ok) created++;
  }
  return created;
}

/**
 * Proposes one pair: reserve the capacity on the offer (partialMatch or fullMatch at the observed
 * offer version), move the request to proposed (at the observed request version), then create the
 * proposal. A stale version re-reads and re-evaluates the pair; a refusal of the request releases
 * the reservation first. A pair another run proposed meanwhile is refused by the offer
 * (DUPLICATE_MATCH): no duplicate proposal (request rule 2).
 */
export async function proposePair(first: MatchCandidate, prefix: string, options: { repeat?: boolean; createdBy?: CreatePayload['createdBy'] } = {}): Promise<ProposeOutcome> {
  let c = first;
  let refusal: Refusal = { code: 'STALE_RESOURCE_VERSION', detail: 'the offer or the request kept changing' };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const s = `${prefix}.${attempt}`;
    const proposalId = workflowUuid7();
    const capacity = c.evaluation.capacityCompatibility;
    const reserve = step(capacityOffer, c.offer.id, capacity.exhaustsOffer ? 'fullMatch' : 'partialMatch', {
      proposalId, requestId: c.request.id, organizationId: c.request.ownerOrganizationId, capacity: capacity.allocation,
      // A retry of this very attempt (its reservation was released) may reserve the pair again.
      explicit: options.repeat || attempt > 0,
    }, { step: `${s}.reserve`, expectedVersion: c.offer.version });
    const propose = step(loadRequest, c.request.id, 'propose', { proposalId, offerId: c.offer.id, organizationId: c.offer.ownerOrganizationId }, { step: `${s}.propose`, expectedVersion: c.request.version });
    const payload: CreatePayload = {
      capacityOfferId: c.offer.id,
      capacityOfferVersion: c.offer.version,
      offerOwnerOrganizationId: c.offer.ownerOrganizationId,
      loadRequestId: c.request.id,
      loadRequestVersion: c.request.version,
      requestOwnerOrganizationId: c.request.ownerOrganizationId,
      validUntil: c.validUntil,
      score: c.evaluation.score,
      compatibility: c.evaluation.compatibility,
      routeCompatibility: c.evaluation.routeCompatibility as unknown as Record<string, unknown>,
      capacityCompatibility: c.evaluation.capacityCompatibility as unknown as Record<string, unknown>,
      rationale: c.evaluation.rationale,
      requiredDecisionPolicy: c.policy,
      createdBy: options.createdBy ?? { kind: 'broker' },
    };
    const create = { create: { kind: matchProposal.kind, id: proposalId, payload, commandId: `${workflowInfo().workflowId}:${s}.create`, correlationId: workflowInfo().workflowId } };
    // Whatever ends the attempt after the reservation (and then the request's place) gives them
    // back; a release of what was never held is refused, harmlessly.
    const undo = async (requestToo: boolean) => {
      await bestEffort('release the reservation', () => send(capacityOffer, c.offer.id, 'unmatch', { proposalId }, { step: `${s}.unreserve` }));
      if (requestToo) await bestEffort('release the request', () => send(loadRequest, c.request.id, 'proposalEnded', { proposalId }, { step: `${s}.unpropose` }));
    };

    // The three steps in one activity, stopping at the first refusal: the outcomes of those sent.
    let reserved: CommandOutcome;
    let proposed: CommandOutcome | undefined;
    let created: CommandOutcome | undefined;
    try {
      [reserved, proposed, created] = await inOrder([reserve, propose, create]);
    } catch (err) {
      if (!gaveUp(err)) throw err;
      await undo(true);
      throw flowFailed(`the pair ${c.offer.id} / ${c.request.id} could not be proposed: ${err.cause?.message ?? err.message}; the reservation and the request were released`, err);
    }
    if (!reserved.ok) {
      refusal = reserved.refusal;
      if (!(await reread(reserved))) return { ok: false, refusal };
      continue;
    }
    if (!proposed!.ok) {
      refusal = proposed!.refusal;
      await undo(false);
      if (!(await reread(proposed!))) return { ok: false, refusal };
      continue;
    }
    if (!created!.ok) {
      // Refused (its payload did not hold): nothing waits for it; give back what the pair held.
      await undo(true);
      return { ok: false, refusal: created!.refusal };
    }
    return { ok: true, proposal: created!.snapshot as MatchProposal };
  }
  return { ok: false, refusal };

  // A stale version: read the pair again; go on only if it is still compatible and proposable.
  async function reread(outcome: CommandOutcome & { ok: false }): Promise<boolean> {
    if (outcome.refusal.code !== 'STALE_RESOURCE_VERSION') return false;
    // `repeat`: this flow's own earlier attempt marked the pair as proposed on the offer.
    const again = await evaluatePair({ offerId: c.offer.id, requestId: c.request.id, repeat: true, initiator: options.createdBy?.kind === 'participant' ? options.createdBy.organizationId : undefined });
    if (!again.candidate) return false;
    c = again.candidate;
    return true;
  }
}

/**
 * The acceptance of a proposal once every required organization accepted: the offer commits its
 * reservation, the request becomes matched (exactly one accepted proposal; refused if it was
 * withdrawn or matched first), then the proposal is committed. Any refusal abandons the commit,
 * which releases what was held. The offer and the request serialise this against their own
 * withdrawals, so a committed match is never reversed by a later withdraw.
 */
export async function acceptProposalFlow(input: AcceptInput): Promise<'committed' | 'abandoned'> {
  // What the offer and the request committed, given back when the match cannot be completed.
  const undo = async () => {
    await bestEffort('release the offer', () => send(capacityOffer, input.offerId, 'unmatch', { proposalId: input.proposalId }, { step: 'undo-offer' }));
    await bestEffort('release the request', () => send(loadRequest, input.requestId, 'unmatch', { proposalId: input.proposalId }, { step: 'undo-request' }));
  };
  try {
    const steps = [
      step(capacityOffer, input.offerId, 'commit', { proposalId: input.proposalId }, { step: 'offer' }),
      step(loadRequest, input.requestId, 'accept', { proposalId: input.proposalId, offerId: input.offerId, organizationId: input.offerOwnerOrganizationId }, { step: 'request' }),
      step(matchProposal, input.proposalId, 'commit', {}, { step: 'commit' }),
    ];
    // The three steps in one activity, stopping at the first refusal: the outcomes of those sent.
    const [offer, request, committed] = (await inOrder(steps)) as [CommandOutcome, CommandOutcome?, CommandOutcome?];
    if (!offer.ok || !request!.ok) {
      const which = offer.ok ? 'load request' : 'capacity offer';
      const refused = (offer.ok ? request! : offer) as CommandOutcome & { ok: false };
      await send(matchProposal, input.proposalId, 'abandonCommit', { reason: `the ${which} no longer allowed this match: ${refused.refusal.detail}`, code: refused.refusal.code }, { step: 'abandon' });
      return 'abandoned';
    }
    if (!committed!.ok) {
      // The proposal is no longer committing (only its deadline ends that, after this flow's
      // whole life): the offer and the request give back the match they made for it.
      await undo();
      return 'abandoned';
    }
  } catch (err) {
    if (!gaveUp(err)) throw err;
    await undo();
    await bestEffort('end the proposal', () => send(matchProposal, input.proposalId, 'abandonCommit', { reason: 'the acceptance could not be committed (a step kept failing)', code: 'COMMIT_FAILED' }, { step: 'abandon-failed' }));
    throw flowFailed(`the acceptance of proposal ${input.proposalId} could not be committed; the offer and the request were released and the proposal withdrawn`, err);
  }
  // The accepted match gets its execution reference (one per accepted proposal: a derived id). The
  // match holds whatever happens here; a participant can still POST the reference.
  try {
    const facts = await prepareReference(input.proposalId);
    if (facts) {
      await createResource({ kind: executionReference.kind, id: referenceIdOf(input.proposalId), payload: facts.payload, context: facts.context, commandId: `${workflowInfo().workflowId}:reference`, correlationId: workflowInfo().workflowId });
    }
  } catch (err) {
    if (!gaveUp(err)) throw err;
    throw flowFailed(`proposal ${input.proposalId} is accepted, but its execution reference could not be created (a participant may POST /execution-references)`, err);
  }
  return 'committed';
}

/** A proposal ended without acceptance: its reservation and its place on the request are released. */
export async function releaseProposalFlow(input: ReleaseInput): Promise<void> {
  // Refusals are expected and harmless: a listing that ended keeps nothing to release.
  await send(capacityOffer, input.offerId, 'unmatch', { proposalId: input.proposalId }, { step: 'offer' });
  if (!input.releaseRequest) return;
  const request = await send(loadRequest, input.requestId, 'proposalEnded', { proposalId: input.proposalId }, { step: 'request' });
  // An acceptance that matched the request for this proposal and then never committed it: the
  // request is published again (refused, harmlessly, when another proposal matched it).
  if (!request.ok && request.refusal.extensions?.currentState === 'matched') {
    await send(loadRequest, input.requestId, 'unmatch', { proposalId: input.proposalId }, { step: 'request-unmatch' });
  }
}

/** Proposals that end with their listing, or because another proposal of the request was accepted. */
export async function endProposalsFlow(input: EndProposalsInput): Promise<void> {
  // Every proposal gets its command even if one cannot be reached; the flow then fails naming them.
  const unreached: string[] = [];
  for (const [index, id] of input.proposalIds.entries()) {
    const sent = await bestEffort(`end proposal ${id}`, () =>
      send(matchProposal, id, input.command, { reason: input.reason, ...(input.byProposalId ? { byProposalId: input.byProposalId } : {}) }, { step: `end${index}` }),
    );
    if (!sent) unreached.push(id);
  }
  if (unreached.length) throw flowFailed(`proposals could not be ended (${input.command}): ${unreached.join(', ')}`);
}

/** Open proposals made under a relationship that is no longer in force end: withdrawn, their reservations released. */
export async function endRelationshipProposalsFlow(input: EndRelationshipProposalsInput): Promise<number> {
  const proposalIds = await openProposalsOf(input.relationshipId, input.at);
  await endProposalsFlow({ proposalIds, command: 'withdrawByBroker', reason: input.reason });
  return proposalIds.length;
}


/**
 * A pair a participant proposes (POST /match-proposals): the same evaluation and the same steps
 * as the broker's, with the participant as initiator; allowed for a pair the broker proposed
 * before, never while one of its proposals is open.
 */
export async function proposePairFlow(input: ProposePairInput): Promise<ProposeOutcome | { ok: false; incompatible: true; evaluation: unknown }> {
  const { candidate, evaluation, refusal } = await evaluatePair({ offerId: input.offerId, requestId: input.requestId, repeat: true, initiator: input.proposedBy.organizationId });
  if (refusal) return { ok: false, refusal };
  if (!candidate) return { ok: false, incompatible: true, evaluation };
  return proposePair(candidate, 'pair', { repeat: true, createdBy: { kind: 'participant', ...input.proposedBy } });
}
