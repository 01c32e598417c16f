// The map a newcomer reads is the tree: every file and folder that README.md's Layout and
// docs/architecture.md (its layers, "Where things go", the path of a command, adding a resource or
// a flow) name in backticks exists. A name without a folder in a Layout row is looked for in that
// row's folder; names with placeholders (`<kind>`) and globs are not paths.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const FILE = /^[\w./-]+\.(ts|js|mjs|cjs|json|sql|yaml|yml|md|sh|css|html)$|^[\w.-]+(\/[\w.-]+)*\/$/;

/** The section of a Markdown file under `heading`, up to the next heading of its level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const level = heading.split(' ')[0];
  const next = text.slice(start + heading.length + 2).search(new RegExp(`\\n${level} `));
  return next < 0 ? text.slice(start) : text.slice(start, start + heading.length + 2 + next);
}

/** The backticked names of a text that look like paths (a file with its extension, or a folder ending in /). */
function named(text: string): string[] {
  return [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]).filter((n) => FILE.test(n) && !n.includes('<') && !n.includes('*'));
}

/** Where a name is: as written from the root, or in the folder given (a Layout row's), or under any of the broker's folders. */
function found(name: string, folder?: string): boolean {
  const candidates = [name, ...(folder ? [join(folder, name)] : [])];
  return candidates.some((c) => existsSync(join(ROOT, c)));
}

test("README's Layout names only files and folders that exist, each row's in its folder", () => {
  const layout = section(readFileSync(join(ROOT, 'README.md'), 'utf8'), '## Layout');
  const missing: string[] = [];
  let count = 0;
  for (const row of layout.split('\n').filter((l) => l.startsWith('| `'))) {
    const folder = /^\| `([^`]+\/)`/.exec(row)?.[1];
    for (const name of named(row)) {
      count++;
      if (!found(name, folder) && !found(name, folder && name.includes('/') ? folder : undefined)) missing.push(`${folder ?? 'root'}: ${name}`);
    }
  }
  expect(count).toBeGreaterThan(40);
  expect(missing).toEqual([]);
});

test('docs/architecture.md names only files and folders that exist', () => {
  const text = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const names = [...new Set(named(text))];
  // A bare file name is found in the folder the sentence around it is about: any of the project's.
  const folders = ['', 'domain', 'core', 'read-model', 'delivery', 'activities', 'api', 'dev', 'workflows', 'workflows/flows', 'gateway', 'console', 'scripts', 'test', 'test/unit', 'sdk/src', 'conformance/src', 'conformance/src/broker', 'conformance/src/connector', 'test/time-skipping', 'docs'];
  // Names the console's files are served under, not files (api/console-bundles.ts builds them).
  const served = ['sdk.js', 'ui.js'];
  const missing = names.filter((n) => !served.includes(n) && !folders.some((f) => existsSync(join(ROOT, f, n))));
  expect(names.length).toBeGreaterThan(60);
  expect(missing).toEqual([]);
});
