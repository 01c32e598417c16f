// The tender flows. commitTenderFlow turns an accepted revision into a transport commitment: the
// payload and its digest are prepared from the read model, the offer and the request record the
// commitment against the capacity the originating proposal committed (never consumed a second
// time), the commitment is created, an amended one is superseded, and the tender learns its
// commitment. commitmentCancelledFlow releases what a cancelled commitment held.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities, CommandOutcome } from '../../domain/activities';
import { capacityOffer } from '../../domain/capacity-offer';
import { executionReference, referenceIdOf } from '../../domain/execution-reference';
import { workflowUuid7 } from '../ids';
import { loadRequest } from '../../domain/load-request';
import { transportCommitment } from '../../domain/transport-commitment';
import { transportTender } from '../../domain/transport-tender';
import { bestEffort, FLOW_ACTIVITIES, flowFailed, gaveUp, send } from './commands';
import type { CommitmentCancelledInput, CommitTenderInput, HandoverToReferenceInput } from '../../domain/flows';

const { prepareCommitment, createResource } = proxyActivities<Activities>(FLOW_ACTIVITIES);


export async function commitTenderFlow(input: CommitTenderInput): Promise<'committed' | 'abandoned'> {
  const commitmentId = workflowUuid7();
  const link = input.originatingProposalId && !input.previousCommitmentId ? { proposalId: input.originatingProposalId, commitmentId } : undefined;
  // Before the commitment exists, a refusal or a step that keeps failing undoes the listings'
  // links and ends the acceptance: the tender is withdrawn (an amendment: back to accepted).
  let linked = false;
  const unlink = async () => {
    if (!link || !linked) return;
    await bestEffort('unlink the offer', () => send(capacityOffer, input.capacityOfferId!, 'unlinkCommitment', link, { step: 'unlink-offer' }));
    await bestEffort('unlink the request', () => send(loadRequest, input.loadRequestId!, 'unlinkCommitment', link, { step: 'unlink-request' }));
  };
  const abandon = async (reason: string) => {
    await unlink();
    await send(transportTender, input.tenderId, 'abandonAcceptance', { reason }, { step: 'abandon' });
    return 'abandoned' as const;
  };
  let created: CommandOutcome;
  let payload: Awaited<ReturnType<typeof prepareCommitment>>;
  try {
    payload = await prepareCommitment(input);
    if ('refused' in payload) return abandon(payload.refused);
    // The capacity was consumed when the proposal was accepted: the listings record the commitment.
    if (link) {
      linked = true;
      const offer = await send(capacityOffer, input.capacityOfferId!, 'linkCommitment', link, { step: 'offer' });
      if (!offer.ok) return abandon(`the capacity offer refused: ${offer.refusal.detail}`);
      const request = await send(loadRequest, input.loadRequestId!, 'linkCommitment', link, { step: 'request' });
      if (!request.ok) return abandon(`the load request refused: ${request.refusal.detail}`);
    }
    created = await createResource({ kind: transportCommitment.kind, id: commitmentId, payload, commandId: `${workflowInfo().workflowId}:create`, correlationId: workflowInfo().workflowId });
    if (!created.ok) return abandon(`the commitment could not be created: ${created.refusal.detail}`);
  } catch (err) {
    if (!gaveUp(err)) throw err;
    await unlink();
    await bestEffort('end the acceptance', () => send(transportTender, input.tenderId, 'abandonAcceptance', { reason: 'the commitment could not be made (a step kept failing)' }, { step: 'abandon-failed' }));
    throw flowFailed(`tender ${input.tenderId}: the commitment could not be made; the acceptance was abandoned`, err);
  }
  // The commitment exists: from here the flow only moves forward (each step is idempotent); one
  // that keeps failing fails the flow, naming it, and the tender's accepting deadline ends it.
  try {
    await completeCommitment(input, payload, commitmentId);
  } catch (err) {
    if (!gaveUp(err)) throw err;
    throw flowFailed(`tender ${input.tenderId}: commitment ${commitmentId} was created, but recording it failed (a step kept failing)`, err);
  }
  const committed = await send(transportTender, input.tenderId, 'commit', { commitmentId, revision: input.revision }, { step: 'commit' });
  if (!committed.ok) throw flowFailed(`tender ${input.tenderId} refused its commitment ${commitmentId}: ${committed.refusal.detail}`);
  return 'committed';
}

/** After the commitment is created: the version it replaces, the listings and the execution reference learn of it. */
async function completeCommitment(input: CommitTenderInput, payload: Exclude<Awaited<ReturnType<typeof prepareCommitment>>, { refused: string }>, commitmentId: string) {
  if (input.previousCommitmentId) {
    await send(transportCommitment, input.previousCommitmentId, 'supersede', { byCommitmentId: commitmentId }, { step: 'supersede' });
    // The listings now name the new version.
    if (payload.capacity.originatingProposalId) {
      const link = { proposalId: payload.capacity.originatingProposalId, commitmentId };
      await send(capacityOffer, payload.capacity.capacityOfferId!, 'linkCommitment', link, { step: 'offer' });
      await send(loadRequest, payload.capacity.loadRequestId!, 'linkCommitment', link, { step: 'request' });
    }
  }
  // The match's execution reference names its commitment (none for a direct tender: refused, harmless).
  const proposalId = payload.capacity.originatingProposalId;
  if (proposalId) await send(executionReference, referenceIdOf(proposalId), 'attach', { commitmentId }, { step: 'reference' });
}

export async function commitmentCancelledFlow(input: CommitmentCancelledInput): Promise<void> {
  if (input.proposalId) {
    // Refusals are harmless: a listing that ended holds nothing to release.
    await send(capacityOffer, input.offerId!, 'unmatch', { proposalId: input.proposalId }, { step: 'offer' });
    await send(loadRequest, input.requestId!, 'unmatch', { proposalId: input.proposalId, commitmentId: input.commitmentId }, { step: 'request' });
  }
  await send(transportTender, input.tenderId, 'close', { reason: `the commitment was cancelled: ${input.reason}`, commitmentId: input.commitmentId }, { step: 'tender' });
}

/**
 * The match's execution reference learns its handover and the records of both systems: the
 * issuing system's when the package is delivered, the executing system's when it is imported or
 * linked. A reference that has ended (completed, cancelled) keeps what it had: refusals are harmless.
 */
export async function handoverToReferenceFlow(input: HandoverToReferenceInput): Promise<void> {
  const { referenceId, ...payload } = input;
  await send(executionReference, referenceId, 'attach', payload, { step: 'attach' });
}
