// The commitment digest (core/digest.ts): RFC 8785 canonical bytes and SHA-256. The same terms
// give the same digest whatever key order or number formatting a request used; any change of a
// decision-relevant field changes it; members outside the documented list do not count.
import { createHash } from 'node:crypto';
import { canonicalBytes, commitmentDigest, DIGEST_FIELDS, digestInput } from '../../core/digest';

const base = () => ({
  tenderId: '01a1fd30-05ff-70e9-bbcd-a29491e72bb4',
  commitmentVersion: 1,
  issuingOrganizationId: 'org-a',
  executingOrganizationId: 'org-b',
  movementScope: 'fullTransport',
  acceptedRevision: {
    number: 2,
    authorOrganizationId: 'org-b',
    terms: {
      stops: [{ sequence: 1, role: 'pickup', area: { kind: 'unlocode', code: 'DEHAM' }, timeWindow: { start: '2030-01-01T06:00:00.000Z', end: '2030-01-01T10:00:00.000Z' } }],
      cargo: { weight: { value: 12000, unitCode: 'KGM' }, palletSpaces: 12 },
      commercialTerms: { amount: 1000.5, currency: 'EUR' },
    },
  },
  decisionPolicy: { mode: 'BILATERAL_REQUIRED' },
  relationshipId: '01a1fd30-05ff-70e9-bbcd-a29491e72bb5',
  relationshipVersion: 3,
  capacity: { state: 'none' },
  cancellationPolicy: { mode: 'either' },
});

test('RFC 8785: sorted keys, no whitespace, ECMAScript number forms', () => {
  expect(canonicalBytes({ b: 1, a: [true, null, 'x'], c: { z: 1e21, y: 0.000001, x: 12000.0 } }).toString('utf8')).toBe('{"a":[true,null,"x"],"b":1,"c":{"x":12000,"y":0.000001,"z":1e+21}}');
});

test('the same terms in another key order and number formatting give the same digest', () => {
  const parsed = JSON.parse(
    '{"relationshipVersion":3,"cancellationPolicy":{"mode":"either"},"capacity":{"state":"none"},"relationshipId":"01a1fd30-05ff-70e9-bbcd-a29491e72bb5",' +
      '"decisionPolicy":{"mode":"BILATERAL_REQUIRED"},"acceptedRevision":{"terms":{"commercialTerms":{"currency":"EUR","amount":1.0005e3},' +
      '"cargo":{"palletSpaces":12.0,"weight":{"unitCode":"KGM","value":1.2E4}},"stops":[{"timeWindow":{"end":"2030-01-01T10:00:00.000Z","start":"2030-01-01T06:00:00.000Z"},' +
      '"area":{"code":"DEHAM","kind":"unlocode"},"role":"pickup","sequence":1}]},"authorOrganizationId":"org-b","number":2},"movementScope":"fullTransport",' +
      '"executingOrganizationId":"org-b","issuingOrganizationId":"org-a","commitmentVersion":1,"tenderId":"01a1fd30-05ff-70e9-bbcd-a29491e72bb4"}',
  );
  expect(commitmentDigest(parsed).value).toBe(commitmentDigest(base()).value);
  expect(commitmentDigest(base()).value).toBe(createHash('sha256').update(canonicalBytes(digestInput(base()))).digest('hex'));
});

test('any change of a decision-relevant field changes the digest; other members do not count', () => {
  const original = commitmentDigest(base()).value;
  const variants: Array<(c: any) => void> = [
    (c) => (c.acceptedRevision.terms.commercialTerms.amount = 1000.51),
    (c) => (c.acceptedRevision.terms.cargo.weight.unitCode = 'TNE'),
    (c) => (c.acceptedRevision.terms.stops[0].timeWindow.start = '2030-01-01T06:00:01.000Z'),
    (c) => (c.acceptedRevision.number = 3),
    (c) => (c.executingOrganizationId = 'org-c'),
    (c) => (c.relationshipVersion = 4),
    (c) => (c.cancellationPolicy = { mode: 'none' }),
    (c) => (c.commitmentVersion = 2),
    (c) => (c.previousCommitmentId = '01a1fd30-05ff-70e9-bbcd-a29491e72bb6'),
  ];
  for (const change of variants) {
    const c = base();
    change(c);
    expect(commitmentDigest(c).value).not.toBe(original);
  }
  const noise = { ...base(), id: 'x', resourceVersion: 9, status: 'cancelled', updatedAt: '2031-01-01T00:00:00Z', digest: { value: 'old' } };
  expect(commitmentDigest(noise).value).toBe(original);
  expect(commitmentDigest(base())).toMatchObject({ algorithm: 'SHA-256', canonicalization: 'RFC 8785', fields: [...DIGEST_FIELDS] });
});
