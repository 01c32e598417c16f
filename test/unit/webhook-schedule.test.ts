// The pure part of webhook delivery: the retry schedule, the event-type filter, the kinds a
// connector's scopes let it receive.
import { deliverableKinds, feedAudiences, kindOfFilter, MAX_ATTEMPTS, nextAttemptDelayMs, RETRY_SCHEDULE_SECONDS, typeMatches } from '../../domain/webhooks';

describe('retry schedule', () => {
  test("Svix's schedule: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then dead-lettered", () => {
    expect(RETRY_SCHEDULE_SECONDS).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => nextAttemptDelayMs(n, 0.5))).toEqual([5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
    expect(nextAttemptDelayMs(8, 0.5)).toBeUndefined();
  });

  test('jitter spreads each delay by at most ±10 %', () => {
    expect(nextAttemptDelayMs(2, 0)).toBe(270000);
    expect(nextAttemptDelayMs(2, 0.999999)).toBeLessThanOrEqual(330000);
    expect(nextAttemptDelayMs(2, 0.999999)).toBeGreaterThan(329000);
  });

  test('a Retry-After replaces the delay, capped at 10 hours; not after the last attempt', () => {
    expect(nextAttemptDelayMs(1, 0.5, 2)).toBe(2000);
    expect(nextAttemptDelayMs(3, 0.5, 0)).toBe(0);
    expect(nextAttemptDelayMs(1, 0.5, 999999)).toBe(36000 * 1000);
    expect(nextAttemptDelayMs(8, 0.5, 2)).toBeUndefined();
  });
});

describe('event-type filter', () => {
  test('empty passes everything; exact types; prefixes', () => {
    expect(typeMatches([], 'pcx.capacity-offer.published.v1')).toBe(true);
    expect(typeMatches(['pcx.capacity-offer.published.v1'], 'pcx.capacity-offer.published.v1')).toBe(true);
    expect(typeMatches(['pcx.capacity-offer.published.v1'], 'pcx.capacity-offer.withdrawn.v1')).toBe(false);
    expect(typeMatches(['pcx.capacity-offer.*'], 'pcx.capacity-offer.withdrawn.v1')).toBe(true);
    expect(typeMatches(['pcx.capacity-offer.*'], 'pcx.load-request.published.v1')).toBe(false);
    // A prefix is a whole segment: pcx.capacity-offer.* does not match a kind pcx.capacity-offers.
    expect(typeMatches(['pcx.capacity-offer.*'], 'pcx.capacity-offers.published.v1')).toBe(false);
    expect(typeMatches(['pcx.*'], 'pcx.match-proposal.created.v1')).toBe(true);
  });

  test('the kind a filter entry names', () => {
    expect(kindOfFilter('pcx.capacity-offer.*')).toBe('capacity-offer');
    expect(kindOfFilter('pcx.load-request.published.v1')).toBe('load-request');
    expect(kindOfFilter('pcx.*')).toBeUndefined();
  });
});

test('a connector receives the kinds its scopes read, and its subscriptions\' own events with connectors:manage', () => {
  // The tombstones of purged records go to their readers whatever the scopes (api/retention.ts).
  expect(deliverableKinds([])).toEqual(['purged-record']);
  expect(deliverableKinds(['capacity:read'])).toEqual(['capacity-offer', 'purged-record']);
  // A series (offers or requests) is read with either publish scope: its owner's bookkeeping.
  expect(deliverableKinds(['capacity:publish'])).toEqual(['listing-series', 'purged-record']);
  expect(deliverableKinds(['loads:publish'])).toEqual(['listing-series', 'purged-record']);
  // connectors:manage reads the organization's record, connectors and users too (their admins' events).
  expect(deliverableKinds(['loads:read', 'connectors:manage'])).toEqual(['load-request', 'organization', 'connector', 'user', 'webhook-subscription', 'purged-record']);
  // The operator's admin scope reads the registry's records (of every organization: feedAudiences).
  expect(deliverableKinds(['exchange:admin'])).toEqual(['organization', 'connector', 'user', 'purged-record']);
  expect(feedAudiences('org-a', false)).toEqual(['org-a']);
  expect(feedAudiences('org-op', true)).toEqual(['org-op', 'pcx:operator']);
});
