// The report: JSON for machines (every check with its verdict, evidence, passage and exchanges,
// and the exchanges themselves, tokens redacted), Markdown for people, and one summary line for CI.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAMILIES, familyVerdict, type CheckResult, type Family, type FamilyVerdict } from './checks';
import type { Exchange } from './traffic';

export const KIT_VERSION = '0.1.0';

export interface Report {
  kit: { name: string; version: string };
  profile: string;
  baseUrl: string;
  startedAt: string;
  finishedAt: string;
  verdict: FamilyVerdict;
  /** Mandatory checks not found conformant (non-conformant or no traffic) and not expected to fail: the run fails when any. */
  failedMandatory: string[];
  /** Why the run could not be made (the implementation unreachable, the set-up refused): the run proves nothing either way (exit 2). */
  notRun?: string;
  summary: string;
  families: Array<{ family: Family; title: string; verdict: FamilyVerdict; checks: CheckResult[] }>;
  exchanges: Exchange[];
}

export function buildReport(input: { profile: string; baseUrl: string; startedAt: string; results: CheckResult[]; exchanges: Exchange[]; notRun?: string }): Report {
  const families = (Object.keys(FAMILIES) as Family[])
    .map((family) => {
      const checks = input.results.filter((r) => r.family === family);
      return { family, title: FAMILIES[family], verdict: familyVerdict(checks), checks };
    })
    .filter((f) => f.checks.length > 0);
  const count = (v: string) => input.results.filter((r) => r.verdict === v).length;
  // A mandatory check that could not be exercised is no pass either.
  const failedMandatory = input.results.filter((r) => r.mandatory && r.verdict !== 'conformant' && !r.expectedFailure).map((r) => r.id);
  const expected = input.results.filter((r) => r.expectedFailure).length;
  const exercised = familyVerdict(input.results.filter((r) => !r.expectedFailure));
  const verdict: FamilyVerdict = exercised === 'conformant' && failedMandatory.length ? 'partial' : exercised;
  const summary = `${input.profile} profile: ${input.notRun ? `not run (${input.notRun})` : verdict}; ${input.results.length} checks: ${count('conformant')} conformant, ${count('non-conformant')} non-conformant${expected ? ` (${expected} expected)` : ''}, ${count('no traffic')} no traffic; mandatory failing: ${failedMandatory.length ? failedMandatory.join(', ') : 'none'}`;
  return { kit: { name: '@pcx/conformance', version: KIT_VERSION }, profile: input.profile, baseUrl: input.baseUrl, startedAt: input.startedAt, finishedAt: new Date().toISOString(), verdict, failedMandatory, ...(input.notRun ? { notRun: input.notRun } : {}), summary, families, exchanges: input.exchanges };
}

export function markdown(report: Report): string {
  const lines = [
    `# Conformance report: ${report.profile} profile`,
    '',
    `- Implementation: ${report.baseUrl}`,
    `- Kit: ${report.kit.name} ${report.kit.version}; run ${report.startedAt} to ${report.finishedAt}`,
    `- Verdict: **${report.verdict}**`,
    `- ${report.summary}`,
    '',
    '| family | verdict | checks |',
    '|---|---|---|',
    ...report.families.map((f) => `| ${f.title} | ${f.verdict} | ${f.checks.map((c) => `${c.id} ${c.verdict}`).join(', ')} |`),
    '',
  ];
  for (const f of report.families) {
    lines.push(`## ${f.title}: ${f.verdict}`, '');
    for (const c of f.checks) {
      lines.push(`### ${c.id} ${c.title}`, '', `- Verdict: **${c.verdict}**${c.mandatory ? ' (mandatory)' : ' (optional)'}${c.expectedFailure ? `; expected failure: ${c.expectedFailure}` : ''}`, `- Specification: "${c.spec}"`, `- Exchanges: ${c.exchanges.length ? c.exchanges.join(', ') : 'none'}`, '- Evidence:', ...c.evidence.map((e) => `  - ${e}`), '');
    }
  }
  return lines.join('\n');
}

/** Writes report.json and report.md into `dir`; returns their paths. */
export function writeReport(report: Report, dir: string): { json: string; markdown: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'report.json');
  const md = join(dir, 'report.md');
  writeFileSync(json, JSON.stringify(report, null, 2));
  writeFileSync(md, markdown(report));
  return { json, markdown: md };
}

/** The exit code docs/conformance.md promises: 2 when the run could not be made, 1 when a mandatory check is not conformant (expected failures aside), 0 otherwise. */
export function exitCodeOf(report: Pick<Report, 'notRun' | 'failedMandatory'>): 0 | 1 | 2 {
  if (report.notRun) return 2;
  return report.failedMandatory.length ? 1 : 0;
}
