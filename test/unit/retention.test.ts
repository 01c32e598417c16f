// The retention policies' rules (domain/retention.ts): what a policies file must hold, which policy
// a record follows, when it falls due (calendar arithmetic in UTC), and the bound the purge reads by.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dueAt, oldestDue, parseRetentionPolicies, policyOf, recordClassOf, RetentionPolicyError } from '../../domain/retention';
import { RESOURCES } from '../../domain/registry';

const shipped = parseRetentionPolicies(JSON.parse(readFileSync(join(__dirname, '..', '..', 'config', 'retention-policies.json'), 'utf8')));
const periods = (d: string) => ({ relationship: d, listing: d, proposal: d, tender: d, commitment: d, handover: d, execution: d, personalData: d });

test('the shipped file: a default, a pilot policy and an audit hold', () => {
  expect(shipped.default).toBe('pcx:standard');
  expect(Object.keys(shipped.policies).sort()).toEqual(['pcx:audit-hold', 'pcx:pilot', 'pcx:standard']);
  expect(shipped.policies['pcx:audit-hold']).toMatchObject({ hold: true, periods: {} });
  expect(shipped.policies['pcx:standard'].periods).toMatchObject({ listing: 'P1Y', relationship: 'P10Y', personalData: 'P1Y' });
});

test('every resource kind that ends is of a class, but the registry\'s own records', () => {
  const unclassified = RESOURCES.filter((r) => recordClassOf(r.kind) === undefined).map((r) => r.kind).sort();
  expect(unclassified).toEqual(['connector', 'organization', 'user']);
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
