// workflows/flows/index.ts exports exactly the flows domain/flows.ts names, each registered to fail
// visibly on any error (failureExceptionTypes): a flow exported without a name, or named without
// code, cannot slip through.
import { FLOWS } from '../../domain/flows';
import * as flows from '../../workflows/flows';

describe('the flows', () => {
  it('are exactly the ones domain/flows.ts names', () => {
    const exported = Object.entries(flows).filter(([, value]) => typeof value === 'function').map(([name]) => name);
    expect(exported.sort()).toEqual(Object.values(FLOWS).sort());
  });

  it('each fails the flow, not its workflow task, on any error', () => {
    for (const name of Object.values(FLOWS)) {
      const flow = (flows as Record<string, unknown>)[name] as { workflowDefinitionOptions?: { failureExceptionTypes?: unknown[] } };
      expect({ name, failureExceptionTypes: flow.workflowDefinitionOptions?.failureExceptionTypes }).toEqual({ name, failureExceptionTypes: [Error] });
    }
  });
});
