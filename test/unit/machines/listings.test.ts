// Every transition row and refusal of the CapacityOffer and LoadRequest machines (specification,
// States and transitions), in-process. Both share the listing lifecycle (domain/listing.ts).
import { capacityOffer, type CapacityOffer } from '../../../domain/capacity-offer';
import { loadRequest, type LoadRequest } from '../../../domain/load-request';
import type { Resource } from '../../../domain/resource';
import { apply, command, connector, DAY, HOUR, later, next, NOW, operator, refusal, system } from './harness';

const OWNER = 'org-owner';
const OTHER = 'org-other';
const window = (from: number, to: number) => ({ start: later(from), end: later(to) });

const offerDraft = () => ({
  availabilityWindow: window(DAY, 2 * DAY),
  originArea: { kind: 'unlocode', code: 'DEHAM' },
  destinationArea: { kind: 'country', code: 'NL' },
  vehicleProfile: { bodyType: 'curtainsider' },
  availableCapacity: { weight: { value: 24, unitCode: 'TNE' } },
  expiresAt: later(DAY),
  visibility: { mode: 'partners', organizationIds: [OTHER] },
  restrictedDetails: { price: { amount: 900, currency: 'EUR' } },
});
const requestDraft = () => ({
  pickupArea: { kind: 'unlocode', code: 'DEHAM' },
  pickupWindow: window(DAY, DAY + 4 * HOUR),
  deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
  deliveryWindow: window(2 * DAY, 2 * DAY + 4 * HOUR),
  requiredCapacity: { weight: { value: 12, unitCode: 'TNE' } },
  vehicleRequirements: { bodyTypes: ['curtainsider'] },
  goodsProfile: { category: 'electronics' },
  expiresAt: later(DAY),
  visibility: { mode: 'open' },
});

interface Case<S> {
  name: string;
  resource: Resource<S & any, any>;
  draft: () => Record<string, unknown>;
  required: string[];
  live: string[];
}

const cases: Case<CapacityOffer | LoadRequest>[] = [
  {
    name: 'capacity-offer',
    resource: capacityOffer,
    draft: offerDraft,
    required: ['availabilityWindow', 'originArea', 'destinationArea', 'vehicleProfile', 'availableCapacity', 'expiresAt', 'visibility'],
    live: ['published', 'partiallyMatched'],
  },
  {
    name: 'load-request',
    resource: loadRequest,
    draft: requestDraft,
    required: ['pickupArea', 'pickupWindow', 'deliveryArea', 'deliveryWindow', 'requiredCapacity', 'vehicleRequirements', 'goodsProfile', 'expiresAt', 'visibility'],
    live: ['published', 'proposed'],
  },
];

const withPartners = { ownerHasActiveRelationship: true };

describe.each(cases)('$name', ({ name, resource: R, draft, required, live }) => {
  const create = (payload = draft()) => next(R, undefined, command('create', connector(OWNER), payload)).state;
  const published = () => next(R, create(), command('publish', connector(OWNER), {}, { context: withPartners })).state;
  // The second live status, reached through the broker's matching commands.
  const secondLive = () =>
    name === 'capacity-offer'
      ? next(R, published(), command('partialMatch', system, { proposalId: 'p1', requestId: 'r1', organizationId: OTHER, capacity: { weightKg: 1000 } })).state
      : next(R, published(), command('propose', system, { proposalId: 'p1' })).state;

  test('create: a draft of version 1 owned by the caller; only known fields are kept; no event', () => {
    const t = next(R, undefined, command('create', connector(OWNER), { ...draft(), status: 'published', ownerOrganizationId: OTHER, bogus: 1 }));
    expect(t.state).toMatchObject({ status: 'draft', resourceVersion: 1, ownerOrganizationId: OWNER, createdAt: NOW });
    expect((t.state as any).bogus).toBeUndefined();
    expect(t.events).toEqual([]);
    expect(refusal(R, undefined, command('create', operator, draft()))).toBe('ACTOR_NOT_PERMITTED');
  });

  test('update: the owner patches a draft (null removes), nobody afterwards (rule 7: expiresAt never changes once published)', () => {
    const t = next(R, create(), command('update', connector(OWNER), { expiresAt: later(3 * DAY), restrictedDetails: null }));
    expect(t.state).toMatchObject({ resourceVersion: 2, expiresAt: later(3 * DAY) });
    expect((t.state as any).restrictedDetails).toBeUndefined();
    expect(refusal(R, create(), command('update', connector(OTHER), {}))).toBe('ACTOR_NOT_PERMITTED');
    expect(refusal(R, published(), command('update', connector(OWNER), { expiresAt: later(5 * DAY) }))).toBe('INVALID_STATE_TRANSITION');
  });

  test('draft -> publish -> published, publishedAt, event shared with partners', () => {
    const t = next(R, create(), command('publish', connector(OWNER), {}, { context: withPartners }));
    expect(t.state).toMatchObject({ status: 'published', publishedAt: NOW, resourceVersion: 2 });
    expect(t.events).toEqual([{ type: `pcx.${name}.published.v1`, audience: [OWNER], shareWithPartners: true }]);
  });

  test.each(['published', 'second live'])('publish from %s is 422 (rules 1 and 6: never re-published)', (which) => {
    const s = which === 'published' ? published() : secondLive();
    expect(refusal(R, s, command('publish', connector(OWNER), {}, { context: withPartners }))).toBe('INVALID_STATE_TRANSITION');
  });

  test('publish needs every required field, a future expiresAt and ordered windows (422 RESOURCE_NOT_PUBLISHABLE naming each)', () => {
    for (const field of required) {
      const payload = draft();
      delete (payload as any)[field];
      const outcome = apply(R, create(payload), command('publish', connector(OWNER), {}, { context: withPartners }));
      expect(outcome).toMatchObject({ ok: false, code: 'RESOURCE_NOT_PUBLISHABLE', extensions: { errors: [{ pointer: `/${field}`, message: 'is required to publish' }] } });
    }
    const past = create({ ...draft(), expiresAt: later(-HOUR) });
    expect(refusal(R, past, command('publish', connector(OWNER), {}, { context: withPartners }))).toBe('RESOURCE_NOT_PUBLISHABLE');
    const capacityField = name === 'capacity-offer' ? 'availableCapacity' : 'requiredCapacity';
    const empty = create({ ...draft(), [capacityField]: {} });
    expect(refusal(R, empty, command('publish', connector(OWNER), {}, { context: withPartners }))).toBe('RESOURCE_NOT_PUBLISHABLE');
  });

  test('publishing to partners needs a relationship in force; open visibility does not (publish row)', () => {
    const none = { ownerHasActiveRelationship: false };
    for (const visibility of [{ mode: 'partners', organizationIds: [OTHER] }, { mode: 'groups', groups: ['north'] }]) {
      expect(refusal(R, create({ ...draft(), visibility }), command('publish', connector(OWNER), {}, { context: none }))).toBe('RELATIONSHIP_INACTIVE');
    }
    const open = next(R, create({ ...draft(), visibility: { mode: 'open' } }), command('publish', connector(OWNER), {}, { context: none }));
    expect(open.state.status).toBe('published');
  });

  test('only the owner publishes and withdraws', () => {
    expect(refusal(R, create(), command('publish', connector(OTHER), {}, { context: withPartners }))).toBe('ACTOR_NOT_PERMITTED');
    expect(refusal(R, published(), command('withdraw', connector(OTHER), { reason: 'x' }))).toBe('ACTOR_NOT_PERMITTED');
  });

  test.each(['draft', 'published', 'second live'])('%s -> withdraw (reason required) -> withdrawn', (which) => {
    const s = which === 'draft' ? create() : which === 'published' ? published() : secondLive();
    expect(refusal(R, s, command('withdraw', connector(OWNER), {}))).toBe('VALIDATION_FAILED');
    const t = next(R, s, command('withdraw', connector(OWNER), { reason: 'sold', reasonCode: 'SOLD' }));
    expect(t.state).toMatchObject({ status: 'withdrawn', withdrawnAt: NOW, withdrawal: { reason: 'sold', reasonCode: 'SOLD', at: NOW } });
    expect(t.events.map((e) => e.type)).toEqual([`pcx.${name}.withdrawn.v1`]);
  });

  test('live -> expire at expiresAt (system clock only); a draft has no deadline', () => {
    expect(R.machine.deadline(create())).toBeUndefined();
    for (const s of [published(), secondLive()]) {
      expect(live).toContain(s.status);
      expect(R.machine.deadline(s)).toEqual({ at: later(DAY), command: 'expire' });
      expect(refusal(R, s, command('expire', system))).toBe('INVALID_STATE_TRANSITION'); // before expiresAt
      expect(refusal(R, s, command('expire', connector(OWNER)), later(DAY))).toBe('ACTOR_NOT_PERMITTED');
      const t = next(R, s, command('expire', system), later(DAY));
      expect(t.state).toMatchObject({ status: 'expired', expiredAt: later(DAY) });
      expect(t.events.map((e) => e.type)).toEqual([`pcx.${name}.expired.v1`]);
    }
  });

  // The window a match must still meet: the offer's availability, the request's pickup (it ends first).
  const windowField = name === 'capacity-offer' ? 'availabilityWindow' : 'pickupWindow';

  test('publish refuses a window that ended or ends within the hour a match needs: 422 WINDOW_PASSED naming it', () => {
    for (const [from, to] of [[-2 * DAY, -DAY], [-HOUR, 30 * 60_000], [-HOUR, HOUR]]) {
      const late = create({ ...draft(), [windowField]: window(from, to), ...(name === 'load-request' ? { deliveryWindow: window(from, DAY) } : {}) });
      const outcome = apply(R, late, command('publish', connector(OWNER), {}, { context: withPartners }));
      expect(outcome).toMatchObject({ ok: false, code: 'WINDOW_PASSED', extensions: { errors: [{ pointer: `/${windowField}/end` }] } });
      expect((outcome as { detail: string }).detail).toMatch(/ends at .*less than 60 minutes from now/);
    }
    // A minute more than the lead: published.
    const justInTime = create({ ...draft(), [windowField]: window(-HOUR, HOUR + 60_000), ...(name === 'load-request' ? { deliveryWindow: window(0, DAY) } : {}) });
    expect(next(R, justInTime, command('publish', connector(OWNER), {}, { context: withPartners })).state.status).toBe('published');
  });

  test('live -> lapse when its window can no longer be met, before expiresAt: expired with the window named, its own event, open proposals ended', () => {
    const lapsing = (s: any) => ({ ...s, expiresAt: later(3 * DAY) });
    for (const s of [lapsing(published()), lapsing(secondLive())]) {
      const at = later(Date.parse(s[windowField].end) - Date.parse(NOW) - HOUR);
      // The lapse comes first.
      expect(R.machine.deadline(s)).toEqual({ at, command: 'lapse' });
      expect(refusal(R, s, command('lapse', system))).toBe('INVALID_STATE_TRANSITION'); // still in time
      expect(refusal(R, s, command('lapse', connector(OWNER)), at)).toBe('ACTOR_NOT_PERMITTED');
      const t = next(R, s, command('lapse', system), at);
      expect(t.state).toMatchObject({ status: 'expired', expiredAt: at, expiry: { reasonCode: 'WINDOW_PASSED', window: windowField } });
      expect((t.state as any).expiry.reason).toMatch(/ends at .*less than 60 minutes from now/);
      expect(t.events.map((e) => e.type)).toEqual([`pcx.${name}.lapsed.v1`]);
      expect(R.machine.deadline(t.state)).toBeUndefined();
      if (s.status !== 'published') expect(t.effects?.map((e) => (e as any).flow)).toEqual(['endProposalsFlow']);
    }
    // expiresAt before the window's end: expiry as before, its reason recorded.
    const t = next(R, published(), command('expire', system), later(DAY));
    expect(t.state).toMatchObject({ status: 'expired', expiry: { reasonCode: 'EXPIRES_AT_REACHED' } });
  });

  test.each(['draft', 'published', 'second live'])('%s -> cancel by a protocol operator (reason required) -> cancelled', (which) => {
    const s = which === 'draft' ? create() : which === 'published' ? published() : secondLive();
    expect(refusal(R, s, command('cancel', connector(OWNER), { reason: 'x' }))).toBe('ACTOR_NOT_PERMITTED');
    expect(refusal(R, s, command('cancel', operator, {}))).toBe('VALIDATION_FAILED');
    const t = next(R, s, command('cancel', operator, { reason: 'fraud' }));
    expect(t.state).toMatchObject({ status: 'cancelled', cancelledAt: NOW, cancelledBy: { kind: 'operator', organizationId: 'org-operator', clientId: 'client-operator' } });
  });

  test('terminal statuses accept no command (rule 6)', () => {
    const ended = [
      next(R, published(), command('withdraw', connector(OWNER), { reason: 'x' })).state,
      next(R, published(), command('expire', system), later(DAY)).state,
      next(R, published(), command('cancel', operator, { reason: 'x' })).state,
    ];
    for (const s of ended) {
      expect(R.terminalStatuses).toContain(s.status);
      expect(R.machine.deadline(s)).toBeUndefined();
      for (const [cmd, actor] of [['publish', connector(OWNER)], ['withdraw', connector(OWNER)], ['update', connector(OWNER)], ['cancel', operator]] as const) {
        expect([cmd, s.status, refusal(R, s, command(cmd, actor, { reason: 'x' }, { context: withPartners }))]).toEqual([cmd, s.status, 'INVALID_STATE_TRANSITION']);
      }
    }
  });

  test('matching commands are the broker\u2019s alone', () => {
    for (const cmd of name === 'capacity-offer' ? ['partialMatch', 'fullMatch', 'unmatch'] : ['propose', 'accept', 'proposalEnded']) {
      expect(refusal(R, published(), command(cmd, connector(OWNER), { proposalId: 'p1' }))).toBe('ACTOR_NOT_PERMITTED');
    }
  });

  test('the definition classifies every field, never discloses restricted details as terms', () => {
    const s = next(R, published(), command('withdraw', connector(OWNER), { reason: 'x' })).state as any;
    s.externalReferences = [];
    s.extensions = {};
    for (const field of Object.keys(s)) expect([field, R.fields[field] !== undefined]).toEqual([field, true]);
    expect(R.fields.restrictedDetails).toBe('restricted');
    expect(R.fields.visibility).toBe('private');
  });
});

describe('capacity-offer matching transitions', () => {
  const R = capacityOffer;
  const published = () => {
    const draft = next(R, undefined, command('create', connector(OWNER), offerDraft())).state; // 24 t
    return next(R, draft, command('publish', connector(OWNER), {}, { context: withPartners })).state;
  };
  const hold = (proposalId: string, requestId: string, weightKg: number, extra: Record<string, unknown> = {}) => ({ proposalId, requestId, organizationId: OTHER, capacity: { weightKg }, ...extra });

  test('published -> partialMatch -> partiallyMatched -> fullMatch -> matched -> commit -> unmatch back', () => {
    const partial = next(R, published(), command('partialMatch', system, hold('p1', 'r1', 10000)));
    expect(partial.state).toMatchObject({ status: 'partiallyMatched', allocations: [{ proposalId: 'p1', requestId: 'r1', capacity: { weightKg: 10000 }, state: 'tentative', at: NOW }], proposedRequestIds: ['r1'] });
    expect(partial.events.map((e) => e.type)).toEqual(['pcx.capacity-offer.partially-matched.v1']);
    const full = next(R, partial.state, command('fullMatch', system, hold('p2', 'r2', 14000)));
    expect(full.state).toMatchObject({ status: 'matched', matchedAt: NOW });
    expect(full.events.map((e) => e.type)).toEqual(['pcx.capacity-offer.matched.v1']);
    expect(R.machine.deadline(full.state)).toBeUndefined(); // matched: blocked, expiry no longer applies
    const committed = next(R, full.state, command('commit', system, { proposalId: 'p2' }));
    expect(committed.state.allocations[1]).toMatchObject({ state: 'committed', committedAt: NOW });
    expect(R.counterparts!(committed.state)).toEqual([OTHER]);
    expect(refusal(R, committed.state, command('commit', system, { proposalId: 'p2' }))).toBe('INVALID_STATE_TRANSITION');
    const one = next(R, committed.state, command('unmatch', system, { proposalId: 'p1' }));
    expect(one.state.status).toBe('partiallyMatched');
    expect(one.state.matchedAt).toBeUndefined();
    // Released capacity is matched again.
    expect(one.effects).toEqual([{ flow: 'matchListingFlow', input: { kind: 'capacity-offer', id: one.state.id } }]);
    const none = next(R, one.state, command('unmatch', system, { proposalId: 'p2' }));
    expect(none.state).toMatchObject({ status: 'published', allocations: [] });
    expect(refusal(R, none.state, command('unmatch', system, { proposalId: 'p1' }))).toBe('INVALID_STATE_TRANSITION');
  });

  test('an offer that ends releases its tentative reservations (its open proposals end with it) and keeps committed ones', () => {
    const partial = next(R, published(), command('partialMatch', system, hold('p1', 'r1', 10000)));
    const second = next(R, partial.state, command('partialMatch', system, hold('p2', 'r2', 4000)));
    const committed = next(R, second.state, command('commit', system, { proposalId: 'p2' })).state;
    for (const end of [
      command('withdraw', connector(OWNER), { reason: 'truck broke down' }),
      command('cancel', operator, { reason: 'fraud report' }),
    ]) {
      const ended = next(R, committed, end);
      expect(ended.state.allocations).toEqual([expect.objectContaining({ proposalId: 'p2', state: 'committed' })]);
      expect(ended.effects).toEqual([{ flow: 'endProposalsFlow', input: { proposalIds: ['p1'], command: 'withdrawByBroker', reason: 'the capacity offer ended' }, awaited: true }]);
    }
  });

  test('rule 10: allocations never exceed availableCapacity; a pair is held once; the name says whether it fills the offer', () => {
    const s = next(R, published(), command('partialMatch', system, hold('p1', 'r1', 20000))).state;
    expect(refusal(R, s, command('partialMatch', system, hold('p2', 'r2', 5000)))).toBe('CAPACITY_EXCEEDED');
    expect(refusal(R, s, command('partialMatch', system, { ...hold('p2', 'r2', 1), capacity: { volumeM3: 1 } }))).toBe('CAPACITY_EXCEEDED');
    expect(refusal(R, s, command('partialMatch', system, hold('p2', 'r1', 1000)))).toBe('DUPLICATE_MATCH');
    expect(refusal(R, s, command('partialMatch', system, hold('p2', 'r2', 4000)))).toBe('INVALID_STATE_TRANSITION'); // uses it up: fullMatch
    expect(refusal(R, s, command('fullMatch', system, hold('p2', 'r2', 1000)))).toBe('INVALID_STATE_TRANSITION'); // leaves some: partialMatch
    expect(refusal(R, published(), command('partialMatch', system, {}))).toBe('VALIDATION_FAILED');
    // After a release, the broker does not propose the pair again; an explicit request may.
    const released = next(R, s, command('unmatch', system, { proposalId: 'p1' })).state;
    expect(refusal(R, released, command('partialMatch', system, hold('p3', 'r1', 1000)))).toBe('DUPLICATE_MATCH');
    expect(next(R, released, command('partialMatch', system, hold('p3', 'r1', 1000, { explicit: true }))).state.status).toBe('partiallyMatched');
  });

  test('unlinkCommitment undoes linkCommitment of the same commitment only; the allocation stays committed', () => {
    let s = next(R, published(), command('partialMatch', system, hold('p1', 'r1', 5000))).state;
    s = next(R, s, command('commit', system, { proposalId: 'p1' })).state;
    const linked = next(R, s, command('linkCommitment', system, { proposalId: 'p1', commitmentId: 'c1' })).state;
    expect(next(R, linked, command('unlinkCommitment', system, { proposalId: 'p1', commitmentId: 'c2' }))).toEqual({ state: linked, events: [] });
    const unlinked = next(R, linked, command('unlinkCommitment', system, { proposalId: 'p1', commitmentId: 'c1' })).state;
    expect(unlinked.allocations).toEqual([expect.objectContaining({ proposalId: 'p1', state: 'committed' })]);
    expect(unlinked.allocations[0].commitmentId).toBeUndefined();
    expect(refusal(R, linked, command('unlinkCommitment', connector(OWNER), { proposalId: 'p1', commitmentId: 'c1' }))).toBe('ACTOR_NOT_PERMITTED');
  });

  test('ending the offer ends its open proposals; committed matches stay (rule 4)', () => {
    let s = next(R, published(), command('partialMatch', system, hold('p1', 'r1', 5000))).state;
    s = next(R, s, command('partialMatch', system, hold('p2', 'r2', 5000))).state;
    s = next(R, s, command('commit', system, { proposalId: 'p2' })).state;
    const withdrawn = next(R, s, command('withdraw', connector(OWNER), { reason: 'sold' }));
    expect(withdrawn.effects).toEqual([{ flow: 'endProposalsFlow', input: { proposalIds: ['p1'], command: 'withdrawByBroker', reason: 'the capacity offer ended' }, awaited: true }]);
    expect(next(R, published(), command('withdraw', connector(OWNER), { reason: 'sold' })).effects).toEqual([]);
  });
});

describe('load-request matching transitions', () => {
  const R = loadRequest;
  const published = () => {
    const draft = next(R, undefined, command('create', connector(OWNER), requestDraft())).state;
    return next(R, draft, command('publish', connector(OWNER), {}, { context: withPartners })).state;
  };

  test('published -> propose -> proposed (proposalIds, rule 10) -> accept -> matched with one accepted proposal (rule 4)', () => {
    const one = next(R, published(), command('propose', system, { proposalId: 'p1' })).state;
    const two = next(R, one, command('propose', system, { proposalId: 'p2' })).state;
    expect(two).toMatchObject({ status: 'proposed', proposalIds: ['p1', 'p2'], openProposalIds: ['p1', 'p2'] });
    expect(refusal(R, two, command('propose', system, { proposalId: 'p2' }))).toBe('INVALID_STATE_TRANSITION');
    const t = next(R, two, command('accept', system, { proposalId: 'p2' }));
    expect(t.state).toMatchObject({ status: 'matched', matchedAt: NOW, acceptedProposalId: 'p2', openProposalIds: [] });
    expect(t.events.map((e) => e.type)).toEqual(['pcx.load-request.matched.v1']);
    // rule 3: a matched request is not withdrawn, and does not expire
    expect(refusal(R, t.state, command('withdraw', connector(OWNER), { reason: 'x' }))).toBe('INVALID_STATE_TRANSITION');
    expect(R.machine.deadline(t.state)).toBeUndefined();
    expect(refusal(R, two, command('accept', system, { proposalId: 'p9' }))).toBe('INVALID_STATE_TRANSITION');
  });

  test('withdraw, expire and cancel end its open proposals before answering (awaited) and leave none counted open', () => {
    const two = next(R, next(R, published(), command('propose', system, { proposalId: 'p1' })).state, command('propose', system, { proposalId: 'p2' })).state;
    const end = { proposalIds: ['p1', 'p2'], command: 'withdrawByBroker', reason: 'the load request ended' };
    for (const [cmd, at] of [
      [command('withdraw', connector(OWNER), { reason: 'not needed' }), NOW],
      [command('cancel', operator, { reason: 'fraud' }), NOW],
      [command('expire', system), two.expiresAt!],
    ] as const) {
      const t = next(R, two, cmd, at);
      expect(t.state).toMatchObject({ openProposalIds: [], proposalIds: ['p1', 'p2'] });
      expect(t.effects).toEqual([{ flow: 'endProposalsFlow', input: end, awaited: true }]);
    }
  });

  test('unlinkCommitment undoes linkCommitment of the same commitment only', () => {
    const matched = next(R, next(R, published(), command('propose', system, { proposalId: 'p1' })).state, command('accept', system, { proposalId: 'p1' })).state;
    const linked = next(R, matched, command('linkCommitment', system, { proposalId: 'p1', commitmentId: 'c1' })).state;
    expect(next(R, linked, command('unlinkCommitment', system, { proposalId: 'p1', commitmentId: 'c2' }))).toEqual({ state: linked, events: [] });
    const unlinked = next(R, linked, command('unlinkCommitment', system, { proposalId: 'p1', commitmentId: 'c1' })).state;
    expect(unlinked.matchedCommitmentId).toBeUndefined();
    expect(unlinked).toMatchObject({ status: 'matched', acceptedProposalId: 'p1', resourceVersion: linked.resourceVersion + 1 });
  });

  test('proposed -> proposalEnded for each open proposal -> published when none remain', () => {
    const two = next(R, next(R, published(), command('propose', system, { proposalId: 'p1' })).state, command('propose', system, { proposalId: 'p2' })).state;
    const one = next(R, two, command('proposalEnded', system, { proposalId: 'p1' })).state;
    expect(one).toMatchObject({ status: 'proposed', openProposalIds: ['p2'] });
    const none = next(R, one, command('proposalEnded', system, { proposalId: 'p2' })).state;
    expect(none).toMatchObject({ status: 'published', openProposalIds: [], proposalIds: ['p1', 'p2'] });
  });
});

test('the names commands had before stay: proposalExpired is proposalEnded (recorded histories send it)', () => {
  const R = loadRequest;
  const draft = next(R, undefined, command('create', connector(OWNER), requestDraft())).state;
  const proposed = next(R, next(R, draft, command('publish', connector(OWNER), {}, { context: withPartners })).state, command('propose', system, { proposalId: 'p1' })).state;
  expect(next(R, proposed, command('proposalExpired', system, { proposalId: 'p1' })).state).toEqual(next(R, proposed, command('proposalEnded', system, { proposalId: 'p1' })).state);
  expect(R.machine.brokerCommands).toEqual(expect.arrayContaining(['proposalEnded', 'proposalExpired']));
});
