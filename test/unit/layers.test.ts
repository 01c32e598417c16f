// The layers of docs/architecture.md, checked on the whole tree by dependency-cruiser with the rules
// in .dependency-cruiser.cjs (each rule's comment is the sentence it checks); and the rules shown to
// bite on a small tree that breaks them, so that a rule which matches nothing cannot pass unseen.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const SOURCES = ['*.ts', 'domain', 'core', 'api', 'dev', 'read-model', 'delivery', 'workflows', 'activities', 'gateway', 'sdk/src', 'examples', 'conformance/src', 'scripts'];

/** dependency-cruiser's verdict on `paths` under `cwd`: its exit status and the violations it names. */
function cruise(cwd: string, paths: string[]): { status: number; violations: string[] } {
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs'), '--config', CONFIG, '--output-type', 'err', ...paths], { cwd, encoding: 'utf8', stdio: 'pipe', shell: false });
    return { status: 0, violations: [] };
  } catch (err: any) {
    const output = `${err.stdout ?? ''}${err.stderr ?? ''}`;
    return { status: err.status ?? 1, violations: output.split('\n').filter((l) => /^\s*(error|warn)\s/.test(l)).map((l) => l.trim()) };
  }
}

test("the tree keeps docs/architecture.md's layers", () => {
  const expanded = SOURCES.flatMap((p) => (p === '*.ts' ? execFileSync('sh', ['-c', 'ls *.ts'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n') : [p]));
  expect(cruise(ROOT, expanded)).toEqual({ status: 0, violations: [] });
}, 60_000);

test('each rule bites: core on read-model, domain on Node, a layer on api/, a workflow on core, the gateway past its allowance, the SDK on the broker, a cycle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-layers-'));
  const files: Record<string, string> = {
    'tsconfig.json': '{ "compilerOptions": { "module": "commonjs", "target": "es2022" } }',
    'package.json': '{ "name": "layers-fixture", "private": true }',
    'core/entities.ts': "import { rebuild } from '../read-model/rebuild';\nexport const entities = rebuild;\n",
    'read-model/rebuild.ts': "export const rebuild = 1;\n",
    'domain/ids.ts': "import { randomUUID } from 'node:crypto';\nexport const id = randomUUID;\n",
    'read-model/queries.ts': "import { route } from '../api/route';\nexport const q = route;\n",
    'api/route.ts': "export const route = 1;\n",
    'workflows/entity.ts': "import { db } from '../core/db';\nexport const w = db;\n",
    'core/db.ts': "export const db = 1;\n",
    'core/registry.ts': "export const registry = 1;\n",
    'gateway/http.ts': "import { registry } from '../core/registry';\nimport { db } from '../core/db';\nexport const g = [registry, db];\n",
    'sdk/src/client.ts': "import { id } from '../../domain/ids';\nexport const c = id;\n",
    'core/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
    'core/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  const { status, violations } = cruise(dir, ['core', 'read-model', 'domain', 'api', 'workflows', 'gateway', 'sdk/src']);
  expect(status).not.toBe(0);
  const named = violations.map((v) => v.replace(/^error /, ''));
  expect(named).toEqual(
    expect.arrayContaining([
      'core-below-the-layers: core/entities.ts → read-model/rebuild.ts',
      'domain-without-node: domain/ids.ts → crypto',
      'read-model-below-its-users: read-model/queries.ts → api/route.ts',
      'workflows-on-domain-alone: workflows/entity.ts → core/db.ts',
      'gateway-over-http: gateway/http.ts → core/registry.ts',
      'outside-the-broker-over-http: sdk/src/client.ts → domain/ids.ts',
      expect.stringMatching(/^no-cycles: core\/(a|b)\.ts →/),
      'nothing-imports-the-api: read-model/queries.ts → api/route.ts',
    ]),
  );
  // What the gateway may import is not a violation.
  expect(named.filter((v) => v.includes('gateway/http.ts → core/db.ts'))).toEqual([]);
}, 60_000);

/** SQL as it is written in this project: a statement's opening words, or a query call on a database handle. */
const SQL = /\b(select\s+[\w*.,() ]+\s+from|insert\s+into|delete\s+from|update\s+[a-z_]+\s+set)\b|\b(db|tx|client)\.query\s*(<[^>]*>)?\(/i;

test('api/ holds no SQL: it reads and writes through read-model/ (docs/architecture.md)', () => {
  const files = execFileSync('sh', ['-c', 'ls api/*.ts api/**/*.ts 2>/dev/null | sort -u'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').filter((f) => !f.includes('/generated/'));
  const withSql = files.filter((f) => SQL.test(readFileSync(join(ROOT, f), 'utf8')));
  expect(withSql).toEqual([]);
  // The pattern finds what it is for.
  expect(SQL.test("await db.query('select 1')")).toBe(true);
  expect(SQL.test('`delete from events where id = $1`')).toBe(true);
  expect(SQL.test("c.req.query('kind')")).toBe(false);
});
