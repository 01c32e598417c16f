// The outbox watcher of every worker process (docs/webhooks.md): the direct path of webhook
// delivery, and the pokes that wake a subscription's workflow. Not an activity: a loop of the
// worker process, started by broker.ts beside the Temporal worker.
import type { Client } from '@temporalio/client';
import type { Db } from '../core/db';
import type { Logger } from '../core/log';
import { WEBHOOK_WORKFLOW, webhookWorkflowStart } from '../domain/webhooks';
import { outboxTail, subscriptionsLeftBehind, subscriptionsOfNewEvents } from '../read-model/webhook-subscriptions';
import type { WebhookDelivery } from './webhook-pump';

/** Direct pumps one watcher runs at once; more subscriptions with new events are left to their workflows. */
const DIRECT_PUMPS = 32;
/** A direct pump starts no attempt after this long: a slow target's backlog goes to its workflow. */
const DIRECT_BUDGET_MS = 5_000;

/**
 * Watches the outbox a few times a second and gets the subscriptions its new events are for
 * pumped: directly in this process when `delivery` is given (the broker's workers), by a poke to
 * the subscription's workflow otherwise and for whatever a direct pump leaves (a retry to
 * schedule, a spent budget, a failure). Every worker runs one; pumps of one subscription by
 * several watchers share its deliveries through claims. A poke is idempotent (signal-with-start
 * also starts a workflow its subscription's creation did not get to); a missed one is made up by
 * the workflows' idle pumps. At start it gets pumped every subscription with pending deliveries
 * or events after its cursor (a watcher that died with its process left them).
 */
export function startWebhookWatcher(deps: {
  db: Db;
  client: Client;
  taskQueue: string;
  idlePumpSeconds: number;
  log: Pick<Logger, 'warn'>;
  delivery?: WebhookDelivery;
  intervalMs?: number;
}): { stop(): Promise<void> } {
  const { db, client, log } = deps;
  let stopped = false;
  let watermark: { tx: string; seq: string } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  /** Subscriptions being pumped directly; `again`: new events came meanwhile, pump once more. */
  const direct = new Map<string, { again: boolean; done: Promise<void> }>();

  const poke = (subscriptionId: string): Promise<void> =>
    client.workflow
      .signalWithStart(WEBHOOK_WORKFLOW, webhookWorkflowStart(subscriptionId, deps))
      .then(() => undefined)
      .catch((err) => log.warn({ subscriptionId, error: String(err) }, 'webhook poke failed'));

  async function pumpDirectly(subscriptionId: string, entry: { again: boolean }): Promise<void> {
    try {
      for (;;) {
        entry.again = false;
        const result = await deps.delivery!.pump({ subscriptionId, now: Date.now() }, { path: 'direct', budgetMs: DIRECT_BUDGET_MS });
        if (result.state !== 'active') return;
        if (entry.again && !stopped) continue;
        // Retries are the workflow's (its timers); so is a backlog this pump had no time for.
        if (result.more || result.nextDueAt !== undefined) await poke(subscriptionId);
        return;
      }
    } catch (err) {
      log.warn({ subscriptionId, error: String(err) }, 'direct webhook pump failed; its workflow takes over');
      await poke(subscriptionId);
    }
  }

  function dispatch(subscriptionIds: string[]): Promise<unknown> {
    const pokes: Promise<void>[] = [];
    for (const id of subscriptionIds) {
      const current = direct.get(id);
      if (current) current.again = true;
      else if (!deps.delivery || stopped || direct.size >= DIRECT_PUMPS) pokes.push(poke(id));
      else {
        const entry = { again: false, done: Promise.resolve() };
        entry.done = pumpDirectly(id, entry).finally(() => direct.delete(id));
        direct.set(id, entry);
      }
    }
    return Promise.all(pokes);
  }

  async function tick(): Promise<void> {
    const tail = await outboxTail(db);
    if (watermark === undefined) {
      // The first tick: from the outbox's visible end on, after what earlier watchers left.
      await dispatch(await subscriptionsLeftBehind(db, tail.xmin));
      watermark = { tx: tail.tx ?? '0', seq: tail.seq ?? '0' };
      return;
    }
    const from = watermark;
    if (tail.tx === null || (from.tx === tail.tx && from.seq === tail.seq)) return;
    watermark = { tx: tail.tx, seq: tail.seq! };
    await dispatch(await subscriptionsOfNewEvents(db, from, tail.xmin));
  }

  const loop = () => {
    if (stopped) return;
    running = tick()
      .catch((err) => log.warn({ error: String(err) }, 'webhook watcher failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, deps.intervalMs ?? 200);
      });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      // Direct pumps end within their budget and one attempt; what they leave, claims and the
      // workflows' pumps take over.
      // Waited for briefly: a claim left by a pump cut short makes only a later retry.
      await Promise.race([Promise.all([...direct.values()].map((d) => d.done)), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    },
  };
}
