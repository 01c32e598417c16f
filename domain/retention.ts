// Retention policies (issue 34 part 4; docs/retention.md, docs/decisions.md "Retention and
// erasure"): the named data a partner relationship's `retentionPolicyRef` refers to. A policy gives
// a period per class of record, counted from the moment the record reached a final status, after
// which the broker's purge removes it (a tombstone stays), and a period for personal data (contact
// details in handovers), after which they are erased while the record stays. A policy with `hold`
// keeps everything linked to its relationships (an audit or legal hold). Pure: the purge
// (activities/retention.ts) asks these functions what is due.
import { DateTime, Duration } from 'luxon';

/**
 * The classes of record a policy gives a period to, in the order of a chain (a relationship, then
 * the listings it shares, ... then the execution); each kind says its class in its definition
 * (`retention`, domain/resource.ts) and the purge goes backwards along the chain, so that a record
 * goes before what it links to.
 */
export const RECORD_CLASSES = ['relationship', 'listing', 'proposal', 'tender', 'commitment', 'handover', 'execution'] as const;

export type RecordClass = (typeof RECORD_CLASSES)[number];
export type Period = RecordClass | 'personalData';
export const PERIODS: readonly Period[] = [...RECORD_CLASSES, 'personalData'];

/**
 * Where a record names the partner relationship whose retention policy and hold it follows:
 * it is the relationship (`self`), a field of its document names it (`field`, a path), or it links
 * by `by` to a record of kind `through` that names it in turn.
 */
export type RelationshipLink = { self: true } | { field: readonly string[] } | { through: string; by: readonly string[] };

/**
 * What the retention purge does with a kind's records, decided in its definition (a required
 * member of defineResource, so that no kind is left out by omission):
 *  - purged: under its class's period, counted from its final status; it follows the policy its
 *    relationship names (or, with `ownPolicyRef`, the `retentionPolicyRef` the record carries),
 *    the default without one, and is kept while its relationship is held;
 *  - kept: never purged, with the reason.
 */
export type Retention = { purged: RecordClass; relationship?: RelationshipLink; ownPolicyRef?: boolean } | { kept: string };

/** The kinds the purge removes, in the order it purges them: later links of a chain first. */
export function purgeOrder(resources: ReadonlyArray<{ kind: string; retention: Retention }>): string[] {
  const rank = (r: { retention: Retention }) => ('purged' in r.retention ? RECORD_CLASSES.indexOf(r.retention.purged) : -1);
  return resources
    .filter((r) => 'purged' in r.retention)
    .map((r, i) => ({ kind: r.kind, rank: rank(r), i }))
    .sort((a, b) => b.rank - a.rank || a.i - b.i)
    .map((r) => r.kind);
}

export interface RetentionPolicy {
  ref: string;
  title: string;
  /** ISO 8601 durations (P1Y, P90D), by class; absent with `hold`. */
  periods: Partial<Record<Period, string>>;
  hold: boolean;
}

export interface RetentionPolicies {
  default: string;
  policies: Record<string, RetentionPolicy>;
}

export class RetentionPolicyError extends Error {}

function durationOf(value: unknown, where: string): Duration {
  const d = typeof value === 'string' ? Duration.fromISO(value) : undefined;
  if (!d?.isValid || d.toMillis() <= 0) throw new RetentionPolicyError(`${where}: ${JSON.stringify(value)} is not a positive ISO 8601 duration (P90D, P1Y)`);
  return d;
}

/**
 * Reads the policies file's content. Every period is required unless the policy holds; the
 * relationship's is the longest of its policy's record periods, since every record of a chain is
 * kept for the retention period of its linked relationship (specification, invariant 10) and a
 * record must not outlive the relationship that lets its parties see it.
 */
export function parseRetentionPolicies(json: unknown): RetentionPolicies {
  const root = json as { default?: unknown; policies?: Record<string, any> };
  if (!root || typeof root !== 'object' || !root.policies || typeof root.policies !== 'object') throw new RetentionPolicyError('policies: an object of named policies is required');
  const policies: Record<string, RetentionPolicy> = {};
  const base = DateTime.fromISO('2000-01-01T00:00:00Z', { zone: 'utc' });
  for (const [ref, p] of Object.entries(root.policies)) {
    if (!/^\S{1,256}$/u.test(ref)) throw new RetentionPolicyError(`${ref}: a policy's name is 1 to 256 characters without spaces`);
    const hold = p?.hold === true;
    const periods: Partial<Record<Period, string>> = {};
    if (!hold) {
      for (const period of PERIODS) {
        durationOf(p?.periods?.[period], `${ref}.periods.${period}`);
        periods[period] = p.periods[period];
      }
      const end = (period: Period) => base.plus(Duration.fromISO(periods[period]!)).toMillis();
      const longest = PERIODS.filter((c) => c !== 'personalData' && c !== 'relationship').find((c) => end(c) > end('relationship'));
      if (longest) throw new RetentionPolicyError(`${ref}.periods.relationship: shorter than ${longest}'s, but a chain's records are kept no longer than their relationship`);
    }
    policies[ref] = { ref, title: typeof p?.title === 'string' ? p.title : ref, periods, hold };
  }
  const fallback = root.default;
  if (typeof fallback !== 'string' || !policies[fallback]) throw new RetentionPolicyError(`default: must name one of the policies (${Object.keys(policies).join(', ')})`);
  if (policies[fallback].hold) throw new RetentionPolicyError('default: a hold cannot be the default (nothing would ever be purged)');
  return { default: fallback, policies };
}

/** The policy a record follows: the one its relationship names, else the default. */
export function policyOf(policies: RetentionPolicies, ref: string | null | undefined): RetentionPolicy {
  return (ref ? policies.policies[ref] : undefined) ?? policies.policies[policies.default];
}

/** When a record that became final at `finalAt` is due under `policy` for `period`; undefined under a hold. */
export function dueAt(policy: RetentionPolicy, period: Period, finalAt: string): string | undefined {
  if (policy.hold) return undefined;
  const d = policy.periods[period];
  if (!d) return undefined;
  return DateTime.fromISO(finalAt, { zone: 'utc' }).plus(Duration.fromISO(d)).toUTC().toISO()!;
}

/**
 * The earliest moment a record that became final before `now` can be due under any policy for
 * `period`: records final after `now - shortest` are not due yet under any, so the purge reads
 * only those before it.
 */
export function oldestDue(policies: RetentionPolicies, period: Period, now: string): string {
  const nowAt = DateTime.fromISO(now, { zone: 'utc' });
  const ends = Object.values(policies.policies)
    .filter((p) => !p.hold && p.periods[period])
    .map((p) => nowAt.minus(Duration.fromISO(p.periods[period]!)).toMillis());
  return new Date(ends.length ? Math.max(...ends) : 0).toISOString();
}

/** The fields of a handover's delivery that hold personal data (contact persons). */
export const PERSONAL_FIELDS = ['name', 'phone', 'email'] as const;

/** A path into a command's payload or a document; '*' is every item of a list. */
export type PersonalDataPath = readonly string[];

/**
 * Where a kind's commands and documents hold personal data: sealed under a key of the record's
 * own before anything stores them, unreadable once the key is destroyed by an erasure
 * (core/personal-data.ts, crypto-shredding). A payload and its document put them at the same paths.
 */
export const PERSONAL_DATA: Readonly<Record<string, readonly PersonalDataPath[]>> = {
  'execution-handover': PERSONAL_FIELDS.flatMap((field) => [
    ['package', 'contacts', '*', field],
    ['package', 'stops', '*', 'contacts', '*', field],
  ]),
  user: [['name']],
};

/** The retention workflow (workflows/retention.ts): one per broker, i.e. per namespace and task queue (brokers sharing a Temporal namespace have their own read models). */
export const RETENTION_WORKFLOW_ID = 'pcx-retention';
export const retentionWorkflowId = (taskQueue: string) => `${RETENTION_WORKFLOW_ID}/${taskQueue}`;
export const RETENTION_POKE = 'retention-poke';

/** The kind of the tombstones' events (`pcx.purged-record.recorded.v1`, subject purged-records/{id}). */
export const PURGED_RECORD_KIND = 'purged-record';
