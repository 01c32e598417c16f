// The reference for bench/relationships.ts: a workflow whose Update handler does nothing and which
// waits forever, so an executeUpdate on it costs only Temporal's own round trip (client -> server
// -> worker workflow task -> server -> client), without our validator, local activity, search
// attributes or HTTP layer.
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const noopUpdate = defineUpdate<null, [unknown]>('noop');

export async function noopWorkflow(): Promise<void> {
  setHandler(noopUpdate, () => null);
  await condition(() => false);
}
