// Named cross-resource flows: the workflows a transition starts as its effects on other resources
// (workflows/machine.ts, Effect; their names in ./names.ts). One file per family; each flow is
// exported here and registered by the worker through workflows/index.ts. See
// docs/architecture.md, "Cross-resource flows".
export { acceptProposalFlow, endProposalsFlow, endRelationshipProposalsFlow, matchListingFlow, matchRelationshipFlow, proposePairFlow, releaseProposalFlow } from './matching';
export { commitmentCancelledFlow, commitTenderFlow, handoverToReferenceFlow } from './tenders';
