// The gateway's workflow: one per inbound message (its inbox entry's id is the workflow id), so
// that the Temporal UI shows each message's path and a crash of any process at any step resumes it
// where it stood. Each step is an activity keyed by the entry: mapping (parse, check, map, or
// quarantine), submitting to the exchange (Idempotency-Keys derived from the entry), and
// acknowledging (the answer the sender gets). Deterministic: no I/O here.
import { proxyActivities } from '@temporalio/workflow';
import type { GatewayActivities } from './activities';

const { mapMessage, submitMessage, acknowledgeMessage } = proxyActivities<GatewayActivities>({
  startToCloseTimeout: '2 minutes',
  // The broker may be restarting: retried with backoff, never given up on silently (an entry that
  // cannot be submitted stays visible as `mapped` in the inbox and in the Temporal UI).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['RefusedByExchange'] },
});

/** Takes one inbox entry to its end: submitted and acknowledged, or quarantined and acknowledged. */
export async function adapterMessage(entryId: string): Promise<string> {
  const mapped = await mapMessage(entryId);
  if (mapped === 'mapped') await submitMessage(entryId);
  return acknowledgeMessage(entryId);
}
