// The workflow code a worker runs, as one bundle: workflows/ with its interceptors. A worker
// bundles it at start (webpack, seconds of CPU) unless given a bundle built beforehand
// (WORKFLOW_BUNDLE_FILE, scripts/bundle-workflows.ts): the test suite builds one for all the
// brokers and in-process workers it starts. Loaded by the worker process only, never bundled.
import { writeFileSync } from 'node:fs';
import type { Logger } from '@temporalio/common';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';

export const WORKFLOWS_PATH = require.resolve('./index');
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('./interceptors')];

/** What Worker.create takes for our workflows: the prebuilt bundle when there is one, else the sources to bundle. */
export function workflowCode(bundleFile: string | undefined): { workflowBundle: WorkflowBundleOption } | { workflowsPath: string; interceptorModules: string[] } {
  return bundleFile ? { workflowBundle: { codePath: bundleFile } } : { workflowsPath: WORKFLOWS_PATH, interceptorModules: WORKFLOW_INTERCEPTOR_MODULES };
}

/** Builds the bundle into `file` (the interceptors included, as a prebuilt bundle must carry them). */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: quiet });
  writeFileSync(file, code);
}

/** webpack's report stays out of the log; a failed bundle still rejects with its errors. */
const quiet: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };
