// The retention policies' rules (domain/retention.ts): what a policies file must hold, which policy
// a record follows, when it falls due (calendar arithmetic in UTC), and the bound the purge reads by.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dueAt, oldestDue, parseRetentionPolicies, policyOf, purgeOrder, RECORD_CLASSES, RetentionPolicyError } from '../../domain/retention';
import { defineResource } from '../../domain/resource';
import { capacityOffer } from '../../domain/capacity-offer';
import { heldSql, policyRefSql, purgedKinds, relationshipSql } from '../../read-model/retention';
import { RESOURCES } from '../../domain/registry';

const shipped = parseRetentionPolicies(JSON.parse(readFileSync(join(__dirname, '..', '..', 'config', 'retention-policies.json'), 'utf8')));
const periods = (d: string) => ({ relationship: d, listing: d, proposal: d, tender: d, commitment: d, handover: d, execution: d, personalData: d });

test('the shipped file: a default, a pilot policy and an audit hold', () => {
  expect(shipped.default).toBe('pcx:standard');
  expect(Object.keys(shipped.policies).sort()).toEqual(['pcx:audit-hold', 'pcx:pilot', 'pcx:standard']);
  expect(shipped.policies['pcx:audit-hold']).toMatchObject({ hold: true, periods: {} });
  expect(shipped.policies['pcx:standard'].periods).toMatchObject({ listing: 'P1Y', relationship: 'P10Y', personalData: 'P1Y' });
});

test('every resource kind decides its retention: the registry\'s own records are kept, with a reason; every other kind is purged under a class', () => {
  const kept = RESOURCES.filter((r) => 'kept' in r.retention);
  expect(kept.map((r) => r.kind).sort()).toEqual(['connector', 'organization', 'user']);
  for (const r of kept) expect((r.retention as { kept: string }).kept.length).toBeGreaterThan(20);
  for (const r of RESOURCES.filter((k) => 'purged' in k.retention)) expect(RECORD_CLASSES).toContain((r.retention as { purged: string }).purged);
});

test('a kind without a retention decision cannot be defined (the type requires it; a cast does not get past the definition)', () => {
  const { retention: _none, ...withoutDecision } = capacityOffer;
  expect(() => defineResource(withoutDecision as any)).toThrow(/capacity-offer: no retention decision/);
  expect(() => defineResource({ ...withoutDecision, retention: {} } as any)).toThrow(/no retention decision/);
  expect(defineResource({ ...withoutDecision, retention: { kept: 'a test' } } as any).retention).toEqual({ kept: 'a test' });
});

test('the purge goes backwards along a chain: executions first, relationships last; every purged kind once, no kept kind', () => {
  expect(purgedKinds()).toEqual(['execution-reference', 'execution-handover', 'transport-commitment', 'transport-tender', 'match-proposal', 'capacity-offer', 'load-request', 'listing-series', 'partner-relationship']);
  expect(purgeOrder([{ kind: 'b', retention: { purged: 'listing' } }, { kind: 'k', retention: { kept: 'x' } }, { kind: 'a', retention: { purged: 'execution' } }])).toEqual(['a', 'b']);
});

test("a record's relationship, policy and hold as SQL, from its definition's link: a field, a record it links to, itself", () => {
  expect(relationshipSql('partner-relationship')).toBe('t.id::text');
  expect(relationshipSql('transport-tender')).toBe(`t.doc->'requiredDecisionPolicy'->>'relationshipId'`);
  expect(relationshipSql('execution-handover')).toBe(
    `(select t_transport_commitment.doc->>'relationshipId' from transport_commitments t_transport_commitment where t_transport_commitment.id::text = t.doc->>'commitmentId')`,
  );
  expect(relationshipSql('capacity-offer')).toBe('null');
  expect(policyRefSql('execution-reference')).toBe(`t.doc->>'retentionPolicyRef'`);
  expect(policyRefSql('load-request')).toBe('null');
  expect(policyRefSql('match-proposal')).toBe(`(select r.doc->>'retentionPolicyRef' from partner_relationships r where r.id::text = t.doc->'requiredDecisionPolicy'->>'relationshipId')`);
  expect(heldSql('listing-series')).toBe('false');
  expect(() => relationshipSql('organization')).toThrow(/organization is kept/);
});

test('a policies file is refused with the reason: a missing or bad period, a relationship shorter than its records, a default that holds or is unknown', () => {
  const bad = (json: unknown) => () => parseRetentionPolicies(json);
  expect(bad({})).toThrow(RetentionPolicyError);
  expect(bad({ default: 'a', policies: { a: { periods: { ...periods('P1Y'), tender: undefined } } } })).toThrow(/a\.periods\.tender/);
  expect(bad({ default: 'a', policies: { a: { periods: { ...periods('P1Y'), listing: '1 year' } } } })).toThrow(/not a positive ISO 8601 duration/);
  expect(bad({ default: 'a', policies: { a: { periods: { ...periods('P1Y'), listing: 'P0D' } } } })).toThrow(/positive/);
  expect(bad({ default: 'a', policies: { a: { periods: { ...periods('P1Y'), execution: 'P2Y' } } } })).toThrow(/relationship: shorter than execution/);
  expect(bad({ default: 'h', policies: { h: { hold: true } } })).toThrow(/a hold cannot be the default/);
  expect(bad({ default: 'x', policies: { a: { periods: periods('P1Y') } } })).toThrow(/default: must name one of the policies \(a\)/);
  expect(bad({ default: 'a b', policies: { 'a b': { periods: periods('P1Y') } } })).toThrow(/without spaces/);
  // Contact details may go sooner than the relationship, and months count as the calendar's.
  expect(parseRetentionPolicies({ default: 'a', policies: { a: { periods: { ...periods('P1Y'), personalData: 'P30D', relationship: 'P12M' } } } }).default).toBe('a');
});

test("a record follows its relationship's policy, else the default; a hold never falls due", () => {
  expect(policyOf(shipped, 'pcx:pilot').ref).toBe('pcx:pilot');
  expect(policyOf(shipped, undefined).ref).toBe('pcx:standard');
  expect(policyOf(shipped, 'gone:policy').ref).toBe('pcx:standard');
  expect(dueAt(shipped.policies['pcx:audit-hold'], 'relationship', '2026-01-01T00:00:00Z')).toBeUndefined();
});

test('due dates are calendar arithmetic in UTC: a year from 29 February, months of different lengths', () => {
  const standard = shipped.policies['pcx:standard'];
  expect(dueAt(standard, 'listing', '2028-02-29T10:00:00.000Z')).toBe('2029-02-28T10:00:00.000Z');
  expect(dueAt(standard, 'tender', '2026-03-31T23:30:00.000Z')).toBe('2036-03-31T23:30:00.000Z');
  expect(dueAt(shipped.policies['pcx:pilot'], 'proposal', '2026-11-28T12:00:00.000Z')).toBe('2027-02-26T12:00:00.000Z');
});

test('the purge reads only records final before now minus the shortest period of any policy', () => {
  expect(oldestDue(shipped, 'listing', '2027-01-01T00:00:00.000Z')).toBe('2026-10-03T00:00:00.000Z');
  // A hold has no period: the bound is the other policies'.
  const onlyHold = parseRetentionPolicies({ default: 'a', policies: { a: { periods: periods('P5Y') }, h: { hold: true } } });
  expect(oldestDue(onlyHold, 'execution', '2030-06-01T00:00:00.000Z')).toBe('2025-06-01T00:00:00.000Z');
});
