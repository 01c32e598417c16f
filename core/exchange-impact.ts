// What the exchange delivered (GET /reports/exchange-impact): per month, the committed matches of an
// organization, the loaded kilometres that would have run empty, and the CO2e they avoided. Pure
// computation over what the read model holds (read-model/exchange-impact.ts reads it); the
// specification leaves "kilometre baseline calculation" open: the choice and why are in
// docs/decisions.md, "What the exchange delivered".
//
// For one committed match (a commitment that consumed the capacity of an accepted proposal):
//   loadKm       road km between the representative points of the accepted terms' first pickup
//                and last delivery area: great-circle x 1.3, the matching's kilometre baseline
//   offerLegKm   the offer's own leg, origin to destination, as the match's explanation gave it
//   loadedKm     min(loadKm, offerLegKm): km the carrier's vehicle drives anyway (it offered the
//                leg) and now drives loaded instead of with that capacity empty
//   tonneKm      tonnes committed x loadedKm
//   kgCO2e       tonneKm x the GLEC default intensity / 1000: what the load would have emitted on
//                a vehicle of its own (the default includes average load and empty running)
import { boundingBox, type Area, type SingleArea } from './areas';
import { DEFAULT_MATCH_SETTINGS, referencePoint } from './matching/compatibility';
import { toBaseCapacity } from '../domain/capacity';

/** The emission intensity the report uses, with where it comes from (shown with every report). */
export const EMISSION_FACTOR = {
  gCO2ePerTonneKm: 101,
  scope: 'WTW',
  vehicle: 'Articulated truck 34-40 t GVW, average/mixed load, diesel',
  region: 'Europe',
  source: 'GLEC Framework v3 (Smart Freight Centre, ISO 14083 aligned), default road emission intensity, Table 8 (Europe and South America): well-to-wheel, including average load factor and empty running',
} as const;

export const METHOD = {
  baseline:
    'A committed match fills capacity the carrier offered on a leg it drives anyway. The kilometres that would have run empty are ' +
    'the load\u2019s road distance (first pickup to last delivery of the accepted terms), at most the offer\u2019s own leg. ' +
    'Without the exchange the load would have needed a vehicle of its own: the CO2e avoided is what the GLEC default ' +
    'intensity gives for the load\u2019s tonne-kilometres on those kilometres.',
  distance: `${DEFAULT_MATCH_SETTINGS.distance.name}: great-circle distance between the areas\u2019 representative points (a UN/LOCODE\u2019s coordinates, a circle\u2019s centre, else the centre of the area\u2019s bounding box) times a road factor of 1.3`,
  formula: 'kg CO2e = tonnes x min(load km, offer leg km) x factor (g CO2e per t\u00b7km) / 1000',
  months: 'by the month (UTC) the match was first committed; amended matches count once, with the terms in force; cancelled ones not at all',
  omitted:
    'matches whose weight is not known count in matches and kilometres, not in tonne-kilometres or CO2e; the extra fuel the ' +
    'load\u2019s weight costs the carrier\u2019s vehicle and any detour are not subtracted, so the CO2e is an upper estimate',
} as const;

/** What the report reads of one commitment version. */
export interface CommitmentFacts {
  id: string;
  status: string;
  commitmentVersion: number;
  previousCommitmentId?: string;
  acceptedAt: string;
  terms: { stops: Array<{ sequence: number; role: string; area: unknown }>; cargo?: { weight?: { value: number; unitCode: string } } };
  allocation?: { weightKg?: number };
  /** The originating proposal's explanation: the offer's leg in km (absent in old proposals). */
  offerLegKm?: number;
}

export interface MatchImpact {
  commitmentId: string;
  month: string;
  committedAt: string;
  pickup: string;
  delivery: string;
  weightKg: number | null;
  loadKm: number;
  offerLegKm: number | null;
  loadedKm: number;
  tonneKm: number | null;
  kgCO2e: number | null;
}

export interface MonthImpact {
  month: string;
  matches: number;
  matchesWithoutWeight: number;
  loadedKm: number;
  tonneKm: number;
  kgCO2e: number;
  items: MatchImpact[];
}

export interface ExchangeImpact {
  organizationId: string;
  from: string;
  to: string;
  months: MonthImpact[];
  totals: Omit<MonthImpact, 'month' | 'items'>;
  method: typeof METHOD & { factor: typeof EMISSION_FACTOR };
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
export const MAX_MONTHS = 120;

export const isMonth = (text: string) => MONTH.test(text);
/** YYYY-MM of an instant, in UTC. */
export const monthOf = (iso: string) => new Date(iso).toISOString().slice(0, 7);
const monthIndex = (month: string) => Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
const monthAt = (index: number) => `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
/** Every month from `from` to `to`, both included. */
export function monthsBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let i = monthIndex(from); i <= monthIndex(to); i++) out.push(monthAt(i));
  return out;
}
/** The month `n` months before `month` (negative: after). */
export const monthsBefore = (month: string, n: number) => monthAt(monthIndex(month) - n);

const round1 = (n: number) => Math.round(n * 10) / 10;

/** A short label of an area: its codes, or what kind of shape it is. */
export function areaLabel(area: unknown): string {
  const a = area as Area;
  const one = (s: SingleArea): string => (s.kind === 'unlocode' || s.kind === 'country' || s.kind === 'subdivision' ? s.code : s.kind === 'circle' ? `${s.radiusKm} km around ${s.center[1]}, ${s.center[0]}` : 'polygon');
  return a?.kind === 'list' ? a.areas.map(one).join(' + ') : one(a);
}

/** The figures of one committed match, from the version in force. */
export function matchImpact(c: CommitmentFacts, committedAt: string): MatchImpact {
  const stops = [...c.terms.stops].sort((x, y) => x.sequence - y.sequence);
  const pickup = stops.find((s) => s.role === 'pickup') ?? stops[0];
  const delivery = [...stops].reverse().find((s) => s.role === 'delivery') ?? stops[stops.length - 1];
  const point = (area: unknown) => referencePoint(area as Area, boundingBox(area as Area));
  const loadKm = DEFAULT_MATCH_SETTINGS.distance.km(point(pickup.area), point(delivery.area));
  const offerLegKm = typeof c.offerLegKm === 'number' && Number.isFinite(c.offerLegKm) ? c.offerLegKm : null;
  const loadedKm = offerLegKm === null ? loadKm : Math.min(loadKm, offerLegKm);
  const weightKg = c.allocation?.weightKg ?? (c.terms.cargo?.weight ? toBaseCapacity({ weight: c.terms.cargo.weight }).weightKg : undefined) ?? null;
  const tonneKm = weightKg === null ? null : (weightKg / 1000) * loadedKm;
  return {
    commitmentId: c.id,
    month: monthOf(committedAt),
    committedAt,
    pickup: areaLabel(pickup.area),
    delivery: areaLabel(delivery.area),
    weightKg,
    loadKm,
    offerLegKm,
    loadedKm,
    tonneKm,
    kgCO2e: tonneKm === null ? null : (tonneKm * EMISSION_FACTOR.gCO2ePerTonneKm) / 1000,
  };
}

/**
 * The committed matches among the versions of commitments: per chain of versions (an amendment
 * makes the next), the version in force and the time the first was committed. A chain whose
 * newest version is cancelled delivered nothing; one still being superseded (no active version
 * read yet) is left out until its next version is in the read model.
 */
export function committedMatches(versions: readonly CommitmentFacts[]): Array<{ current: CommitmentFacts; committedAt: string }> {
  const byId = new Map(versions.map((v) => [v.id, v]));
  const out: Array<{ current: CommitmentFacts; committedAt: string }> = [];
  for (const v of versions) {
    if (v.status !== 'active') continue;
    let first = v;
    const seen = new Set<string>([v.id]);
    while (first.previousCommitmentId && byId.has(first.previousCommitmentId) && !seen.has(first.previousCommitmentId)) {
      first = byId.get(first.previousCommitmentId)!;
      seen.add(first.id);
    }
    out.push({ current: v, committedAt: first.acceptedAt });
  }
  return out;
}

/** The report of one organization for the months from `from` to `to` (YYYY-MM, both included). */
export function exchangeImpact(organizationId: string, versions: readonly CommitmentFacts[], from: string, to: string): ExchangeImpact {
  const months = new Map<string, MonthImpact>(
    monthsBetween(from, to).map((month) => [month, { month, matches: 0, matchesWithoutWeight: 0, loadedKm: 0, tonneKm: 0, kgCO2e: 0, items: [] }]),
  );
  for (const { current, committedAt } of committedMatches(versions)) {
    const row = months.get(monthOf(committedAt));
    if (!row) continue;
    const impact = matchImpact(current, committedAt);
    row.items.push(impact);
    row.matches += 1;
    row.loadedKm += impact.loadedKm;
    if (impact.tonneKm === null) row.matchesWithoutWeight += 1;
    else (row.tonneKm += impact.tonneKm), (row.kgCO2e += impact.kgCO2e!);
  }
  const rows = [...months.values()];
  const totals = { matches: 0, matchesWithoutWeight: 0, loadedKm: 0, tonneKm: 0, kgCO2e: 0 };
  for (const r of rows) for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += r[k];
  const rounded = <T extends Omit<MonthImpact, 'month' | 'items'>>(r: T): T => ({ ...r, loadedKm: round1(r.loadedKm), tonneKm: round1(r.tonneKm), kgCO2e: round1(r.kgCO2e) });
  const item = (m: MatchImpact): MatchImpact => ({
    ...m,
    loadKm: round1(m.loadKm),
    loadedKm: round1(m.loadedKm),
    tonneKm: m.tonneKm === null ? null : round1(m.tonneKm),
    kgCO2e: m.kgCO2e === null ? null : round1(m.kgCO2e),
  });
  return {
    organizationId,
    from,
    to,
    months: rows.map((r) => ({ ...rounded(r), items: r.items.sort((a, b) => a.committedAt.localeCompare(b.committedAt)).map(item) })),
    totals: rounded(totals),
    method: { ...METHOD, factor: EMISSION_FACTOR },
  };
}

// ---- CSV (RFC 4180) -----------------------------------------------------------------------------

export const CSV_COLUMNS = ['month', 'matches', 'matchesWithoutWeight', 'loadedKm', 'tonneKm', 'kgCO2e', 'factorGCO2ePerTonneKm', 'factorSource'] as const;

/** One field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break. */
export function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The report's months as CSV: a header, one row per month, each with the factor and its source. */
export function exchangeImpactCsv(report: ExchangeImpact): string {
  const { factor } = report.method;
  const source = `${factor.vehicle}, ${factor.region}, ${factor.scope}: ${factor.source}`;
  const lines = [CSV_COLUMNS.join(',')];
  for (const m of report.months) {
    lines.push([m.month, m.matches, m.matchesWithoutWeight, m.loadedKm, m.tonneKm, m.kgCO2e, factor.gCO2ePerTonneKm, source].map(csvField).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
