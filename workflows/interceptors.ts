// Workflow interceptors the worker loads into every workflow (worker.ts). Only flows are measured:
// entity workflows live as long as their resources, and their commands are measured by the API.
import { proxySinks, workflowInfo, isCancellation, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { isFlow, type FlowMetricsSink } from '../domain/flows';

interface PcxSinks extends Sinks {
  flowMetrics: FlowMetricsSink;
}

const { flowMetrics } = proxySinks<PcxSinks>();

/**
 * What a flow's result says about how it ended: a string result as it is ('committed'), a
 * proposal attempt as proposed, refused or incompatible, anything else `completed`.
 */
export function outcomeOf(result: unknown): string {
  if (typeof result === 'string') return result;
  if (result && typeof result === 'object' && 'ok' in result) {
    if ((result as { ok: unknown }).ok) return 'proposed';
    return 'incompatible' in result ? 'incompatible' : 'refused';
  }
  return 'completed';
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        const { workflowType, startTime } = workflowInfo();
        if (!isFlow(workflowType)) return next(input);
        // Workflow time: the time of the task that ended the flow, from the run's start.
        const report = (outcome: string) => flowMetrics.flowEnded(workflowType, outcome, Math.max(0, (Date.now() - startTime.getTime()) / 1000));
        try {
          const result = await next(input);
          report(outcomeOf(result));
          return result;
        } catch (err) {
          report(isCancellation(err) ? 'cancelled' : 'failed');
          throw err;
        }
      },
    },
  ],
});
