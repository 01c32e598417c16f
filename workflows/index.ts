// Every workflow type the worker registers: one entity workflow per resource kind (the generic
// runEntity of ./entity.ts with the kind's definition from domain/, listed in domain/registry.ts)
// and the cross-resource flows. The exported names are the workflow types: never rename one that
// has running workflows.
import type { EntityInput } from '../domain/resource';
import { runEntity } from './entity';
import { partnerRelationship, type PartnerRelationship } from '../domain/partner-relationship';
import { capacityOffer, type CapacityOffer } from '../domain/capacity-offer';
import { loadRequest, type LoadRequest } from '../domain/load-request';
import { matchProposal, type MatchProposal } from '../domain/match-proposal';
import { transportTender, type TransportTender } from '../domain/transport-tender';
import { transportCommitment, type TransportCommitment } from '../domain/transport-commitment';
import { executionHandover, type ExecutionHandover } from '../domain/execution-handover';
import { executionReference, type ExecutionReference } from '../domain/execution-reference';

export async function partnerRelationshipWorkflow(input: EntityInput<PartnerRelationship>) {
  return runEntity(partnerRelationship, input);
}
export async function capacityOfferWorkflow(input: EntityInput<CapacityOffer>) {
  return runEntity(capacityOffer, input);
}
export async function loadRequestWorkflow(input: EntityInput<LoadRequest>) {
  return runEntity(loadRequest, input);
}
export async function matchProposalWorkflow(input: EntityInput<MatchProposal>) {
  return runEntity(matchProposal, input);
}
export async function transportTenderWorkflow(input: EntityInput<TransportTender>) {
  return runEntity(transportTender, input);
}
export async function transportCommitmentWorkflow(input: EntityInput<TransportCommitment>) {
  return runEntity(transportCommitment, input);
}
export async function executionHandoverWorkflow(input: EntityInput<ExecutionHandover>) {
  return runEntity(executionHandover, input);
}
export async function executionReferenceWorkflow(input: EntityInput<ExecutionReference>) {
  return runEntity(executionReference, input);
}

export * from './flows';
