// The workflow code for workers the tests start in their own process: the bundle the global setup
// built once (WORKFLOW_BUNDLE_FILE, test/setup/stack-setup.ts) when there is one, else workflows/
// itself (a project run alone, without that setup). The bundle carries the flow-metrics
// interceptor, whose sink such a worker registers as a no-op.
import { PRELOADED_MODULES, WORKFLOWS_PATH } from '../workflows/bundle';

export function testWorkflowCode() {
  const codePath = process.env.WORKFLOW_BUNDLE_FILE;
  return codePath
    ? { workflowBundle: { codePath }, sinks: { flowMetrics: { flowEnded: { fn() {} } } } }
    : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: { preloadModules: PRELOADED_MODULES } };
}
