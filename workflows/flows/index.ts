// Named cross-resource flows: the workflows a transition starts as its effects on other resources
// (domain/machine.ts, Effect; their names in domain/flows.ts). One file per family; each flow is
// exported here and registered by the worker through workflows/index.ts. See
// docs/architecture.md, "Cross-resource flows".
import { setWorkflowOptions } from '@temporalio/workflow';
import { FLOWS } from '../../domain/flows';
import * as matching from './matching';
import * as tenders from './tenders';
import * as organizations from './organizations';
import * as series from './series';
import { acceptProposalFlow, endProposalsFlow, endRelationshipProposalsFlow, matchListingFlow, matchRelationshipFlow, proposePairFlow, releaseProposalFlow } from './matching';
import { commitmentCancelledFlow, commitTenderFlow, handoverToReferenceFlow } from './tenders';
import { organizationEndedFlow } from './organizations';
import { publishOccurrencesFlow, withdrawOccurrencesFlow } from './series';

export { acceptProposalFlow, endProposalsFlow, endRelationshipProposalsFlow, matchListingFlow, matchRelationshipFlow, proposePairFlow, releaseProposalFlow };
export { commitmentCancelledFlow, commitTenderFlow, handoverToReferenceFlow };
export { organizationEndedFlow };
export { publishOccurrencesFlow, withdrawOccurrencesFlow };

// Any error a flow's code throws fails the flow, visibly, instead of failing its workflow task,
// which Temporal would retry forever (a plain Error, a TypeError of a bug). What a failed flow
// held is given back by the deadlines of the states waiting for it (docs/decisions.md, "Every
// flow ends"). Set for every flow domain/flows.ts names, found in the family files by that name:
// a flow named there without code fails the worker's start, and test/unit/flows.test.ts checks
// that this file exports exactly the named flows.
const CODE: Record<string, unknown> = { ...matching, ...tenders, ...organizations, ...series };
for (const name of Object.values(FLOWS)) {
  const flow = CODE[name];
  if (typeof flow !== 'function') throw new Error(`the flow ${name} (domain/flows.ts) has no code in workflows/flows/`);
  setWorkflowOptions({ failureExceptionTypes: [Error] }, flow as (...args: any[]) => Promise<unknown>);
}
