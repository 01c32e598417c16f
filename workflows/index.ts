// Every workflow type the worker registers. One entity workflow per resource kind.
export { partnerRelationshipWorkflow } from './partner-relationship';
