// Every workflow type the worker registers: one entity workflow per resource kind (its definition
// is in the kind's file and listed in workflows/registry.ts) and the cross-resource flows.
export { partnerRelationshipWorkflow } from './partner-relationship';
export { capacityOfferWorkflow } from './capacity-offer';
export { loadRequestWorkflow } from './load-request';
export { matchProposalWorkflow } from './match-proposal';
export { transportTenderWorkflow } from './transport-tender';
export { transportCommitmentWorkflow } from './transport-commitment';
export { executionHandoverWorkflow } from './execution-handover';
export { executionReferenceWorkflow } from './execution-reference';
export * from './flows';
