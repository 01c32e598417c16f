// The gateway's workflow: one per inbound message (its inbox entry's id is the workflow id), so
// that the Temporal UI shows each message's path and a crash of any process at any step resumes it
// where it stood. Each step is an activity keyed by the entry: mapping (parse, check, map, or
// quarantine), submitting to the exchange (Idempotency-Keys derived from the entry), and
// acknowledging (the answer the sender gets). Deterministic: no I/O here.
import { proxyActivities } from '@temporalio/workflow';
import type { GatewayActivities } from './activities';

// Retried with backoff, never given up on silently: an entry that cannot be submitted (the broker
// restarting) stays visible as `mapped` in the inbox and in the Temporal UI.
const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' };

// Local work (parsing, one transaction): a step a killed worker held is retried after seconds.
const { mapMessage, acknowledgeMessage } = proxyActivities<GatewayActivities>({ startToCloseTimeout: '10 seconds', retry });

// Calls to the broker, whose SDK retries on its own: the step heartbeats, so a killed worker's
// call is taken over within seconds, and its Idempotency-Keys make the second attempt safe.
const { submitMessage } = proxyActivities<GatewayActivities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '5 seconds', retry });

/** Takes one inbox entry to its end: submitted and acknowledged, or quarantined and acknowledged. */
export async function adapterMessage(entryId: string): Promise<string> {
  const mapped = await mapMessage(entryId);
  if (mapped === 'mapped') await submitMessage(entryId);
  return acknowledgeMessage(entryId);
}
