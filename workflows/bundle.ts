// The workflow code a worker runs, as one bundle: workflows/ with its interceptors. A worker
// bundles it at start (webpack, seconds of CPU) unless given a bundle built beforehand
// (WORKFLOW_BUNDLE_FILE, scripts/bundle-workflows.ts): the test suite builds one for all the
// brokers and in-process workers it starts. Loaded by the worker process only, never bundled.
import { writeFileSync } from 'node:fs';
import type { Logger } from '@temporalio/common';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';

export const WORKFLOWS_PATH = require.resolve('./index');
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('./interceptors')];
/**
 * Modules evaluated once per worker thread and shared by every workflow in it, instead of once per
 * workflow (the SDK's reusable context evaluates the rest of the bundle again for each workflow it
 * creates or replays: 8 ms of CPU a create, docs/benchmarks.md "A profile of one command"). Only
 * modules without per-workflow state belong here, and the SDK freezes what they export: the
 * date and recurrence libraries and the domain (pure machines and constants; it reads no clock and
 * keeps nothing between calls). workflows/ itself is never shared: it holds each workflow's state.
 */
export const PRELOADED_MODULES = ['luxon', 'rrule', 'async-mutex', require.resolve('../domain/registry')];

/** What Worker.create takes for our workflows: the prebuilt bundle when there is one, else the sources to bundle. */
export function workflowCode(bundleFile: string | undefined): { workflowBundle: WorkflowBundleOption } | { workflowsPath: string; interceptorModules: string[]; preloadModules: string[] } {
  return bundleFile ? { workflowBundle: { codePath: bundleFile } } : { workflowsPath: WORKFLOWS_PATH, interceptorModules: WORKFLOW_INTERCEPTOR_MODULES, preloadModules: PRELOADED_MODULES };
}

/** Builds the bundle into `file` (the interceptors included, as a prebuilt bundle must carry them). */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, preloadModules: PRELOADED_MODULES, logger: quiet });
  writeFileSync(file, code);
}

/** webpack's report stays out of the log; a failed bundle still rejects with its errors. */
const quiet: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };
