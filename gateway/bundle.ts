// The gateway's workflow code as one bundle (webpack, seconds of CPU): built by the gateway at start
// unless GATEWAY_WORKFLOW_BUNDLE_FILE names one built beforehand (npm start builds it into the data
// folder, the test suite once for the run), as workflows/bundle.ts does for the broker's.
import { writeFileSync } from 'node:fs';
import type { Logger } from '@temporalio/common';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';

const WORKFLOWS_PATH = require.resolve('./workflows');
/** webpack's report stays out of the log; a failed bundle still rejects with its errors. */
const quiet: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

/** The bundle the worker runs: the prebuilt one when there is one, else built now. */
export async function gatewayWorkflowBundle(bundleFile: string | undefined): Promise<WorkflowBundleOption> {
  if (bundleFile) return { codePath: bundleFile };
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet });
  return { code };
}

export async function writeGatewayWorkflowBundle(file: string): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet });
  writeFileSync(file, code);
}
