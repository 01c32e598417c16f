// Every workflow type the worker registers: one entity workflow per resource kind (the generic
// runEntity of ./entity.ts with the kind's definition from domain/, listed in domain/registry.ts)
// and the cross-resource flows. The exported names are the workflow types: never rename one that
// has running workflows.
import { entityWorkflow } from './entity';
import { partnerRelationship } from '../domain/partner-relationship';
import { capacityOffer } from '../domain/capacity-offer';
import { loadRequest } from '../domain/load-request';
import { matchProposal } from '../domain/match-proposal';
import { transportTender } from '../domain/transport-tender';
import { transportCommitment } from '../domain/transport-commitment';
import { executionHandover } from '../domain/execution-handover';
import { executionReference } from '../domain/execution-reference';

export const partnerRelationshipWorkflow = entityWorkflow(partnerRelationship);
export const capacityOfferWorkflow = entityWorkflow(capacityOffer);
export const loadRequestWorkflow = entityWorkflow(loadRequest);
export const matchProposalWorkflow = entityWorkflow(matchProposal);
export const transportTenderWorkflow = entityWorkflow(transportTender);
export const transportCommitmentWorkflow = entityWorkflow(transportCommitment);
export const executionHandoverWorkflow = entityWorkflow(executionHandover);
export const executionReferenceWorkflow = entityWorkflow(executionReference);

export * from './flows';
