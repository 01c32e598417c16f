// The Broker profile: one check list per family of the specification's conformance list, each
// check with the passage it rests on. They drive the broker as three organizations (A and B
// partners, C a stranger) and judge what it answered.
import type { Check, CheckContext } from '../checks';
import type { Reply } from '../traffic';
import { arrange, endOpenRelationships, must, poll, type World } from './world';
import { sameAnswer } from '../traffic';
import { namesOrganization } from './names';
import { hashLeaf, leafOf, loggedValue, noteVerifier, recordDigest, verifyCheckpoint, verifyConsistency, verifyInclusion } from '@pcx/sdk';

const fromHex = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

/** A problem of that kind: status, and a type whose last segment is the kebab-case name. */
function isProblem(r: Reply, status: number | number[], name?: string): boolean {
  const statuses = Array.isArray(status) ? status : [status];
  return statuses.includes(r.status) && (!name || (typeof r.body?.type === 'string' && new RegExp(`[/:]${name}$`).test(r.body.type)));
}
/** A's offer as it was before a refused command: same status, same version. */
async function expectUnchanged(w: World, t: CheckContext, offer: { id: string; status: string; resourceVersion: number }, what: string): Promise<void> {
  const read = await must(w.a.get(`/capacity-offers/${offer.id}`), 200, 'A reads the offer');
  t.expect(read.status === offer.status && read.resourceVersion === offer.resourceVersion, `${what} (${read.status} v${read.resourceVersion})`);
}
/**
 * A withdraw of a newly published offer of A that must be refused: sent with `body` on the version
 * `stale` versions back, its answer judged by `refused` (whether it is the right refusal, and what
 * that is), and the offer unchanged after.
 */
async function refusedWithdraw(w: World, t: CheckContext, send: { body: unknown; stale: number }, refused: (r: Reply, version: number) => [boolean, string], unchanged: string): Promise<void> {
  const offer = await w.publishedOffer();
  const version = offer.resourceVersion - send.stale;
  const r = await w.a.post(`/capacity-offers/${offer.id}/withdraw`, send.body, version);
  const [right, expected] = refused(r, version);
  t.expect(right, `${expected} (got ${said(r)})`);
  await expectUnchanged(w, t, offer, unchanged);
}
/** A request sent twice under one Idempotency-Key, the first required to answer `status` (`what` names it). */
async function sentTwice(t: CheckContext, send: (key: string) => Promise<Reply>, key: string, status: number, what: string) {
  const first = await send(key);
  t.require(first.status === status, `${what}: ${status} (got ${said(first)})`);
  return { first, again: await send(key) };
}
/** A repeat answered with the original answer whole: body and ETag. */
function expectReplayed(t: CheckContext, first: Reply, again: Reply): void {
  const differs = sameAnswer(first, again);
  t.expect(differs.length === 0, `the repeat's answer is the original's, whole: body and ETag${differs.length ? ` (differs at ${differs.slice(0, 5).join(', ')})` : ''}`);
}
const said = (r: Reply) => `${r.status} ${typeof r.body === 'object' ? JSON.stringify(r.body).slice(0, 200) : r.body ?? ''}`;

const BROKER_CHECKS: Array<Check<World>> = [
  // JSON Schema validation
  {
    id: 'SV-1', family: 'schema-validation', mandatory: true,
    title: 'A create whose body breaks the schema is refused with a validation problem, and creates nothing',
    spec: 'Payload semantics: JSON Schema 2020-12 (source of truth for shared payload structures); Errors: categories ... validation',
    async run(w, t) {
      const before = await must(w.a.get('/capacity-offers?limit=200&status=draft'), 200, 'A lists its drafts');
      const r = await w.a.post('/capacity-offers', w.offerBody({ availableCapacity: 'lots', expiresAt: 'tomorrow' }));
      t.expect(r.status === 400 || r.status === 422, `refused with 400 or 422 (got ${said(r)})`);
      t.expect(typeof r.body?.code === 'string', 'the problem has a stable code');
      const after = await must(w.a.get('/capacity-offers?limit=200&status=draft'), 200, 'A lists its drafts again');
      t.expect(after.items.length === before.items.length, 'no draft was created');
    },
  },
  // The answers' conformance to the document is judged over all traffic at the end (cli.ts).

  // Lifecycle transitions
  {
    id: 'LT-1', family: 'lifecycle', mandatory: true,
    title: 'An offer goes draft (v1) -> published (v2) -> withdrawn (v3), each transition recorded',
    spec: 'CapacityOffer: (none) -> draft, resourceVersion 1; draft -> publish -> published, publishedAt recorded, version incremented; published -> withdraw -> withdrawn, withdrawnAt and reason stored',
    async run(w, t) {
      const draft = await must(w.a.post('/capacity-offers', w.offerBody()), 201, 'A creates an offer');
      t.expect(draft.status === 'draft' && draft.resourceVersion === 1, `created as draft v1 (got ${draft.status} v${draft.resourceVersion})`);
      const published = await must(w.a.post(`/capacity-offers/${draft.id}/publish`, undefined, 1), 200, 'publish');
      t.expect(published.status === 'published' && published.resourceVersion === 2 && !!published.publishedAt, `published v2 with publishedAt (got ${published.status} v${published.resourceVersion})`);
      const withdrawn = await must(w.a.post(`/capacity-offers/${draft.id}/withdraw`, { reason: 'conformance' }, 2), 200, 'withdraw');
      t.expect(withdrawn.status === 'withdrawn' && withdrawn.resourceVersion === 3 && !!withdrawn.withdrawnAt, `withdrawn v3 with withdrawnAt (got ${withdrawn.status} v${withdrawn.resourceVersion})`);
      const read = await must(w.a.get(`/capacity-offers/${draft.id}`), 200, 'read it');
      t.expect(read.status === 'withdrawn' && read.resourceVersion === 3, 'a read after the command sees it');
    },
  },
  {
    id: 'LT-2', family: 'lifecycle', mandatory: true,
    title: 'A command not allowed in the current state answers 422 invalid-state-transition and changes nothing',
    spec: 'Any command applied in a state where it is not listed returns 422 with problem type urn:exchange:protocol:error:invalid-state-transition; A withdrawn ... offer is never re-published',
    async run(w, t) {
      const offer = await w.publishedOffer();
      const withdrawn = await must(w.a.post(`/capacity-offers/${offer.id}/withdraw`, { reason: 'conformance' }, offer.resourceVersion), 200, 'withdraw');
      const r = await w.a.post(`/capacity-offers/${offer.id}/publish`, undefined, withdrawn.resourceVersion);
      t.expect(isProblem(r, 422, 'invalid-state-transition'), `publish of a withdrawn offer: 422 invalid-state-transition (got ${said(r)})`);
      await expectUnchanged(w, t, withdrawn, 'still withdrawn, version unchanged');
    },
  },
  {
    id: 'LT-3', family: 'lifecycle', mandatory: true,
    title: 'A withdraw without a reason is refused',
    spec: 'Errors: Missing required reason (suspend, terminate, withdraw, cancel): rejected',
    run: (w, t) => refusedWithdraw(w, t, { body: {}, stale: 0 }, (r) => [r.status >= 400 && r.status < 500, 'refused with a 4xx'], 'still published, version unchanged'),
  },
  {
    id: 'LT-4', family: 'lifecycle', mandatory: true,
    title: 'A relationship goes draft -> requested -> active -> suspended -> active -> terminated, and a terminated one never moves again',
    spec: 'PartnerRelationship: submit, accept, suspend (reason required), reactivate (only the organization that issued the suspension), terminate; A terminated relationship never moves to another state',
    async run(w, t) {
      // B and C: a relationship of their own, ended at the end (C stays a stranger to A).
      const draft = await must(w.b.post('/partner-relationships', { requestingOrganizationId: w.b.id, acceptingOrganizationId: w.c.id, scopes: ['capacity:read'] }), 201, 'B invites C');
      t.expect(draft.status === 'draft', `created as draft (got ${draft.status})`);
      const requested = await must(w.b.post(`/partner-relationships/${draft.id}/request`, undefined, draft.resourceVersion), 200, 'request');
      t.expect(requested.status === 'requested', 'requested');
      const active = await must(w.c.post(`/partner-relationships/${draft.id}/accept`, undefined, requested.resourceVersion), 200, 'C accepts');
      t.expect(active.status === 'active' && !!active.effectiveFrom, 'active, effectiveFrom set');
      const suspended = await must(w.c.post(`/partner-relationships/${draft.id}/suspend`, { reason: 'conformance' }, active.resourceVersion), 200, 'C suspends');
      t.expect(suspended.status === 'suspended', 'suspended');
      const byOther = await w.b.post(`/partner-relationships/${draft.id}/reactivate`, undefined, suspended.resourceVersion);
      t.expect(byOther.status >= 400 && byOther.status < 500, `B may not reactivate C's suspension (got ${said(byOther)})`);
      const reactivated = await must(w.c.post(`/partner-relationships/${draft.id}/reactivate`, undefined, suspended.resourceVersion), 200, 'C reactivates');
      t.expect(reactivated.status === 'active', 'active again');
      const terminated = await must(w.b.post(`/partner-relationships/${draft.id}/terminate`, { reason: 'conformance' }, reactivated.resourceVersion), 200, 'B terminates');
      t.expect(terminated.status === 'terminated' && !!terminated.terminatedAt, 'terminated, terminatedAt set');
      const again = await w.c.post(`/partner-relationships/${draft.id}/reactivate`, undefined, terminated.resourceVersion);
      t.expect(isProblem(again, 422, 'invalid-state-transition'), `a terminated relationship does not move: 422 (got ${said(again)})`);
    },
  },

  // Idempotent retries
  {
    id: 'ID-1', family: 'idempotency', mandatory: true,
    title: 'A create repeated with the same Idempotency-Key and body answers the original outcome, and creates one resource',
    spec: 'Same key and identical payload returns the original outcome; Retried commands are idempotent',
    async run(w, t) {
      const body = w.offerBody();
      const { first, again } = await sentTwice(t, (key) => w.a.post('/capacity-offers', body, undefined, key), w.key('id-1'), 201, 'first create');
      t.expect(again.status === first.status && again.body?.id === first.body.id, `the repeat answers ${first.status} with the same id (got ${again.status} ${again.body?.id})`);
      expectReplayed(t, first, again);
    },
  },
  {
    id: 'ID-2', family: 'idempotency', mandatory: true,
    title: 'The same Idempotency-Key with another body answers 409 and creates nothing',
    spec: 'Same key with a different payload returns 409',
    async run(w, t) {
      const key = w.key('id-2');
      const first = await w.a.post('/capacity-offers', w.offerBody(), undefined, key);
      t.require(first.status === 201, `first create: 201 (got ${said(first)})`);
      const other = await w.a.post('/capacity-offers', w.offerBody({ availableCapacity: { palletSpaces: 2 } }), undefined, key);
      t.expect(other.status === 409, `another body under the key: 409 (got ${said(other)})`);
    },
  },
  {
    id: 'ID-3', family: 'idempotency', mandatory: true,
    title: 'A command repeated with the same Idempotency-Key answers its first outcome, not a stale-version or state error',
    spec: 'Create and command operations accept the header Idempotency-Key ... Same key and identical payload returns the original outcome',
    async run(w, t) {
      const draft = await must(w.a.post('/capacity-offers', w.offerBody()), 201, 'create');
      const { first, again } = await sentTwice(t, (key) => w.a.post(`/capacity-offers/${draft.id}/publish`, undefined, 1, key), w.key('id-3'), 200, 'publish');
      t.expect(again.status === 200 && again.body?.resourceVersion === first.body.resourceVersion, `the repeat: 200, version ${first.body.resourceVersion} (got ${said(again)})`);
      expectReplayed(t, first, again);
    },
  },

  {
    id: 'ID-4', family: 'idempotency', mandatory: true,
    title: 'A create and a command repeated after the resource changed answer their original outcome, not the resource as it is now',
    spec: 'Same key and identical payload returns the original outcome',
    async run(w, t) {
      const body = w.offerBody();
      const createKey = w.key('id-4-create');
      const created = await w.a.post('/capacity-offers', body, undefined, createKey);
      t.require(created.status === 201, `create: 201 (got ${said(created)})`);
      const publishKey = w.key('id-4-publish');
      const published = await w.a.post(`/capacity-offers/${created.body.id}/publish`, undefined, created.body.resourceVersion, publishKey);
      t.require(published.status === 200, `publish: 200 (got ${said(published)})`);
      const withdrawn = await w.a.post(`/capacity-offers/${created.body.id}/withdraw`, { reason: 'conformance' }, published.body.resourceVersion);
      t.require(withdrawn.status === 200, `withdraw: 200 (got ${said(withdrawn)})`);
      // Both repeated now that the offer is withdrawn (version 3).
      const createAgain = await w.a.post('/capacity-offers', body, undefined, createKey);
      const createDiffers = sameAnswer(created, createAgain);
      t.expect(createAgain.status === created.status && createDiffers.length === 0, `the create's repeat: ${created.status} with the draft v1 it made, whole (got ${createAgain.status} ${createAgain.body?.status} v${createAgain.body?.resourceVersion}${createDiffers.length ? `; differs at ${createDiffers.slice(0, 5).join(', ')}` : ''})`);
      const publishAgain = await w.a.post(`/capacity-offers/${created.body.id}/publish`, undefined, created.body.resourceVersion, publishKey);
      const publishDiffers = sameAnswer(published, publishAgain);
      t.expect(publishAgain.status === 200 && publishDiffers.length === 0, `the publish's repeat: 200 with the published v2 it made, whole (got ${publishAgain.status} ${publishAgain.body?.status} v${publishAgain.body?.resourceVersion}${publishDiffers.length ? `; differs at ${publishDiffers.slice(0, 5).join(', ')}` : ''})`);
      const read = await must(w.a.get(`/capacity-offers/${created.body.id}`), 200, 'read it');
      t.expect(read.status === 'withdrawn' && read.resourceVersion === withdrawn.body.resourceVersion, 'the repeats changed nothing');
    },
  },

  // Stale-write rejection
  {
    id: 'SW-1', family: 'stale-writes', mandatory: true,
    title: 'A command with an old If-Match answers 409 stale-resource-version (or 412) and changes nothing',
    spec: 'A stale write returns 409 or 412 with an RFC 9457 body; code STALE_RESOURCE_VERSION with type {problem_base}/stale-resource-version and status 409',
    run: (w, t) => refusedWithdraw(w, t, { body: { reason: 'conformance' }, stale: 1 }, (r, version) => [isProblem(r, 409, 'stale-resource-version') || r.status === 412, `withdraw on version ${version}: 409 stale-resource-version or 412`], 'unchanged'),
  },
  {
    id: 'SW-2', family: 'stale-writes', mandatory: true,
    title: 'Two commands on one version: the first wins, the second answers 409',
    spec: 'Concurrent publish and withdraw: first writer wins, second gets 409 with stale-resource-version',
    async run(w, t) {
      const offer = await w.publishedOffer();
      const [x, y] = await Promise.all([
        w.a.post(`/capacity-offers/${offer.id}/withdraw`, { reason: 'first' }, offer.resourceVersion),
        w.a.post(`/capacity-offers/${offer.id}/withdraw`, { reason: 'second' }, offer.resourceVersion),
      ]);
      const statuses = [x.status, y.status].sort();
      t.expect(statuses[0] === 200 && (statuses[1] === 409 || statuses[1] === 412 || statuses[1] === 422), `one 200 and one 409/412/422 (got ${x.status}, ${y.status})`);
      const read = await must(w.a.get(`/capacity-offers/${offer.id}`), 200, 'read it');
      t.expect(read.resourceVersion === offer.resourceVersion + 1, 'exactly one transition happened');
    },
  },
  {
    id: 'SW-3', family: 'stale-writes', mandatory: true,
    title: 'A decision on a changed proposal is refused, never applied silently',
    spec: 'MatchDecision: A stale version yields a conflict; the server never applies a decision silently to a changed proposal',
    async run(w, t) {
      const m = await w.proposed();
      const first = await must(w.b.post(`/match-proposals/${m.proposal.id}/decisions`, { decision: 'accept' }, m.proposal.resourceVersion), 200, 'B accepts');
      t.require(first.resourceVersion > m.proposal.resourceVersion, 'the decision moved the proposal version');
      const r = await w.a.post(`/match-proposals/${m.proposal.id}/decisions`, { decision: 'accept' }, m.proposal.resourceVersion);
      t.expect(r.status === 409 || r.status === 412, `A deciding on the version before: 409/412 (got ${said(r)})`);
      const read = await must(w.a.get(`/match-proposals/${m.proposal.id}`), 200, 'read it');
      t.expect(read.status === 'open', 'the proposal is still open (not committed by the stale accept)');
    },
  },

  {
    id: 'SW-4', family: 'stale-writes', mandatory: true,
    title: "A read carries the resource's ETag; a command with it as If-Match succeeds and answers the new ETag; the old ETag is then refused",
    spec: 'All state-changing commands require If-Match carrying the current ETag value; State-changing commands carry If-Match (ETag of the resource) or an explicit observed resourceVersion. A stale write returns 409 or 412',
    async run(w, t) {
      const draft = await arrange('a draft offer', () => must(w.a.post('/capacity-offers', w.offerBody()), 201, 'A creates an offer'));
      const read = await w.a.get(`/capacity-offers/${draft.id}`);
      const etag = read.headers.get('etag');
      t.require(read.status === 200 && !!etag, `a read answers an ETag (got ${read.status}, ${etag ?? 'none'})`);
      const published = await w.a.post(`/capacity-offers/${draft.id}/publish`, undefined, etag!);
      t.require(published.status === 200, `publish with If-Match ${etag}: 200 (got ${said(published)})`);
      const next = published.headers.get('etag');
      t.expect(!!next && next !== etag, `the command answers the new ETag (got ${next ?? 'none'} after ${etag})`);
      const again = await w.a.get(`/capacity-offers/${draft.id}`);
      t.expect(again.status === 200 && again.headers.get('etag') === next, `a read then answers that ETag (got ${again.headers.get('etag') ?? 'none'})`);
      // Withdrawing a published offer is allowed: only the version is wrong.
      const stale = await w.a.post(`/capacity-offers/${draft.id}/withdraw`, { reason: 'stale' }, etag!);
      t.expect(stale.status === 409 || stale.status === 412, `withdraw with the old ETag: 409 or 412 (got ${said(stale)})`);
    },
  },

  // Bilateral visibility isolation
  {
    id: 'IS-1', family: 'isolation', mandatory: true,
    title: "A non-partner reads an organization's offer, relationship and proposal as if they did not exist (404)",
    spec: 'Visibility requires an active bilateral PartnerRelationship and a matching scope; A resource that belongs to another organization answers 404, not 403',
    async run(w, t) {
      const m = await w.proposed();
      for (const [what, path] of [
        ['offer', `/capacity-offers/${m.offer.id}`],
        ['request', `/load-requests/${m.request.id}`],
        ['relationship', `/partner-relationships/${w.relationshipId}`],
        ['proposal', `/match-proposals/${m.proposal.id}`],
      ]) {
        const partner = await w.b.get(path.startsWith('/load-requests') ? path : path);
        const stranger = await w.c.get(path);
        t.expect(stranger.status === 404, `C reads the ${what}: 404 (got ${stranger.status})`);
        if (what !== 'request') t.expect(partner.status === 200, `B, a party, reads the ${what}: 200 (got ${partner.status})`);
      }
    },
  },
  {
    id: 'IS-2', family: 'isolation', mandatory: true,
    title: "A non-partner's lists and event feed hold nothing of the pair's: neither what this check made nor anything else of theirs",
    spec: 'Every organization sees only what the specification lets it see: Visibility requires an active bilateral PartnerRelationship',
    async run(w, t) {
      const m = await w.proposed();
      const ids = new Set([m.offer.id, m.request.id, m.proposal.id, w.relationshipId]);
      for (const path of ['/capacity-offers?limit=200', '/load-requests?limit=200', '/match-proposals?limit=200', '/partner-relationships?limit=200']) {
        const page = await must(w.c.get(path), 200, `C lists ${path}`);
        t.expect(!page.items.some((x: any) => ids.has(x.id)), `C's ${path.split('?')[0]} holds none of them`);
        // Not only this check's: nothing of A's or B's at all (C is neither's partner now), but a relationship of C's own.
        const theirs = page.items.filter((x: any) => namesOrganization(x, [w.a.id, w.b.id]) && !namesOrganization(x, [w.c.id]));
        t.expect(theirs.length === 0, `C's ${path.split('?')[0]} holds nothing else of A's or B's either${theirs.length ? ` (${theirs.slice(0, 3).map((x: any) => x.id).join(', ')})` : ''}`);
      }
      let cursor = '';
      const seen: string[] = [];
      for (let i = 0; i < 50; i++) {
        const page = await must(w.c.get(`/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), 200, "C's feed");
        seen.push(...page.items.filter((e: any) => [...ids].some((id) => JSON.stringify(e).includes(id))).map((e: any) => e.id));
        if (!page.items.length || !page.nextCursor || page.nextCursor === cursor) break;
        cursor = page.nextCursor;
      }
      t.expect(seen.length === 0, `C's feed names none of them (found ${seen.length})`);
    },
  },
  {
    id: 'IS-3', family: 'isolation', mandatory: true,
    title: "A non-partner's commands on another organization's resources answer 404 and change nothing",
    spec: 'Resource of another organization, or hidden resource: 404; Payload fields cannot override the organization binding of the authenticated connector',
    async run(w, t) {
      const offer = await w.publishedOffer();
      const r = await w.c.post(`/capacity-offers/${offer.id}/withdraw`, { reason: 'not mine' }, offer.resourceVersion);
      t.expect(r.status === 404, `C withdraws A's offer: 404 (got ${r.status})`);
      const forged = await w.c.post('/partner-relationships', { requestingOrganizationId: w.a.id, acceptingOrganizationId: w.b.id, scopes: ['capacity:read'] });
      t.expect(forged.status >= 400 && forged.status < 500, `C invites in A's name: refused (got ${forged.status})`);
      await expectUnchanged(w, t, offer, 'the offer is unchanged');
    },
  },

  {
    id: 'IS-5', family: 'isolation', mandatory: true,
    title: "When a relationship ends, the former partner loses sight at once: the other's listing reads 404 and its lists no longer hold it",
    spec: 'terminate: sharing stops at once; Visibility requires an active bilateral PartnerRelationship and a matching scope; A resource that belongs to another organization answers 404',
    async run(w, t) {
      // B and C become partners for this check (C stays a stranger to A), and part again.
      const relationship = await arrange('B and C partners', async () => {
        const draft = await must(w.b.post('/partner-relationships', { requestingOrganizationId: w.b.id, acceptingOrganizationId: w.c.id, scopes: ['loads:read', 'capacity:read'] }), 201, 'B invites C');
        const requested = await must(w.b.post(`/partner-relationships/${draft.id}/request`, undefined, draft.resourceVersion), 200, 'B requests');
        return must(w.c.post(`/partner-relationships/${draft.id}/accept`, undefined, requested.resourceVersion), 200, 'C accepts');
      });
      try {
        const request = await w.publishedRequest({ visibility: { mode: 'partners', organizationIds: [w.c.id] } });
        const before = await w.c.get(`/load-requests/${request.id}`);
        t.require(before.status === 200, `while partners, C reads B's request: 200 (got ${before.status})`);
        const listedBefore = await must(w.c.get('/load-requests?limit=200'), 200, 'C lists requests');
        t.expect(listedBefore.items.some((x: any) => x.id === request.id), "while partners, C's list holds it");
        const ended = await must(w.b.post(`/partner-relationships/${relationship.id}/terminate`, { reason: 'conformance' }, relationship.resourceVersion), 200, 'B terminates');
        t.require(ended.status === 'terminated', 'terminated');
        const after = await w.c.get(`/load-requests/${request.id}`);
        t.expect(after.status === 404, `after the end, C reads it: 404 (got ${after.status})`);
        const listedAfter = await must(w.c.get('/load-requests?limit=200'), 200, 'C lists requests again');
        t.expect(!listedAfter.items.some((x: any) => x.id === request.id), "after the end, C's list does not hold it");
        await must(w.b.post(`/load-requests/${request.id}/withdraw`, { reason: 'conformance' }, (await must(w.b.get(`/load-requests/${request.id}`), 200, 'B reads it')).resourceVersion), 200, 'B withdraws it');
      } finally {
        await endOpenRelationships(w.b, w.c).catch(() => undefined);
      }
    },
  },

  // Field-level disclosure
  {
    id: 'FD-1', family: 'disclosure', mandatory: true,
    title: 'A partner reads a published offer without its restricted details; the owner sees them',
    spec: 'A proposal never discloses protected fields merely because a potential match exists; Exact addresses and customer identity are not required before acceptance; price ... excluded unless policy explicitly permits disclosure',
    async run(w, t) {
      const offer = await w.publishedOffer();
      const own = await must(w.a.get(`/capacity-offers/${offer.id}`), 200, 'A reads it');
      const partner = await must(w.b.get(`/capacity-offers/${offer.id}`), 200, 'B reads it');
      t.expect(JSON.stringify(own).includes('"amount":900'), 'the owner sees its price');
      t.expect(!JSON.stringify(partner).includes('"amount":900'), "the partner's read holds no price");
      const listed = await must(w.b.get('/capacity-offers?limit=200'), 200, 'B lists offers');
      const item = listed.items.find((x: any) => x.id === offer.id);
      t.expect(!!item && !JSON.stringify(item).includes('"amount":900'), "the partner's list holds the offer, without its price");
    },
  },
  {
    id: 'FD-2', family: 'disclosure', mandatory: true,
    title: "Before acceptance, while a proposal is open, the carrier sees no exact address of the shipper's load: in the read, the list and the proposal",
    spec: 'Exact addresses and customer identity are not required before acceptance; A proposal never discloses protected fields merely because a potential match exists',
    async run(w, t) {
      const m = await w.proposed();
      const before = await must(w.a.get(`/load-requests/${m.request.id}`), 200, 'A reads the request');
      t.expect(!JSON.stringify(before).includes('Kade 4'), 'no delivery address in the read before acceptance');
      const listed = await must(w.a.get('/load-requests?limit=200'), 200, 'A lists requests');
      const item = listed.items.find((x: any) => x.id === m.request.id);
      t.expect(!!item && !JSON.stringify(item).includes('Kade 4'), "A's list holds the request, without the address");
      const proposal = await must(w.a.get(`/match-proposals/${m.proposal.id}`), 200, 'A reads the proposal');
      t.expect(!JSON.stringify(proposal).includes('Kade 4') && !JSON.stringify(proposal).includes('"amount":900'), 'the proposal discloses neither');
      const proposals = await must(w.b.get('/match-proposals?limit=200'), 200, 'B lists proposals');
      t.expect(!JSON.stringify(proposals.items.find((x: any) => x.id === m.proposal.id) ?? {}).includes('"amount":900'), "B's list of proposals shows no price of A's");
    },
  },

  // Duplicate and out-of-order events
  {
    id: 'EV-1', family: 'events', mandatory: true,
    title: 'Feed events are CloudEvents with every required attribute',
    spec: 'Events are CloudEvents. Required attributes: a globally unique id; source; subject; type (versioned); time (RFC 3339); dataschema; extension attributes organizationid, resourceversion, correlationid',
    async run(w, t) {
      await w.publishedOffer();
      const events = await feed(w);
      t.require(events.length > 0, `A's feed has events (${events.length})`);
      const missing = new Set<string>();
      for (const e of events) for (const a of ['specversion', 'id', 'source', 'subject', 'type', 'time', 'dataschema', 'organizationid', 'resourceversion', 'correlationid']) if (e[a] === undefined || e[a] === null || e[a] === '') missing.add(a);
      t.expect(missing.size === 0, `every event carries every attribute${missing.size ? ` (missing: ${[...missing].join(', ')})` : ''}`);
      t.expect(events.every((e) => /\.v\d+$/.test(e.type)), 'every type ends in a version suffix');
      t.expect(events.every((e) => !Number.isNaN(Date.parse(e.time)) && /Z|[+-]\d\d:\d\d$/.test(e.time)), 'every time is RFC 3339');
    },
  },
  {
    id: 'EV-2', family: 'events', mandatory: true,
    title: 'Event ids are unique, and within one subject resourceversion strictly increases in feed order',
    spec: 'Delivery rules: consumers deduplicate by event id; A consumer ignores an event whose resource version is older than or equal to the version it has applied; State-changing events keep causal order per resource',
    async run(w, t) {
      const offer = await w.publishedOffer();
      await must(w.a.post(`/capacity-offers/${offer.id}/withdraw`, { reason: 'conformance' }, offer.resourceVersion), 200, 'withdraw');
      const events = await feed(w);
      const ids = new Set(events.map((e) => e.id));
      t.expect(ids.size === events.length, `${events.length} events, ${ids.size} distinct ids`);
      const last = new Map<string, number>();
      const disorder: string[] = [];
      for (const e of events) {
        const v = Number(e.resourceversion);
        if (last.has(e.subject) && v <= last.get(e.subject)!) disorder.push(`${e.subject} v${v} after v${last.get(e.subject)}`);
        last.set(e.subject, v);
      }
      t.expect(disorder.length === 0, `versions increase per subject${disorder.length ? `: ${disorder.slice(0, 3).join('; ')}` : ''}`);
      const mine = events.filter((e) => String(e.subject).endsWith(offer.id)).map((e) => e.type);
      t.expect(mine.some((x) => x.includes('published')) && mine.some((x) => x.includes('withdrawn')), `the offer's published and withdrawn events are in the feed (${mine.join(', ')})`);
    },
  },

  // Proposal expiry and withdrawal
  {
    id: 'PR-1', family: 'proposals', mandatory: true,
    title: 'Withdrawing an offer, or a request, sets its open proposals to withdrawn',
    spec: 'withdrawal of an offer or a request sets linked open proposals to withdrawn',
    async run(w, t) {
      for (const side of ['offer', 'request'] as const) {
        const m = await w.proposed();
        const [party, path] = side === 'offer' ? [w.a, `/capacity-offers/${m.offer.id}`] : [w.b, `/load-requests/${m.request.id}`];
        const listing = await must(party.get(path), 200, `read the ${side}`);
        await must(party.post(`${path}/withdraw`, { reason: 'conformance' }, listing.resourceVersion), 200, `withdraw the ${side}`);
        const status = await poll('the proposal ended', async () => {
          const p = await must(w.b.get(`/match-proposals/${m.proposal.id}`), 200, 'read the proposal');
          return p.status === 'open' ? undefined : p.status;
        }, 15_000).catch(() => 'open');
        t.expect(status === 'withdrawn', `the ${side} withdrawn: its proposal is withdrawn (got ${status})`);
      }
    },
  },
  {
    id: 'PR-2', family: 'proposals', mandatory: false,
    title: 'An open proposal expires at validUntil',
    spec: 'MatchProposal: status ... expired; validUntil; proposalExpired (system): all open proposals expired or were rejected -> published',
    async run(w, t) {
      const seconds = w.settings.proposalValiditySeconds;
      if (!seconds || seconds > 120) t.noTraffic('needs the broker setting proposalValiditySeconds (at most 120) in --settings');
      const m = await w.proposed();
      const status = await poll('the proposal expired', async () => {
        const p = await must(w.b.get(`/match-proposals/${m.proposal.id}`), 200, 'read the proposal');
        return p.status === 'open' ? undefined : p.status;
      }, (seconds! + 30) * 1000).catch(() => 'open');
      t.expect(status === 'expired', `expired within ${seconds! + 30} s (got ${status})`);
    },
  },

  // Explicit decision policy
  {
    id: 'DP-1', family: 'decision-policy', mandatory: true,
    title: 'Under the bilateral policy one accept does not commit, a repeated accept is idempotent, and the second organization commits it',
    spec: 'Under a policy named BILATERAL_REQUIRED the decision commits only when a second, distinct organization accepts; a repeated accept by the same organization is idempotent and does not advance it',
    async run(w, t) {
      const m = await w.proposed();
      t.expect(m.proposal.requiredDecisionPolicy !== undefined, 'the proposal states its required decision policy');
      const first = await must(w.b.post(`/match-proposals/${m.proposal.id}/decisions`, { decision: 'accept' }, m.proposal.resourceVersion), 200, 'B accepts');
      t.expect(first.status === 'open' && first.decisionState !== 'COMMITTED', `one accept: still open, not committed (got ${first.status}, ${first.decisionState})`);
      const repeat = await w.b.post(`/match-proposals/${m.proposal.id}/decisions`, { decision: 'accept' }, first.resourceVersion);
      const afterRepeat = await must(w.b.get(`/match-proposals/${m.proposal.id}`), 200, 'read it');
      t.expect(repeat.status < 500 && afterRepeat.status === 'open' && afterRepeat.decisionState !== 'COMMITTED', `B's repeated accept does not advance it (got ${repeat.status}, ${afterRepeat.decisionState})`);
      const second = await must(w.a.post(`/match-proposals/${m.proposal.id}/decisions`, { decision: 'accept' }, afterRepeat.resourceVersion), 200, 'A accepts');
      w.accepted(m);
      t.expect(second.status === 'accepted', `the second organization's accept commits it (got ${second.status}, ${second.decisionState})`);
      const request = await must(w.b.get(`/load-requests/${m.request.id}`), 200, 'read the request');
      t.expect(request.status === 'matched', `the request is matched (got ${request.status})`);
    },
  },
  {
    id: 'DP-2', family: 'decision-policy', mandatory: true,
    title: 'A decision on a committed proposal answers 409 with currentState; a non-party cannot decide',
    spec: 'Action on a terminal match decision: 409 with currentState in the body; decision policy states ... which role may decide',
    async run(w, t) {
      const m = await w.committed();
      const r = await w.b.post(`/match-proposals/${m.proposal.id}/decisions`, { decision: 'reject' }, m.proposal.resourceVersion);
      t.expect(r.status === 409 && r.body?.currentState !== undefined, `reject after commit: 409 with currentState (got ${said(r)})`);
      const stranger = await w.c.post(`/match-proposals/${m.proposal.id}/decisions`, { decision: 'accept' }, m.proposal.resourceVersion);
      t.expect(stranger.status === 404, `C decides: 404 (got ${stranger.status})`);
    },
  },

  // Execution-outcome deduplication and correction history
  {
    id: 'OC-1', family: 'outcomes', mandatory: true,
    title: 'An outcome replayed with its deduplicationKey answers 200 with the original; another payload under the key is refused',
    spec: 'A repeat with the same deduplicationKey and payload returns the original record with 200; New outcome whose deduplicationKey matches an existing record with another payload: rejected',
    async run(w, t) {
      const reference = await executionReference(w);
      const body = { executionReferenceId: reference.id, status: 'inProgress', deduplicationKey: w.key('oc-1'), schemaVersion: 'v0' };
      const first = await w.a.post('/execution-outcomes', body);
      t.require(first.status === 201, `first submission: 201 (got ${said(first)})`);
      t.expect(first.body.resourceVersion === 1 && (first.body.supersedes ?? null) === null, 'version 1, supersedes null');
      const replay = await w.a.post('/execution-outcomes', body);
      t.expect(replay.status === 200 && replay.body?.id === first.body.id, `the replay: 200 with the original (got ${replay.status} ${replay.body?.id})`);
      const other = await w.a.post('/execution-outcomes', { ...body, status: 'disputed' });
      t.expect(other.status >= 400 && other.status < 500, `another payload under the key: refused (got ${other.status})`);
    },
  },
  {
    id: 'OC-2', family: 'outcomes', mandatory: true,
    title: 'Corrections: a stale observedOutcomeVersion answers 409, a correction of a superseded record answers 409, a good one supersedes the head and leaves the old record as it was',
    spec: 'observedOutcomeVersion equals the resourceVersion of the superseded record, otherwise 409 with stale-resource-version; the path id is the current head, otherwise 409 with idempotency-conflict; the prior record gets supersededByOutcomeId and is otherwise unchanged',
    async run(w, t) {
      const reference = await executionReference(w);
      const head = await must(w.a.post('/execution-outcomes', { executionReferenceId: reference.id, status: 'disputed', deduplicationKey: w.key('oc-2'), schemaVersion: 'v0' }), 201, 'submit');
      const correction = (key: string, observed: number) => ({ observedOutcomeVersion: observed, correctionReason: 'conformance', correctionReasonCode: 'OTHER', deduplicationKey: w.key(key), status: 'inProgress', schemaVersion: 'v0' });
      const stale = await w.a.post(`/execution-outcomes/${head.id}/corrections`, correction('oc-2-stale', head.resourceVersion + 5));
      t.expect(isProblem(stale, 409, 'stale-resource-version'), `stale observedOutcomeVersion: 409 stale-resource-version (got ${said(stale)})`);
      const good = await w.a.post(`/execution-outcomes/${head.id}/corrections`, correction('oc-2-good', head.resourceVersion));
      t.require(good.status === 201, `the correction: 201 (got ${said(good)})`);
      t.expect(good.body.supersedes === head.id && good.body.resourceVersion === 1, 'the new record supersedes the head, version 1');
      const chain = await must(w.b.get(`/execution-outcomes?executionReferenceId=${reference.id}`), 200, 'B reads the chain');
      const prior = chain.items.find((x: any) => x.id === head.id);
      // On the superseded record's current version: what is refused is that it is not the head.
      const old = await w.a.post(`/execution-outcomes/${head.id}/corrections`, correction('oc-2-old', prior?.resourceVersion ?? head.resourceVersion));
      t.expect(isProblem(old, 409, 'idempotency-conflict'), `correcting the superseded record: 409 idempotency-conflict (got ${said(old)})`);
      t.expect(prior?.supersededByOutcomeId === good.body.id && prior?.status === 'disputed', 'the prior record names its successor and is otherwise unchanged');
      const mine = chain.items.filter((x: any) => x.id === head.id || x.id === good.body.id);
      t.expect(mine.length === 2 && mine.filter((x: any) => !x.supersededByOutcomeId).length === 1, 'the chain of this outcome has one head');
    },
  },

  {
    id: 'OC-3', family: 'outcomes', mandatory: false,
    title: "Outcomes are tamper-evident: each outcome and its correction is proven in the broker's signed transparency log, which both partners see grow consistently (an extension; no traffic where a broker publishes no log)",
    spec: 'Historical decisions and execution outcomes cannot be silently overwritten (protocol rule 10)',
    async run(w, t) {
      const keys = await w.a.get('/.well-known/transparency-log/keys');
      if (keys.status === 404) t.noTraffic('the broker publishes no transparency log (/.well-known/transparency-log/keys: 404)');
      t.require(keys.status === 200 && Array.isArray(keys.body?.keys), `the log's keys (got ${said(keys)})`);
      const verifiers = keys.body.keys.map((k: { verifierKey: string }) => noteVerifier(k.verifierKey));
      const checkpointOf = async (party: typeof w.a, who: string) => verifyCheckpoint((await must(party.get('/transparency-log/checkpoint'), 200, `${who} reads the checkpoint`)).note, verifiers, keys.body.origin);
      const before = await checkpointOf(w.a, 'A');
      const reference = await executionReference(w);
      const head = await must(w.a.post('/execution-outcomes', { executionReferenceId: reference.id, status: 'disputed', deduplicationKey: w.key('oc-3'), schemaVersion: 'v0' }), 201, 'submit');
      const fixed = await must(w.a.post(`/execution-outcomes/${head.id}/corrections`, { observedOutcomeVersion: head.resourceVersion, correctionReason: 'conformance', correctionReasonCode: 'OTHER', deduplicationKey: w.key('oc-3-fix'), status: 'inProgress', schemaVersion: 'v0' }), 201, 'correct');
      for (const id of [head.id, fixed.id]) {
        const key = `execution-outcomes/${id}`;
        const read = await must(w.b.get(`/${key}`), 200, `B reads ${key}`);
        const proof = await w.b.get(`/transparency-log/inclusion-proofs?recordKey=${encodeURIComponent(key)}`);
        t.require(proof.status === 200, `B gets the inclusion proof of ${key} (got ${said(proof)})`);
        try {
          const checkpoint = verifyCheckpoint(proof.body.checkpoint.note, verifiers, keys.body.origin);
          const digest = recordDigest(loggedValue(key, read));
          t.expect(digest === proof.body.leaf.recordDigest, `${key}: the record B read is the record logged`);
          verifyInclusion(proof.body.leaf.leafIndex, checkpoint.size, hashLeaf(leafOf(key, digest, proof.body.leaf.salt)), proof.body.auditPath.map(fromHex), checkpoint.root);
          t.note(`${key}: leaf ${proof.body.leaf.leafIndex} of a signed tree of ${checkpoint.size}`);
        } catch (err) {
          t.expect(false, `${key}: proven in the signed checkpoint (${(err as Error).message})`);
        }
      }
      // The log A saw before has only grown into the one B sees now.
      const after = await checkpointOf(w.b, 'B');
      const consistency = await must(w.b.get(`/transparency-log/consistency-proofs?from=${before.size}&to=${after.size}`), 200, 'B asks for the consistency proof');
      try {
        verifyConsistency(before.size, after.size, before.root, after.root, consistency.consistencyPath.map(fromHex));
        t.note(`the checkpoint of ${before.size} leaves A kept grew into the one of ${after.size} B sees`);
      } catch (err) {
        t.expect(false, `the log A saw grew into the one B sees (${(err as Error).message})`);
      }
    },
  },

  // RFC 9457 error responses
  {
    id: 'ER-1', family: 'errors', mandatory: true,
    title: 'Without a token, or with a token that is not the broker\'s: 401 problem',
    spec: 'Token audience mismatch: 401; token validity and broker audience is the first gate',
    async run(w, t) {
      const none = await w.a.call('GET', '/capacity-offers', { token: null });
      t.expect(none.status === 401, `no token: 401 (got ${none.status})`);
      const forged = await w.a.call('GET', '/capacity-offers', { token: 'eyJhbGciOiJub25lIn0.eyJhdWQiOiJub3QtdGhpcy1icm9rZXIiLCJvcmdfaWQiOiJ4In0.' });
      t.expect(forged.status === 401, `an unsigned token of another audience: 401 (got ${forged.status})`);
    },
  },
  {
    id: 'ER-2', family: 'errors', mandatory: true,
    title: 'A body over 256 KiB answers 413',
    spec: 'Maximum body, standard resources: 256 KiB; over the limit gives 413, before parsing',
    async run(w, t) {
      const r = await w.a.call('POST', '/capacity-offers', { raw: JSON.stringify({ padding: 'x'.repeat(300 * 1024) }) });
      t.expect(r.status === 413, `413 (got ${r.status})`);
    },
  },
  // ER-3 (every error answer a problem) is judged over all traffic at the end (run.ts).
];

/** Every event of A's feed, in order. */
async function feed(w: World): Promise<any[]> {
  const events: any[] = [];
  let cursor = '';
  for (let i = 0; i < 200; i++) {
    const page = await must(w.a.get(`/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), 200, "A's feed");
    events.push(...page.items);
    if (!page.items.length || !page.nextCursor || page.nextCursor === cursor) break;
    cursor = page.nextCursor;
  }
  return events;
}

/**
 * The execution reference of a committed match (made by the broker, or posted by A): a set-up
 * step, shared by the outcome checks (each its own outcomes and deduplication keys on it), which
 * keeps the run's traffic within the rate limits a sandbox sets.
 */
function executionReference(w: World): Promise<any> {
  w.shared.reference ??= (async () => {
    const m = await w.committed();
    return arrange('the execution reference of the accepted match', () =>
      poll('the execution reference of the accepted match', async () => {
        const page = await must(w.a.get(`/execution-references?proposal=${m.proposal.id}`), 200, 'A lists references');
        return page.items[0];
      }),
    );
  })();
  return w.shared.reference;
}

export function brokerChecks(): Array<Check<World>> {
  return BROKER_CHECKS;
}
