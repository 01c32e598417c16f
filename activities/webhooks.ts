// The activity of webhook delivery's workflow path (workflows/webhooks.ts): the pump of
// delivery/webhook-pump.ts, heartbeating.
import { Context } from '@temporalio/activity';
import type { PumpInput, PumpResult } from '../domain/webhooks';
import type { WebhookDelivery } from '../delivery/webhook-pump';

/** The activity of the workflow path: the pump, heartbeating (a pump whose worker died is retried within seconds). */
export function createWebhookActivities(delivery: WebhookDelivery) {
  return {
    async pumpWebhookSubscription(input: PumpInput): Promise<PumpResult> {
      const heartbeat = setInterval(() => {
        try {
          Context.current().heartbeat();
        } catch {
          // Called outside an activity (a unit test): nothing to tell.
        }
      }, 1000);
      try {
        return await delivery.pump(input, { path: 'workflow' });
      } finally {
        clearInterval(heartbeat);
      }
    },
  };
}
