// The README's "Trying it with curl" blocks and scripts/walkthrough.sh are the same commands:
// the non-comment lines of the ```sh blocks between <!-- walkthrough:begin --> and
// <!-- walkthrough:end --> in README.md equal, in order, those between `# walkthrough:begin` and
// `# walkthrough:end` in the script. Comments and blank lines may differ; nothing else may.
// test/walkthrough.test.ts runs the script itself against `npm start`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SCRIPT = readFileSync(join(ROOT, 'scripts', 'walkthrough.sh'), 'utf8');

/** The text strictly between the only occurrence of `begin` and the only occurrence of `end`. */
function between(text: string, begin: string, end: string, what: string): { before: string; inside: string; after: string } {
  const parts = text.split(begin);
  if (parts.length !== 2) throw new Error(`${what} must contain "${begin.trim()}" exactly once (found ${parts.length - 1})`);
  const rest = parts[1].split(end);
  if (rest.length !== 2) throw new Error(`${what} must contain "${end.trim()}" exactly once after the begin marker (found ${rest.length - 1})`);
  return { before: parts[0], inside: rest[0], after: rest[1] };
}

/** Lines that are commands: not blank, not a shell comment; trailing blanks ignored. */
function commands(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .filter((line) => line !== '' && !line.trimStart().startsWith('#'));
}

function readmeBlocks(): string[] {
  const { inside } = between(README, '<!-- walkthrough:begin -->', '<!-- walkthrough:end -->', 'README.md');
  const fences = [...inside.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)];
  for (const [, lang] of fences) if (lang !== 'sh') throw new Error(`README walkthrough blocks must be \`\`\`sh, found \`\`\`${lang}`);
  return fences.map((m) => m[2]);
}

describe('README walkthrough and scripts/walkthrough.sh', () => {
  it('show the same commands in the same order', () => {
    const blocks = readmeBlocks();
    expect(blocks.length).toBeGreaterThan(1);
    const script = between(SCRIPT, '\n# walkthrough:begin\n', '\n# walkthrough:end\n', 'scripts/walkthrough.sh');
    const fromReadme = commands(blocks.join('\n'));
    const fromScript = commands(script.inside);
    expect(fromScript.length).toBeGreaterThan(20);
    // On failure jest prints the differing lines; edit README.md or the script until they agree.
    expect(fromReadme).toEqual(fromScript);
  });

  it('the script adds only its strict mode around the README commands', () => {
    const { before, after } = between(SCRIPT, '\n# walkthrough:begin\n', '\n# walkthrough:end\n', 'scripts/walkthrough.sh');
    expect(SCRIPT.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(commands(before)).toEqual(['set -euo pipefail']);
    expect(commands(after)).toEqual([]);
  });

  it('the README says how to run it all and when npm start is ready', () => {
    const section = between(README, '## Trying it with curl\n', '\n## Configuration\n', 'README.md').inside;
    expect(section).toContain('or run them all with `bash scripts/walkthrough.sh`');
    expect(section).toContain('`npm start` is ready when it prints `[start] ready in N s`');
    expect(section).toContain('`curl -s localhost:8080/health/ready` then answers\n`{"status":"ready",...}`');
    for (const id of ['partner-relationship/<id>', 'capacity-offer/<id>', 'load-request/<id>', 'http://localhost:8233']) expect(section).toContain(id);
    for (const attribute of ['PcxOwnerOrganizationId', 'PcxPartnerOrganizationId', 'PcxStatus', 'PcxResourceKind']) expect(section).toContain(attribute);
  });
});

describe('README pcx walkthrough and scripts/walkthrough-pcx.sh', () => {
  it('show the same commands in the same order', () => {
    const { inside } = between(README, '<!-- pcx:begin -->', '<!-- pcx:end -->', 'README.md');
    const fences = [...inside.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)];
    expect(fences.map((f) => f[1])).toEqual(['sh']);
    const script = between(readFileSync(join(ROOT, 'scripts', 'walkthrough-pcx.sh'), 'utf8'), '\n# pcx:begin\n', '\n# pcx:end\n', 'scripts/walkthrough-pcx.sh');
    const fromScript = commands(script.inside);
    expect(fromScript.length).toBeGreaterThan(15);
    expect(commands(fences[0][2])).toEqual(fromScript);
  });
});

describe('README onboarding and scripts/onboard-connector.sh', () => {
  it('show the same commands in the same order', () => {
    const { inside } = between(README, '<!-- onboard:begin -->', '<!-- onboard:end -->', 'README.md');
    const fences = [...inside.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)];
    expect(fences.map((f) => f[1])).toEqual(['sh']);
    const script = between(readFileSync(join(ROOT, 'scripts', 'onboard-connector.sh'), 'utf8'), '\n# onboard:begin\n', '\n# onboard:end\n', 'scripts/onboard-connector.sh');
    const fromScript = commands(script.inside);
    expect(fromScript.length).toBeGreaterThan(10);
    expect(commands(fences[0][2])).toEqual(fromScript);
  });
});

describe('README recurring corridor and scripts/walkthrough-series.sh', () => {
  it('show the same commands in the same order', () => {
    const { inside } = between(README, '<!-- series:begin -->', '<!-- series:end -->', 'README.md');
    const fences = [...inside.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)];
    expect(fences.map((f) => f[1])).toEqual(['sh']);
    const script = between(readFileSync(join(ROOT, 'scripts', 'walkthrough-series.sh'), 'utf8'), '\n# series:begin\n', '\n# series:end\n', 'scripts/walkthrough-series.sh');
    const fromScript = commands(script.inside);
    expect(fromScript.length).toBeGreaterThan(10);
    expect(commands(fences[0][2])).toEqual(fromScript);
  });
});

describe('README new organization and scripts/onboard-organization.sh', () => {
  it('show the same commands in the same order', () => {
    const { inside } = between(README, '<!-- onboard-org:begin -->', '<!-- onboard-org:end -->', 'README.md');
    const fences = [...inside.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)];
    expect(fences.map((f) => f[1])).toEqual(['sh']);
    const script = between(readFileSync(join(ROOT, 'scripts', 'onboard-organization.sh'), 'utf8'), '\n# onboard-org:begin\n', '\n# onboard-org:end\n', 'scripts/onboard-organization.sh');
    const fromScript = commands(script.inside);
    expect(fromScript.length).toBeGreaterThan(10);
    expect(commands(fences[0][2])).toEqual(fromScript);
  });
});
