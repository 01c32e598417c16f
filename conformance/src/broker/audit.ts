// The run-wide audits: not what one check made, but everything each organization was shown during
// the whole run (every list page, single read, command answer and feed event A, B and C received),
// judged against what the specification lets that organization see. A leak of a resource no check
// asked about is found as surely as one of the check's own.
//
// What the kit can judge without knowing the implementation's field names beyond the
// specification's envelope (ownerOrganizationId, status) and its own bodies:
//   visibility  an organization never sees another's draft ("draft (visible only to the owner)");
//               a resource whose visibility names organizations is never shown to one it does not
//               name; A, never C's partner, is shown nothing of C's. (What the stranger C is shown
//               of A's and B's is IS-2's, over its lists and feed, so that one bug is reported by
//               one check.)
//   disclosure  the restricted values the kit plants in every offer (price amount 900) and request
//               (delivery address "Kade 4") never reach anyone but their owner before a proposal
//               between them was accepted: not in a read, a list, a proposal or an event.
import type { Exchange } from '../traffic';
import { must, type World } from './world';
import { namesOrganization } from './names';

/** One thing an organization was shown: a resource (or an event's data) in one answer. */
interface Shown {
  exchange: number;
  party: string;
  item: Record<string, unknown>;
  where: string;
}

const PARTIES = new Set(['A', 'B', 'C']);

/** Everything A, B and C were shown in successful answers: list items, single resources, events' data. */
export function shownItems(exchanges: Exchange[]): Shown[] {
  const out: Shown[] = [];
  for (const x of exchanges) {
    if (!PARTIES.has(x.party) || x.status < 200 || x.status >= 300 || !x.responseBody || typeof x.responseBody !== 'object') continue;
    const path = new URL(x.url).pathname;
    if (path.startsWith('/oauth2/')) continue;
    const body = x.responseBody as Record<string, unknown>;
    const where = `${x.method} ${path}`;
    if (Array.isArray(body.items)) {
      for (const item of body.items) {
        if (!item || typeof item !== 'object') continue;
        // A feed's events: the resource is the event's data.
        const data = (item as Record<string, unknown>).specversion !== undefined ? (item as Record<string, unknown>).data : item;
        if (data && typeof data === 'object') out.push({ exchange: x.n, party: x.party, item: data as Record<string, unknown>, where });
      }
    } else if (typeof body.id === 'string') {
      out.push({ exchange: x.n, party: x.party, item: body, where });
    }
  }
  return out;
}

const ownerOf = (item: Record<string, unknown>) => (typeof item.ownerOrganizationId === 'string' ? item.ownerOrganizationId : undefined);

/**
 * Visibility: drafts of others, resources shown outside their visibility, anything of C's shown to
 * A (what the stranger C is shown of the pair is IS-2's).
 */
export function visibilityFindings(world: World, shown: Shown[]): string[] {
  const idOf: Record<string, string> = { A: world.a.id, B: world.b.id, C: world.c.id };
  const findings: string[] = [];
  for (const s of shown) {
    const viewer = idOf[s.party];
    const owner = ownerOf(s.item);
    const at = `exchange ${s.exchange} (${s.where}, ${s.party}): ${String(s.item.id)}`;
    // A and C are never partners in a run: A is shown nothing that names C and not A (B's relationship with C, say).
    if (s.party === 'A' && namesOrganization(s.item, [world.c.id]) && !namesOrganization(s.item, [world.a.id])) findings.push(`${at} names C, whose partner A never is`);
    if (!owner || owner === viewer) continue;
    if (s.item.status === 'draft') findings.push(`${at} is another organization's draft`);
    const visibility = s.item.visibility as { organizationIds?: unknown } | undefined;
    if (Array.isArray(visibility?.organizationIds) && !visibility!.organizationIds.includes(viewer)) findings.push(`${at} is shown outside its visibility (${visibility!.organizationIds.join(', ')})`);
  }
  return findings;
}

/** Disclosure: the kit's restricted values shown to anyone but their owner before acceptance. */
export function disclosureFindings(world: World, shown: Shown[]): string[] {
  const idOf: Record<string, string> = { A: world.a.id, B: world.b.id, C: world.c.id };
  const findings: string[] = [];
  const accepted = acceptances(world, shown);
  // Only what this run made is judged: an earlier run's offer may have been accepted before it.
  const ours = createdIn(world.recorder.exchanges);
  for (const s of shown) {
    const viewer = idOf[s.party];
    const owner = ownerOf(s.item);
    // An event's data or a resource without an owner named cannot be judged.
    if (!owner || owner === viewer) continue;
    const text = JSON.stringify(s.item);
    const leaked = [text.includes('"amount":900') ? 'the price' : '', text.includes('Kade 4') ? 'the delivery address' : ''].filter(Boolean);
    if (!leaked.length) continue;
    // Disclosure may follow acceptance: allowed from the exchange at which a proposal naming this resource was accepted by both.
    // The resource itself, or what it names (an offer, a request, a proposal: any top-level ...Id).
    const ids = Object.entries(s.item).filter(([k, v]) => (k === 'id' || /Id$/.test(k)) && typeof v === 'string').map(([, v]) => v as string);
    if (!ids.some((id) => ours.has(id))) continue;
    const acceptedAt = Math.min(...ids.map((id) => accepted.get(id) ?? Infinity));
    if (s.exchange >= acceptedAt) continue;
    findings.push(`exchange ${s.exchange} (${s.where}, ${s.party}): ${String(s.item.id)} shows ${leaked.join(' and ')} before any acceptance`);
  }
  return findings;
}

/** The offers and requests this run created (their ids, from the creates' answers). */
function createdIn(exchanges: Exchange[]): Set<string> {
  const ids = new Set<string>();
  for (const x of exchanges) {
    const path = new URL(x.url).pathname;
    if (x.method === 'POST' && x.status === 201 && (path === '/capacity-offers' || path === '/load-requests') && typeof (x.responseBody as { id?: unknown })?.id === 'string') ids.add((x.responseBody as { id: string }).id);
  }
  return ids;
}

/** Each organization looks at what it may see now (its lists and the start of its feed), so that the audits have this run's state too. */
export async function lookAround(world: World): Promise<void> {
  const looks: Array<[typeof world.a, string[]]> = [
    [world.a, ['/load-requests']],
    [world.b, ['/capacity-offers', '/match-proposals', '/events']],
    [world.c, ['/capacity-offers', '/load-requests', '/match-proposals', '/partner-relationships', '/events']],
  ];
  for (const [party, paths] of looks) for (const path of paths) await must(party.get(`${path}?limit=200`), 200, `${party.name} lists ${path}`);
}

/**
 * When each resource was reported accepted by the implementation itself: a proposal shown as
 * accepted (or committed) in any answer, from that exchange on, for the proposal and the offer and
 * request it names; and what the kit accepted. Disclosure may follow from then on.
 */
function acceptances(world: World, shown: Shown[]): Map<string, number> {
  const at = new Map(world.acceptedAt);
  for (const s of shown) {
    const accepted = s.item.status === 'accepted' || s.item.decisionState === 'COMMITTED';
    if (!accepted || typeof s.item.capacityOfferId !== 'string' || typeof s.item.loadRequestId !== 'string') continue;
    for (const id of [s.item.id, s.item.capacityOfferId, s.item.loadRequestId] as string[]) if ((at.get(id) ?? Infinity) > s.exchange) at.set(id, s.exchange);
  }
  return at;
}
