// The tender flows. commitTenderFlow turns an accepted revision into a transport commitment: the
// payload and its digest are prepared from the read model, the offer and the request record the
// commitment against the capacity the originating proposal committed (never consumed a second
// time), the commitment is created, an amended one is superseded, and the tender learns its
// commitment. commitmentCancelledFlow releases what a cancelled commitment held.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { uuid7 } from '../ids';
import { referenceIdOf } from '../execution-reference';
import { send } from './commands';
import type { CommitmentCancelledInput, CommitTenderInput, HandoverToReferenceInput } from './names';

const { prepareCommitment, createResource } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

const TENDER = 'transport-tender';
const COMMITMENT = 'transport-commitment';

export async function commitTenderFlow(input: CommitTenderInput): Promise<'committed' | 'abandoned'> {
  const tender = { kind: TENDER, id: input.tenderId };
  const abandon = async (reason: string) => {
    await send(tender, 'abandonAcceptance', { reason }, { step: 'abandon' });
    return 'abandoned' as const;
  };
  const payload = await prepareCommitment(input);
  if ('refused' in payload) return abandon(payload.refused);
  const commitmentId = uuid7();
  // The capacity was consumed when the proposal was accepted: the listings record the commitment.
  if (!input.previousCommitmentId && input.originatingProposalId) {
    const link = { proposalId: input.originatingProposalId, commitmentId };
    const offer = await send({ kind: 'capacity-offer', id: input.capacityOfferId! }, 'linkCommitment', link, { step: 'offer' });
    if (!offer.ok) return abandon(`the capacity offer refused: ${offer.refusal.detail}`);
    const request = await send({ kind: 'load-request', id: input.loadRequestId! }, 'linkCommitment', link, { step: 'request' });
    if (!request.ok) return abandon(`the load request refused: ${request.refusal.detail}`);
  }
  const created = await createResource({ kind: COMMITMENT, id: commitmentId, payload, commandId: `${workflowInfo().workflowId}:create`, correlationId: workflowInfo().workflowId });
  if (!created.ok) throw new Error(`the commitment could not be created: ${created.refusal.code}`);
  if (input.previousCommitmentId) {
    await send({ kind: COMMITMENT, id: input.previousCommitmentId }, 'supersede', { byCommitmentId: commitmentId }, { step: 'supersede' });
    // The listings now name the new version.
    if (payload.capacity.originatingProposalId) {
      const link = { proposalId: payload.capacity.originatingProposalId, commitmentId };
      await send({ kind: 'capacity-offer', id: payload.capacity.capacityOfferId! }, 'linkCommitment', link, { step: 'offer' });
      await send({ kind: 'load-request', id: payload.capacity.loadRequestId! }, 'linkCommitment', link, { step: 'request' });
    }
  }
  // The match's execution reference names its commitment (none for a direct tender: refused, harmless).
  const proposalId = payload.capacity.originatingProposalId;
  if (proposalId) await send({ kind: 'execution-reference', id: referenceIdOf(proposalId) }, 'attach', { commitmentId }, { step: 'reference' });
  const committed = await send(tender, 'commit', { commitmentId, revision: input.revision }, { step: 'commit' });
  if (!committed.ok) throw new Error(`the tender refused its commitment: ${committed.refusal.code}`);
  return 'committed';
}

export async function commitmentCancelledFlow(input: CommitmentCancelledInput): Promise<void> {
  if (input.proposalId) {
    // Refusals are harmless: a listing that ended holds nothing to release.
    await send({ kind: 'capacity-offer', id: input.offerId! }, 'unmatch', { proposalId: input.proposalId }, { step: 'offer' });
    await send({ kind: 'load-request', id: input.requestId! }, 'unmatch', { proposalId: input.proposalId, commitmentId: input.commitmentId }, { step: 'request' });
  }
  await send({ kind: TENDER, id: input.tenderId }, 'close', { reason: `the commitment was cancelled: ${input.reason}`, commitmentId: input.commitmentId }, { step: 'tender' });
}

/**
 * The match's execution reference learns its handover and the records of both systems: the
 * issuing system's when the package is delivered, the executing system's when it is imported or
 * linked. A reference that has ended (completed, cancelled) keeps what it had: refusals are harmless.
 */
export async function handoverToReferenceFlow(input: HandoverToReferenceInput): Promise<void> {
  const { referenceId, ...payload } = input;
  await send({ kind: 'execution-reference', id: referenceId }, 'attach', payload, { step: 'attach' });
}
