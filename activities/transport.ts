// Read-model work of the tender flows: the payload of a transport commitment, gathered from the
// accepted tender (its revision exactly as presented), the relationship's policy version and the
// capacity the originating proposal committed, with its digest (core/digest.ts).
import type { Queryable } from '../core/db';
import { commitmentDigest } from '../core/digest';
import { capacityOffer, type CapacityOffer } from '../domain/capacity-offer';
import type { CommitTenderInput } from '../domain/flows';
import type { CreatePayload } from '../domain/transport-commitment';
import { transportCommitment, type TransportCommitment } from '../domain/transport-commitment';
import { transportTender, type TransportTender } from '../domain/transport-tender';
import { loadDocument } from '../read-model/projection-document';

export async function prepareCommitment(db: Queryable, input: CommitTenderInput): Promise<CreatePayload | { refused: string }> {
  const tender = await loadDocument<TransportTender>(db, transportTender, input.tenderId);
  if (!tender) return { refused: 'the tender is not in the read model' };
  const revision = tender.revisions.find((r) => r.number === input.revision);
  if (!revision) return { refused: `the tender has no revision ${input.revision}` };
  const previous = input.previousCommitmentId ? await loadDocument<TransportCommitment>(db, transportCommitment, input.previousCommitmentId) : undefined;
  let capacity: CreatePayload['capacity'] = previous?.capacity ?? { state: 'none' };
  if (!previous && input.originatingProposalId) {
    const offer = await loadDocument<CapacityOffer>(db, capacityOffer, input.capacityOfferId!);
    const allocation = offer?.allocations.find((a) => a.proposalId === input.originatingProposalId);
    if (!allocation || allocation.state !== 'committed') return { refused: 'the originating proposal holds no committed capacity on the offer' };
    capacity = { state: 'consumed', originatingProposalId: input.originatingProposalId, capacityOfferId: input.capacityOfferId, loadRequestId: input.loadRequestId, allocation: allocation.capacity };
  }
  const payload: Omit<CreatePayload, 'digest'> = {
    commitmentVersion: (previous?.commitmentVersion ?? 0) + 1,
    ...(previous ? { previousCommitmentId: previous.id } : {}),
    tenderId: tender.id,
    issuingOrganizationId: tender.issuingOrganizationId,
    executingOrganizationId: tender.executingOrganizationId,
    movementScope: tender.movementScope,
    acceptedRevision: { number: revision.number, authorOrganizationId: revision.authorOrganizationId, terms: revision.terms },
    requiredDecisions: input.requiredDecisions,
    decisionPolicy: { mode: tender.requiredDecisionPolicy.mode },
    acceptedAt: input.requiredDecisions.map((d) => d.decidedAt).sort().pop() ?? new Date().toISOString(),
    relationshipId: tender.requiredDecisionPolicy.relationshipId,
    relationshipVersion: tender.requiredDecisionPolicy.relationshipVersion,
    capacity,
    cancellationPolicy: tender.cancellationPolicy,
  };
  return { ...payload, digest: commitmentDigest(payload) };
}

export function createTransportActivities(db: Queryable) {
  return { prepareCommitment: (input: CommitTenderInput) => prepareCommitment(db, input) };
}
