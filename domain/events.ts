// Every event the broker emits: its CloudEvents type, the resource it is about, the schema of its
// `data` (what its `dataschema` names) and what emits it. Each resource kind lists its own in its
// definition (`events`, beside the machine that emits them); the webhook subscriptions' are here.
// test/unit/machines/harness.ts fails a transition that emits a type this catalogue lacks, and the
// AsyncAPI document (api/asyncapi-document.ts) describes each of these. Pure data, as the rest of domain/.

import { RESOURCES } from './registry';

export interface EventEntry {
  /** The resource kind the event is about (its subject's collection). */
  kind: string;
  /** The schema of `data`: a schema file, or `<file>#/$defs/<Def>` for an append-only record. */
  data: string;
  /** What emits it (the specification's "Emitted by", or our decision where it shows none). */
  emittedBy: string;
}

const about = (kind: string, emittedBy: string, data = kind): EventEntry => ({ kind, data, emittedBy });

/** Events of the webhook subscriptions, which are not a resource kind of the registry. */
const WEBHOOK_EVENTS: Readonly<Record<string, EventEntry>> = {
  'pcx.webhook-subscription.disabled.v1': about('webhook-subscription', 'the broker disabling a subscription (target gone, failing, connector inactive)'),
  'pcx.webhook-subscription.ping.v1': about('webhook-subscription', 'POST /webhook-subscriptions/{id}/ping (to the target only, never in the feed)', 'webhook-subscription#/$defs/Ping'),
};

/** Events of the retention purge and erasure (activities/retention.ts), which no machine emits. */
const RETENTION_EVENTS: Readonly<Record<string, EventEntry>> = {
  'pcx.purged-record.recorded.v1': about('purged-record', 'the retention purge removing a record at the end of its period (to those who could read it; subject purged-records/{id})'),
  'pcx.execution-handover.contacts-erased.v1': about('execution-handover', 'the erasure of a final handover\'s contact persons (POST /execution-handovers/{id}/contact-erasures, or the retention policy\'s personal data period)'),
  'pcx.user.name-erased.v1': about('user', 'the erasure of a removed user\'s name (POST /users/{id}/name-erasures, or the default retention policy\'s personal data period)'),
};

export const EVENTS: Readonly<Record<string, EventEntry>> = {
  ...Object.fromEntries(
    RESOURCES.flatMap((resource) => Object.entries(resource.events ?? {}).map(([type, event]) => [type, { kind: resource.kind, data: event.data ?? resource.kind, emittedBy: event.emittedBy }])),
  ),
  ...WEBHOOK_EVENTS,
  ...RETENTION_EVENTS,
};
