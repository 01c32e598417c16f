// The ids an Idempotency-Key's request is known by across a restore of the read model alone
// (api/idempotency.ts): a lifecycle command's Update id and a create's key recorded in Temporal.
// Both must be the same for the same request and differ for any other, or a retry would be made
// twice (or another request answered as this one).
import { fingerprint, keyCommandId, keyCreateKey } from '../../api/idempotency';

const slot = { org: 'org-a', operation: 'POST /capacity-offers', key: 'k-1' };
const request = fingerprint(['capacity-offer', 'create', null, null, { a: 1, b: [2] }]);

test('the same request with the same key gets the same ids, whatever the order of its fields', () => {
  const reordered = fingerprint(['capacity-offer', 'create', null, null, { b: [2], a: 1 }]);
  expect(keyCommandId(slot, reordered)).toBe(keyCommandId(slot, request));
  expect(keyCreateKey(slot, reordered)).toBe(keyCreateKey(slot, request));
});

test.each([
  ['organization', { ...slot, org: 'org-b' }, request],
  ['operation', { ...slot, operation: 'POST /load-requests' }, request],
  ['key', { ...slot, key: 'k-2' }, request],
  ['request', slot, fingerprint(['capacity-offer', 'create', null, null, { a: 2, b: [2] }])],
])('another %s gets other ids', (_name, other, otherRequest) => {
  expect(keyCommandId(other, otherRequest)).not.toBe(keyCommandId(slot, request));
  expect(keyCreateKey(other, otherRequest)).not.toBe(keyCreateKey(slot, request));
});

test('a command id is a UUID of version 8 (RFC 9562), a create key 48 hex digits (no quoting in a visibility query), and the two never coincide', () => {
  expect(keyCommandId(slot, request)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(keyCreateKey(slot, request)).toMatch(/^[0-9a-f]{48}$/);
  expect(keyCommandId(slot, request).replace(/-/g, '')).not.toBe(keyCreateKey(slot, request).slice(0, 32));
});
