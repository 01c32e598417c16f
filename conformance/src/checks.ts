// Checks, verdicts and the families of the specification's conformance list. A check runs against
// the implementation and says what it expected; its verdict comes from what it saw:
//   conformant      every expectation held;
//   non-conformant  one did not (the evidence says which, with the exchanges behind it);
//   no traffic      the check could not be exercised (a setting it needs is not given, or a step
//                   before it failed): never counted as passed.
// A family's verdict: conformant when all its exercised checks are, non-conformant when none is,
// partial otherwise; no traffic when none was exercised.

export type Verdict = 'conformant' | 'non-conformant' | 'no traffic';
export type FamilyVerdict = Verdict | 'partial';

/** The conformance list of the specification ("A conformant implementation passes tests for: ..."). */
export const FAMILIES = {
  'schema-validation': 'JSON Schema validation',
  lifecycle: 'Lifecycle transitions',
  idempotency: 'Idempotent retries',
  'stale-writes': 'Stale-write rejection',
  isolation: 'Bilateral visibility isolation',
  disclosure: 'Field-level disclosure',
  events: 'Duplicate and out-of-order events',
  proposals: 'Proposal expiry and withdrawal',
  'decision-policy': 'Explicit decision policy',
  outcomes: 'Execution-outcome deduplication and correction history',
  errors: 'RFC 9457 error responses',
} as const;
export type Family = keyof typeof FAMILIES;

export class NoTraffic extends Error {}

export class ExpectationFailed extends Error {}

export interface CheckContext {
  /** Records an expectation; a false one fails the check at the end (all are evaluated). */
  expect(held: boolean, what: string): void;
  /** Like expect, but stops the check when it fails (later steps need it). */
  require(held: boolean, what: string): void;
  /** A note in the evidence. */
  note(text: string): void;
  /** Ends the check as "no traffic", with the reason. */
  noTraffic(why: string): never;
}

export interface Check<World> {
  id: string;
  family: Family;
  title: string;
  mandatory: boolean;
  /** The specification's passage the check rests on (quoted). */
  spec: string;
  run(world: World, ctx: CheckContext): Promise<void>;
}

export interface CheckResult {
  id: string;
  family: Family;
  title: string;
  mandatory: boolean;
  spec: string;
  verdict: Verdict;
  /** What held and what did not, in order. */
  evidence: string[];
  /** The numbers of the exchanges the check made (report.exchanges). */
  exchanges: number[];
  /** Listed in the expected-failures file: a known deviation, reported but not failing the run. */
  expectedFailure?: string;
  ms: number;
}

export async function runCheck<World>(check: Check<World>, world: World): Promise<Omit<CheckResult, 'exchanges'>> {
  const evidence: string[] = [];
  let failed = false;
  const ctx: CheckContext = {
    expect(held, what) {
      evidence.push(`${held ? 'held' : 'FAILED'}: ${what}`);
      if (!held) failed = true;
    },
    require(held, what) {
      ctx.expect(held, what);
      if (!held) throw new ExpectationFailed(what);
    },
    note(text) {
      evidence.push(`note: ${text}`);
    },
    noTraffic(why) {
      throw new NoTraffic(why);
    },
  };
  const started = Date.now();
  let verdict: Verdict;
  try {
    await check.run(world, ctx);
    verdict = failed ? 'non-conformant' : 'conformant';
  } catch (err) {
    if (err instanceof NoTraffic) {
      evidence.push(`no traffic: ${err.message}`);
      verdict = 'no traffic';
    } else if (err instanceof ExpectationFailed) {
      verdict = 'non-conformant';
    } else {
      // The implementation answered in a way the check could not go on from: that is evidence too.
      evidence.push(`FAILED: ${(err as Error).message}`);
      verdict = 'non-conformant';
    }
  }
  const { id, family, title, mandatory, spec } = check;
  return { id, family, title, mandatory, spec, verdict, evidence, ms: Date.now() - started };
}

export function familyVerdict(results: Array<{ verdict: Verdict }>): FamilyVerdict {
  const exercised = results.filter((r) => r.verdict !== 'no traffic');
  if (exercised.length === 0) return 'no traffic';
  const good = exercised.filter((r) => r.verdict === 'conformant').length;
  if (good === exercised.length) return 'conformant';
  return good === 0 ? 'non-conformant' : 'partial';
}
