// References for bench/relationships.ts.
//
// noopWorkflow: an Update handler that does nothing, in a workflow that waits forever, so an
// executeUpdate on it costs only Temporal's own round trip (client -> server -> worker workflow
// task -> server -> client), without our validator, local activity, search attributes or HTTP.
//
// entityShapedWorkflow: the same, plus what every command of workflows/entity.ts makes Temporal do
// besides the round trip: a local activity (here one that does nothing; the real one writes the
// projection and the outbox) and an upsert of the four keyword search attributes. It separates
// the cost of that workflow shape from the cost of our own code around it.
//
// entityActivityWorkflow: the same with a regular activity instead of the local one, the shape of
// workflows/entity.ts since side effects moved to regular activities (docs/decisions.md, "Commands
// are Workflow Updates; side effects only from recorded activities"). Beside entityShapedWorkflow it
// prices that switch.
import { condition, defineUpdate, proxyActivities, proxyLocalActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';

export const noopUpdate = defineUpdate<null, [unknown]>('noop');

export async function noopWorkflow(): Promise<void> {
  setHandler(noopUpdate, () => null);
  await condition(() => false);
}

export const benchActivities = { async nothing(_arg: unknown): Promise<void> {} };

const { nothing } = proxyLocalActivities<typeof benchActivities>({ startToCloseTimeout: '10 seconds' });
const regular = proxyActivities<typeof benchActivities>({ startToCloseTimeout: '10 seconds' });

export async function entityShapedWorkflow(): Promise<void> {
  await entityShape(nothing);
}

export async function entityActivityWorkflow(): Promise<void> {
  await entityShape(regular.nothing);
}

async function entityShape(sideEffect: (arg: unknown) => Promise<void>): Promise<void> {
  let n = 0;
  setHandler(noopUpdate, async (arg) => {
    await sideEffect(arg);
    // The search attributes of core/temporal.ts (registered by the broker), a new status each time.
    upsertSearchAttributes({ PcxResourceKind: ['bench'], PcxOwnerOrganizationId: ['org-a'], PcxPartnerOrganizationId: ['org-b'], PcxStatus: [`s${n++}`] });
    return null;
  });
  await condition(() => false);
}
