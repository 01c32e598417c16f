// Every event the broker emits: its CloudEvents type, the resource it is about, the schema of its
// `data` (what its `dataschema` names) and what emits it. The machines build the types they emit
// from their kind and a name; test/unit/machines/harness.ts fails a transition that emits a type
// this catalogue lacks, and the AsyncAPI document (api/asyncapi.ts) describes each of these.
// Pure data, as the rest of domain/.

export interface EventEntry {
  /** The resource kind the event is about (its subject's collection). */
  kind: string;
  /** The schema of `data`: a schema file, or `<file>#/$defs/<Def>` for an append-only record. */
  data: string;
  /** What emits it (the specification's "Emitted by", or our decision where it shows none). */
  emittedBy: string;
}

const about = (kind: string, emittedBy: string, data = kind): EventEntry => ({ kind, data, emittedBy });

export const EVENTS: Readonly<Record<string, EventEntry>> = {
  'pcx.partner-relationship.requested.v1': about('partner-relationship', 'submit of a relationship (POST /partner-relationships/{id}/request)'),
  'pcx.partner-relationship.activated.v1': about('partner-relationship', 'accept'),
  'pcx.partner-relationship.suspended.v1': about('partner-relationship', 'suspend'),
  'pcx.partner-relationship.reactivated.v1': about('partner-relationship', 'reactivate'),
  'pcx.partner-relationship.terminated.v1': about('partner-relationship', 'reject, withdraw, terminate, or the end of effectiveUntil'),
  'pcx.capacity-offer.published.v1': about('capacity-offer', 'publish'),
  'pcx.capacity-offer.partially-matched.v1': about('capacity-offer', 'partialMatch (the broker reserves part of the capacity for a proposal)'),
  'pcx.capacity-offer.matched.v1': about('capacity-offer', 'fullMatch (the broker reserves the rest of the capacity)'),
  'pcx.capacity-offer.withdrawn.v1': about('capacity-offer', 'withdraw'),
  'pcx.capacity-offer.expired.v1': about('capacity-offer', 'expire (expiresAt reached)'),
  'pcx.capacity-offer.cancelled.v1': about('capacity-offer', 'cancel by a protocol operator'),
  'pcx.load-request.published.v1': about('load-request', 'publish'),
  'pcx.load-request.matched.v1': about('load-request', 'accept (a proposal accepted by every party the policy requires)'),
  'pcx.load-request.withdrawn.v1': about('load-request', 'withdraw'),
  'pcx.load-request.expired.v1': about('load-request', 'expire (expiresAt reached)'),
  'pcx.load-request.cancelled.v1': about('load-request', 'cancel by a protocol operator'),
  'pcx.match-proposal.created.v1': about('match-proposal', 'propose (matching, or POST /match-proposals by a participant)'),
  'pcx.match-proposal.accepted.v1': about('match-proposal', 'the decision that completes the decision policy'),
  'pcx.match-proposal.rejected.v1': about('match-proposal', 'a reject decision'),
  'pcx.match-proposal.expired.v1': about('match-proposal', 'validUntil reached while open'),
  'pcx.match-proposal.superseded.v1': about('match-proposal', 'another proposal of its load request accepted'),
  'pcx.match-proposal.withdrawn.v1': about('match-proposal', 'a withdraw decision, or its offer or request ended'),
  'pcx.match-decision.recorded.v1': about('match-proposal', 'POST /match-proposals/{id}/decisions', 'match-proposal#/$defs/MatchDecision'),
  'pcx.transport-tender.issued.v1': about('transport-tender', 'issue'),
  'pcx.transport-tender.countered.v1': about('transport-tender', 'a counterproposal (a new immutable revision)'),
  'pcx.transport-tender.rejected.v1': about('transport-tender', 'a reject decision'),
  'pcx.transport-tender.withdrawn.v1': about('transport-tender', 'withdraw'),
  'pcx.transport-tender.expired.v1': about('transport-tender', 'expiry reached before every required accept'),
  'pcx.transport-commitment.created.v1': about('transport-commitment', 'the accept that completes the tender policy'),
  'pcx.transport-commitment.amended.v1': about('transport-commitment', 'the accept of an amendment (a new commitment version)'),
  'pcx.transport-commitment.cancelled.v1': about('transport-commitment', 'cancel'),
  'pcx.execution-handover.offered.v1': about('execution-handover', 'POST /execution-handovers'),
  'pcx.execution-handover.acknowledged.v1': about('execution-handover', 'POST /execution-handovers/{id}/acknowledgements'),
  'pcx.execution-reference.created.v1': about('execution-reference', 'POST /execution-references, or the broker when a proposal is accepted'),
  'pcx.execution-reference.linked.v1': about('execution-reference', 'link'),
  'pcx.execution-reference.cancelled.v1': about('execution-reference', 'cancel'),
  'pcx.execution.completed.v1': about('execution-reference', 'complete (or the first final outcome)'),
  'pcx.execution.updated.v1': about('execution-reference', 'POST /execution-updates (a milestone)'),
  'pcx.execution-outcome.recorded.v1': about('execution-reference', 'POST /execution-outcomes', 'execution-reference#/$defs/ExecutionOutcome'),
  'pcx.execution-outcome.corrected.v1': about('execution-reference', 'POST /execution-outcomes/{id}/corrections', 'execution-reference#/$defs/ExecutionOutcome'),
  'pcx.webhook-subscription.disabled.v1': about('webhook-subscription', 'the broker disabling a subscription (target gone, failing, connector inactive)'),
  'pcx.webhook-subscription.ping.v1': about('webhook-subscription', 'POST /webhook-subscriptions/{id}/ping (to the target only, never in the feed)', 'webhook-subscription#/$defs/Ping'),
};
