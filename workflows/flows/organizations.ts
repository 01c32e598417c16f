// Flows of the registry's records. An organization that ended (the operator's `end`, or its
// adherence period over) takes its open offers and requests off the exchange: each is cancelled by
// the broker with the reason (domain/listing.ts `cancel`), and its open proposals end with it as
// for any listing that ends (endProposalsFlow). Its drafts stay drafts: nobody else sees them.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../domain/activities';
import { capacityOffer } from '../../domain/capacity-offer';
import type { OrganizationEndedInput } from '../../domain/flows';
import { loadRequest } from '../../domain/load-request';
import { bestEffort, FLOW_ACTIVITIES, flowFailed, send } from './commands';

const { openListingsOf } = proxyActivities<Activities>(FLOW_ACTIVITIES);

/** Pages of the read model's open listings, until one brings nothing new (a page holds at most 500). */
const MAX_PAGES = 100;

export async function organizationEndedFlow(input: OrganizationEndedInput): Promise<number> {
  const seen = new Set<string>();
  const unreached: string[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    // A listing cancelled a moment ago may still read open (its projection follows): seen once, sent once.
    const fresh = (await openListingsOf([input.organizationId])).filter((l) => !seen.has(l.id));
    if (fresh.length === 0) break;
    for (const listing of fresh) {
      seen.add(listing.id);
      const step = `cancel-${listing.id}`;
      const payload = { reason: input.reason, reasonCode: 'ORGANIZATION_ENDED' };
      // Refused (already ended by its owner, a timer or a match meanwhile): nothing to do.
      const sent = await bestEffort(`cancel ${listing.kind} ${listing.id}`, () =>
        listing.kind === 'capacity-offer' ? send(capacityOffer, listing.id, 'cancel', payload, { step }) : send(loadRequest, listing.id, 'cancel', payload, { step }),
      );
      if (!sent) unreached.push(listing.id);
    }
  }
  if (unreached.length) throw flowFailed(`listings of ${input.organizationId} could not be cancelled: ${unreached.join(', ')}`);
  return seen.size;
}
