// Every workflow type the worker registers. One entity workflow per resource kind.
export { partnerRelationshipWorkflow } from './partner-relationship';
export { capacityOfferWorkflow } from './capacity-offer';
export { loadRequestWorkflow } from './load-request';
