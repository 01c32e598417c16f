// Flows of a recurring series (domain/listing-series.ts). The series' clock hands its due
// occurrences to publishOccurrencesFlow, which creates and publishes each as an ordinary listing in
// the owner's name: the listing id derives from (series, key), every command id from this flow's
// id and the key, so a crash or a retry anywhere creates and publishes each occurrence once. An
// occurrence its owner's rules refuse to publish (its window already passed, no relationship in
// force) is withdrawn as a draft with the refusal as its reason, so that nothing lingers unseen.
// withdrawOccurrencesFlow withdraws the occurrences of an ended series that have not begun; one
// with anything committed (or matched) is left as it is.
import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities, CommandOutcome } from '../../domain/activities';
import { capacityOffer } from '../../domain/capacity-offer';
import type { ListingContext, ListingCreateContext } from '../../domain/listing';
import type { PublishOccurrencesInput, WithdrawOccurrencesInput } from '../../domain/listing-series';
import { loadRequest } from '../../domain/load-request';
import { bestEffort, FLOW_ACTIVITIES, flowFailed, inOrder, step } from './commands';

const { hasRelationshipInForce, listingStanding } = proxyActivities<Activities>(FLOW_ACTIVITIES);

const resourceOf = (kind: 'capacity-offer' | 'load-request') => (kind === 'capacity-offer' ? capacityOffer : loadRequest);

/** What became of each occurrence: published (now or before), or why not. */
export type OccurrenceResult = { key: string; listingId: string; outcome: 'published' | 'notPublished'; reason?: string };

export async function publishOccurrencesFlow(input: PublishOccurrencesInput): Promise<OccurrenceResult[]> {
  const resource = resourceOf(input.kind);
  const { workflowId } = workflowInfo();
  // Publishing to partners needs a relationship in force (domain/listing.ts publish): asked once.
  const needsRelationship = input.occurrences.some((o) => (o.payload.visibility as { mode?: string } | undefined)?.mode !== 'open');
  const publishContext: ListingContext = { ownerHasActiveRelationship: needsRelationship ? await hasRelationshipInForce(input.ownerOrganizationId) : false };
  const results: OccurrenceResult[] = [];
  for (const o of input.occurrences) {
    const context: ListingCreateContext = { occurrence: { seriesId: input.seriesId, key: o.key } };
    const create = { create: { kind: resource.kind, id: o.listingId, payload: o.payload, context, actor: input.actor, commandId: `${workflowId}:create-${o.key}`, correlationId: workflowId } };
    // In the owner's name, so with the version the flow observed: the draft it just created.
    const publish = step(resource, o.listingId, 'publish', {}, { step: `publish-${o.key}`, actor: input.actor, context: publishContext, expectedVersion: 1 });
    let outcomes: CommandOutcome[] = await inOrder([create, publish]);
    // Created already (by an earlier run of this flow's steps): publish it all the same.
    if (outcomes.length === 1) outcomes = [outcomes[0], ...(await inOrder([publish]))];
    const published = outcomes[1];
    if (published.ok) {
      results.push({ key: o.key, listingId: o.listingId, outcome: 'published' });
      continue;
    }
    // Published before (a retried flow) or ended since: nothing to do.
    const status = published.current?.status ?? (published.refusal.extensions as { currentState?: string } | undefined)?.currentState;
    if ((published.refusal.code === 'INVALID_STATE_TRANSITION' || published.refusal.code === 'STALE_RESOURCE_VERSION') && status !== undefined && status !== 'draft') {
      results.push({ key: o.key, listingId: o.listingId, outcome: 'published' });
      continue;
    }
    const reason = `occurrence ${o.key} of series ${input.seriesId} could not be published: ${published.refusal.detail}`;
    const discarded = await bestEffort(`withdraw the unpublished occurrence ${o.listingId}`, () =>
      inOrder([step(resource, o.listingId, 'withdraw', { reason, reasonCode: published.refusal.code }, { step: `discard-${o.key}`, actor: input.actor, expectedVersion: 1 })]),
    );
    if (!discarded) throw flowFailed(`${reason}; and its draft could not be withdrawn`);
    results.push({ key: o.key, listingId: o.listingId, outcome: 'notPublished', reason });
  }
  return results;
}

export async function withdrawOccurrencesFlow(input: WithdrawOccurrencesInput): Promise<number> {
  const resource = resourceOf(input.kind);
  let withdrawn = 0;
  const unreached: string[] = [];
  for (const o of input.occurrences) {
    const sent = await bestEffort(`withdraw occurrence ${o.listingId}`, async () => {
      // In the owner's name, so with the version observed: read from the read model, and read again
      // when the listing moved on meanwhile (its proposals), a few times at most. One with anything
      // committed (an offer with a committed allocation, a matched request) never changes, and
      // the listing's own rules refuse what has ended already.
      for (let attempt = 0, waits = 0, waited = 0; attempt < WITHDRAW_ATTEMPTS; ) {
        const standing = await listingStanding(input.kind, o.listingId);
        // Not there yet: the series recorded it as published, so its publish flow is still on its
        // way (a series ended just after resuming). Waited for, else that flow would publish it
        // after the end; one whose flow gave up before creating it is never there.
        if (!standing && waited < CREATE_WAIT_MS) {
          const pause = Math.min(STALE_PAUSE_MS * 2 ** waits++, 30000);
          await sleep(pause);
          waited += pause;
          continue;
        }
        if (!standing || standing.committed) return;
        const [outcome] = await inOrder([step(resource, o.listingId, 'withdraw', { reason: input.reason, reasonCode: input.reasonCode }, { step: `withdraw-${o.key}-${attempt}`, actor: input.actor, expectedVersion: standing.resourceVersion })]);
        if (outcome?.ok) withdrawn++;
        if (outcome?.ok || outcome?.refusal.code !== 'STALE_RESOURCE_VERSION') return;
        attempt++;
        await sleep(STALE_PAUSE_MS * attempt);
      }
    });
    if (!sent) unreached.push(o.listingId);
  }
  if (unreached.length) throw flowFailed(`occurrences of series ${input.seriesId} could not be withdrawn: ${unreached.join(', ')}`);
  return withdrawn;
}

/** The read model follows a listing's change within moments: the pause before reading it again. */
const STALE_PAUSE_MS = 500;
/** A listing busy with proposals moves on between two attempts; after this many it is left to lapse. */
const WITHDRAW_ATTEMPTS = 5;
/** How long an occurrence's listing is waited for: a publish flow's step gives up within 5 minutes (FLOW_ACTIVITIES). */
const CREATE_WAIT_MS = 5 * 60 * 1000;
