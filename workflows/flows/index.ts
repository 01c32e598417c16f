// Named cross-resource flows: the workflows a transition starts as its effects on other resources
// (domain/machine.ts, Effect; their names in domain/flows.ts). One file per family; each flow is
// exported here and registered by the worker through workflows/index.ts. See
// docs/architecture.md, "Cross-resource flows".
import { setWorkflowOptions } from '@temporalio/workflow';
import { acceptProposalFlow, endProposalsFlow, endRelationshipProposalsFlow, matchListingFlow, matchRelationshipFlow, proposePairFlow, releaseProposalFlow } from './matching';
import { commitmentCancelledFlow, commitTenderFlow, handoverToReferenceFlow } from './tenders';

export { acceptProposalFlow, endProposalsFlow, endRelationshipProposalsFlow, matchListingFlow, matchRelationshipFlow, proposePairFlow, releaseProposalFlow };
export { commitmentCancelledFlow, commitTenderFlow, handoverToReferenceFlow };

// Any error a flow's code throws fails the flow, visibly, instead of failing its workflow task,
// which Temporal would retry forever (a plain Error, a TypeError of a bug). What a failed flow
// held is given back by the deadlines of the states waiting for it (docs/decisions.md, "Every
// flow ends").
const FLOWS: Array<(input: any) => Promise<unknown>> = [
  acceptProposalFlow, endProposalsFlow, endRelationshipProposalsFlow, matchListingFlow, matchRelationshipFlow, proposePairFlow, releaseProposalFlow,
  commitmentCancelledFlow, commitTenderFlow, handoverToReferenceFlow,
];
for (const flow of FLOWS) setWorkflowOptions({ failureExceptionTypes: [Error] }, flow);
