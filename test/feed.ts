// The event feed as a conforming consumer reads it (specification, Events, delivery rules 1-3):
// the whole feed of one organization from its start, and the invariants a consumer relies on.
import type { Connector } from './helpers';

/** Every event the organization's feed holds, oldest first, read page by page from the start. */
export async function wholeFeed(c: Connector): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await c.get(`/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    if (page.status !== 200) throw new Error(`GET /events: ${page.status} ${JSON.stringify(page.body)}`);
    items.push(...page.body.items);
    if (page.body.items.length === 0) return items;
    cursor = page.body.nextCursor;
  }
}

/**
 * Delivery rules 1-3 over a feed: ids are unique, and within one subject resourceversion strictly
 * increases from event to event, so a consumer that drops an event at or below the version it
 * applied (rule 2) drops none of them.
 */
export function expectCausalFeed(events: any[]): void {
  const ids = new Set<string>();
  const last = new Map<string, { version: number; type: string }>();
  for (const e of events) {
    if (ids.has(e.id)) throw new Error(`event ${e.id} (${e.type}) appears twice in the feed`);
    ids.add(e.id);
    const before = last.get(e.subject);
    if (before && !(e.resourceversion > before.version)) {
      throw new Error(`${e.subject}: ${e.type} at resourceversion ${e.resourceversion} follows ${before.type} at ${before.version}; a consumer would drop it`);
    }
    last.set(e.subject, { version: e.resourceversion, type: e.type });
  }
}
