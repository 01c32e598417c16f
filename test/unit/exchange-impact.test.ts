// What the exchange delivered (core/exchange-impact.ts): the distance, the baseline's cap at the
// offer's leg, the factor, months by the first commit in UTC, amended and cancelled matches, and
// the CSV (RFC 4180).
import { loadAreaIndex } from '../../core/areas';
import { greatCircleKm } from '../../core/matching/distance';
import {
  committedMatches, csvField, EMISSION_FACTOR, exchangeImpact, exchangeImpactCsv, matchImpact, monthOf, monthsBefore, monthsBetween, type CommitmentFacts,
} from '../../core/exchange-impact';

const position = (code: string) => loadAreaIndex().unlocode(code)!.position!;
const stops = (from: unknown, to: unknown) => [
  { sequence: 2, role: 'delivery', area: to },
  { sequence: 1, role: 'pickup', area: from },
];
const HAM = { kind: 'unlocode', code: 'DEHAM' };
const RTM = { kind: 'unlocode', code: 'NLRTM' };
// Hamburg to Rotterdam by the matching's baseline: great-circle x 1.3.
const HAM_RTM_KM = greatCircleKm(position('DEHAM'), position('NLRTM')) * 1.3;

const commitment = (over: Partial<CommitmentFacts> = {}): CommitmentFacts => ({
  id: '01900000-0000-7000-8000-000000000001',
  status: 'active',
  commitmentVersion: 1,
  acceptedAt: '2026-11-30T23:30:00Z',
  terms: { stops: stops(HAM, RTM) },
  allocation: { weightKg: 12000 },
  ...over,
});

test('the great-circle distance of Hamburg to Rotterdam is about 410 km, and the road baseline 1.3 times that', () => {
  expect(greatCircleKm(position('DEHAM'), position('NLRTM'))).toBeGreaterThan(390);
  expect(greatCircleKm(position('DEHAM'), position('NLRTM'))).toBeLessThan(430);
});

test('one match: km from the pickup to the delivery, capped at the offer leg; t·km and kg CO2e by the GLEC factor', () => {
  const m = matchImpact(commitment(), '2026-11-30T23:30:00Z');
  expect(m).toMatchObject({ month: '2026-11', pickup: 'DEHAM', delivery: 'NLRTM', weightKg: 12000, offerLegKm: null });
  expect(m.loadKm).toBeCloseTo(HAM_RTM_KM, 6);
  expect(m.loadedKm).toBeCloseTo(HAM_RTM_KM, 6);
  expect(m.tonneKm).toBeCloseTo(12 * HAM_RTM_KM, 6);
  expect(m.kgCO2e).toBeCloseTo((12 * HAM_RTM_KM * 101) / 1000, 6);
  expect(EMISSION_FACTOR).toMatchObject({ gCO2ePerTonneKm: 101, scope: 'WTW' });

  // A shorter offer leg caps the kilometres that would have run empty.
  const capped = matchImpact(commitment({ offerLegKm: 300 }), '2026-11-01T00:00:00Z');
  expect(capped).toMatchObject({ offerLegKm: 300, loadedKm: 300, tonneKm: 3600 });
  expect(capped.kgCO2e).toBeCloseTo(363.6, 6);
  // A longer one does not lengthen the load.
  expect(matchImpact(commitment({ offerLegKm: 900 }), '2026-11-01T00:00:00Z').loadedKm).toBeCloseTo(HAM_RTM_KM, 6);

  // Without an allocation the terms' cargo weight, in its unit; without either, no t·km and no CO2e.
  expect(matchImpact(commitment({ allocation: undefined, terms: { stops: stops(HAM, RTM), cargo: { weight: { value: 5, unitCode: 'TNE' } } } }), '2026-11-01T00:00:00Z').weightKg).toBe(5000);
  expect(matchImpact(commitment({ allocation: undefined }), '2026-11-01T00:00:00Z')).toMatchObject({ weightKg: null, tonneKm: null, kgCO2e: null });

  // Areas other than a UN/LOCODE: a circle's centre, a subdivision's box centre; labels say what they are.
  const circle = matchImpact(commitment({ terms: { stops: stops({ kind: 'circle', center: position('DEHAM'), radiusKm: 20 }, { kind: 'subdivision', code: 'NL-ZH' }) } }), '2026-11-01T00:00:00Z');
  expect(circle.pickup).toMatch(/^20 km around /);
  expect(circle.delivery).toBe('NL-ZH');
  expect(circle.loadKm).toBeGreaterThan(300);
});

test('months: UTC, every month of the range, inclusive; arithmetic across years', () => {
  expect(monthOf('2026-11-30T23:30:00-02:00')).toBe('2026-12');
  expect(monthsBetween('2025-11', '2026-02')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
  expect(monthsBetween('2026-02', '2026-02')).toEqual(['2026-02']);
  expect(monthsBefore('2026-03', 11)).toBe('2025-04');
  expect(monthsBefore('2026-01', 1)).toBe('2025-12');
});

test('a chain of amended versions counts once, in the month of its first commit, with the terms in force; a cancelled chain not at all', () => {
  const first = commitment({ id: 'a1', status: 'superseded', acceptedAt: '2026-10-31T22:00:00Z' });
  const second = commitment({ id: 'a2', commitmentVersion: 2, previousCommitmentId: 'a1', acceptedAt: '2026-11-05T10:00:00Z', allocation: { weightKg: 6000 } });
  const cancelled = commitment({ id: 'b1', status: 'cancelled', acceptedAt: '2026-11-02T10:00:00Z' });
  const other = commitment({ id: 'c1', acceptedAt: '2026-11-10T10:00:00Z', allocation: undefined });
  expect(committedMatches([second, first, cancelled, other]).map((m) => [m.current.id, m.committedAt])).toEqual([
    ['a2', '2026-10-31T22:00:00Z'],
    ['c1', '2026-11-10T10:00:00Z'],
  ]);

  const report = exchangeImpact('org-x', [first, second, cancelled, other], '2026-09', '2026-11');
  expect(report.months.map((m) => [m.month, m.matches, m.matchesWithoutWeight])).toEqual([['2026-09', 0, 0], ['2026-10', 1, 0], ['2026-11', 1, 1]]);
  const october = report.months[1];
  expect(october.items.map((i) => i.commitmentId)).toEqual(['a2']);
  expect(october.tonneKm).toBeCloseTo(6 * HAM_RTM_KM, 0);
  expect(october.kgCO2e).toBe(Math.round(((6 * HAM_RTM_KM * 101) / 1000) * 10) / 10);
  expect(report.months[2]).toMatchObject({ tonneKm: 0, kgCO2e: 0 });
  expect(report.months[2].loadedKm).toBe(Math.round(HAM_RTM_KM * 10) / 10);
  expect(report.totals).toMatchObject({ matches: 2, matchesWithoutWeight: 1 });
  expect(report.method.factor.source).toMatch(/GLEC Framework v3/);
  expect(report.method.formula).toMatch(/tonnes x min\(load km, offer leg km\) x factor/);
  // Outside the range: left out.
  expect(exchangeImpact('org-x', [first, second], '2026-11', '2026-12').totals.matches).toBe(0);
});

test('CSV: a header, a row per month with the factor and its source, fields quoted as RFC 4180 wants, CRLF', () => {
  expect(csvField('plain')).toBe('plain');
  expect(csvField(12.5)).toBe('12.5');
  expect(csvField('a, b')).toBe('"a, b"');
  expect(csvField('say "x"')).toBe('"say ""x"""');
  expect(csvField('two\nlines')).toBe('"two\nlines"');

  const csv = exchangeImpactCsv(exchangeImpact('org-x', [commitment({ acceptedAt: '2026-11-03T10:00:00Z' })], '2026-10', '2026-11'));
  const lines = csv.split('\r\n');
  expect(lines[0]).toBe('month,matches,matchesWithoutWeight,loadedKm,tonneKm,kgCO2e,factorGCO2ePerTonneKm,factorSource');
  expect(lines).toHaveLength(4); // header, two months, the empty string after the last CRLF
  expect(lines[3]).toBe('');
  expect(lines[1]).toMatch(/^2026-10,0,0,0,0,0,101,"Articulated truck 34-40 t GVW, average\/mixed load, diesel, Europe, WTW: GLEC Framework v3/);
  const [month, matches, , km, tkm, kg] = lines[2].split(',');
  expect([month, matches]).toEqual(['2026-11', '1']);
  expect(Number(km)).toBe(Math.round(HAM_RTM_KM * 10) / 10);
  expect(Number(tkm)).toBe(Math.round(12 * HAM_RTM_KM * 10) / 10);
  expect(Number(kg)).toBe(Math.round(((12 * HAM_RTM_KM * 101) / 1000) * 10) / 10);
});
