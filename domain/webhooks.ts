// Webhook delivery, the pure part: the retry schedule, the event-type filter, the names the
// subscription's workflow and its activity share (docs/webhooks.md). No I/O: the workflow sandbox,
// the activities and the API read it.
import { PURGED_RECORD_KIND } from './retention';
import { OPERATOR_AUDIENCE } from './machine';
import { RESOURCES } from './registry';

/** The kind that names subscriptions in workflow ids, event types and the feed. */
export const WEBHOOK_KIND = 'webhook-subscription';
export const WEBHOOK_COLLECTION = 'webhook-subscriptions';
/** The workflow type of a subscription's delivery workflow (never rename: runs are long-lived). */
export const WEBHOOK_WORKFLOW = 'webhookSubscriptionWorkflow';
export const webhookWorkflowId = (subscriptionId: string): string => `${WEBHOOK_KIND}/${subscriptionId}`;

/** How the API and the watchers start (or poke) a subscription's workflow: its id, type and input. */
export function webhookWorkflowStart(subscriptionId: string, settings: { taskQueue: string; idlePumpSeconds: number }) {
  return {
    workflowId: webhookWorkflowId(subscriptionId),
    taskQueue: settings.taskQueue,
    args: [{ subscriptionId, idlePumpMs: settings.idlePumpSeconds * 1000 }] as [WebhookWorkflowInput],
    signal: WEBHOOK_POKE,
    signalArgs: [] as [],
  };
}
/** Signal: events, a redelivery or a change of the subscription may have made work. */
export const WEBHOOK_POKE = 'poke';

/**
 * The audience entries whose events an organization's feed and webhooks carry: its own id, and
 * the operator's entry for a protocol operator (an operator organization's `exchange:admin`).
 */
export function feedAudiences(organizationId: string, operator: boolean): string[] {
  return operator ? [organizationId, OPERATOR_AUDIENCE] : [organizationId];
}

/** The scope that manages subscriptions (the specification lists connectors:manage without a use). */
export const WEBHOOK_SCOPE = 'connectors:manage';

/** The kinds of events a connector may receive: those its scopes may read on their own endpoints (gate 6). */
export function deliverableKinds(scopes: readonly string[]): string[] {
  // The registry's records (organizations, connectors) are on the protocol operator's feed too.
  const kinds = RESOURCES.filter((r) => (r.readScopes ?? [r.scopes.read]).some((s) => scopes.includes(s)) || (r.operatorFeed && scopes.includes('exchange:admin'))).map((r) => r.kind);
  if (scopes.includes(WEBHOOK_SCOPE)) kinds.push(WEBHOOK_KIND);
  // The tombstones of purged records go to those who could read the records, whatever their scopes (api/retention.ts).
  kinds.push(PURGED_RECORD_KIND);
  return kinds;
}

/**
 * The delay before each attempt of one delivery, Svix's schedule: at once, then 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h. After the last attempt fails the delivery is dead-lettered
 * (about 27.6 hours after the first).
 */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length;
/** A Retry-After beyond this is not waited for: the next attempt comes after this long instead. */
export const MAX_RETRY_AFTER_SECONDS = 36000;

/**
 * When the attempt after `failedAttempts` failures is due, or undefined when the delivery is to be
 * dead-lettered. `random` in [0, 1) spreads retries by up to ±10 % so that a target coming back
 * is not hit by every retry at once; a Retry-After (429, 503) replaces the scheduled delay.
 */
export function nextAttemptDelayMs(failedAttempts: number, random: number, retryAfterSeconds?: number): number | undefined {
  if (failedAttempts >= MAX_ATTEMPTS) return undefined;
  if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000;
  const base = RETRY_SCHEDULE_SECONDS[failedAttempts] * 1000;
  return Math.round(base * (0.9 + 0.2 * random));
}

/**
 * Whether an event type passes a subscription's filter: an empty filter passes everything; an
 * entry is an exact type (`pcx.capacity-offer.published.v1`) or a prefix (`pcx.capacity-offer.*`,
 * `pcx.*`).
 */
export function typeMatches(filter: readonly string[], type: string): boolean {
  if (filter.length === 0) return true;
  return filter.some((entry) => (entry.endsWith('.*') ? type.startsWith(entry.slice(0, -1)) : entry === type));
}

/** The kind a filter entry names (`pcx.<kind>...`), or undefined for `pcx.*`. */
export function kindOfFilter(entry: string): string | undefined {
  const kind = entry.split('.')[1];
  return kind === '*' ? undefined : kind;
}

/** What one pump of a subscription did, for its workflow to decide when to pump next. */
export interface PumpResult {
  /** deleted: the workflow ends; inactive: it waits for a poke (a PATCH active=true sends one). */
  state: 'active' | 'inactive' | 'deleted';
  /** Work was left for the next pump at once (a full batch of events, or the time budget spent). */
  more: boolean;
  /** Epoch milliseconds of the earliest retry due, if any. */
  nextDueAt?: number;
}

/** The input of a subscription's delivery workflow (kept across continue-as-new). */
export interface WebhookWorkflowInput {
  subscriptionId: string;
  /** How often it pumps without a poke (WEBHOOK_IDLE_PUMP_SECONDS); default a minute. */
  idlePumpMs?: number;
}

export interface PumpInput {
  subscriptionId: string;
  /** The workflow's clock (epoch ms): attempts are due, and dead-lettered, by it. */
  now: number;
}
