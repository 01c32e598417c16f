// `npm run fuzz`: schemathesis against a broker of its own, as two organizations, time-boxed.
//
// 1. Finds Python 3.12 or newer and keeps schemathesis (scripts/fuzz-requirements.txt, exact pins)
//    in a venv at .tools/fuzz-venv.
// 2. Starts a fresh stack on free ports (test/stack.ts: an in-memory Temporal dev server, the broker
//    on PGlite under .data/fuzz/broker), whose registry holds only the two fuzz organizations of
//    config/fuzz/, so the run never touches the demo organizations' invite limits.
// 3. Makes them partners through the API (an active relationship granting every sharing scope)
//    and seeds a small market (offers, requests, an open and an accepted match, its execution
//    reference, a tender accepted by both, its commitment and a handover), whose ids
//    config/fuzz/schemathesis.toml feeds to the generated requests (.data/fuzz/dictionaries/).
// 4. Runs schemathesis twice at once, one process pinned to each organization (config/fuzz/auth.json,
//    config/fuzz/schemathesis.toml), every check, all four phases, within the time budget.
// 5. Writes the summary into docs/fuzz.md (between its markers), keeps the raw reports under
//    .data/fuzz/, and stops the stack, also on Ctrl-C or failure.
//
// Environment: FUZZ_SECONDS (whole run, default 600), FUZZ_WORKERS (per organization, default 2),
// FUZZ_SEED (schemathesis --seed), FUZZ_OPENAPI (the document's path, default
// /openapi.bundled.json when the broker serves it, else /openapi.json), PYTHON (interpreter for the venv), FUZZ_NO_DOCS=1 (leave
// docs/fuzz.md alone; the summary is still written to .data/fuzz/summary.md), FUZZ_KEEP=1 (keep
// the stack running after the summary, to replay its curl lines, until Ctrl-C).
// Exit code: 0 when no check failed, 1 when some did, 2 when the run itself could not be made or
// did not finish (docs/fuzz.md is then left as it was).
import { readBody, waitFor } from '../sdk/src';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomInt } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { startBroker, startTemporal, type BrokerHandle } from '../test/stack';
import { testCertificates } from '../test/tls';
import { startReceiver, type Receiver } from '../test/webhook-receiver';
import { nameBasedId } from '../core/name-ids';

const ROOT = resolve(__dirname, '..');
const RUN_DIR = join(ROOT, '.data', 'fuzz');
const VENV = join(ROOT, '.tools', 'fuzz-venv');
const REQUIREMENTS = join(__dirname, 'fuzz-requirements.txt');
const CONFIG_DIR = join(ROOT, 'config', 'fuzz');
const DOC = join(ROOT, 'docs', 'fuzz.md');
const BEGIN = '<!-- fuzz:summary:begin -->';
const END = '<!-- fuzz:summary:end -->';

const started = Date.now();
const budgetSeconds = positiveInt('FUZZ_SECONDS', 600);
const workers = positiveInt('FUZZ_WORKERS', 2);
const seed = process.env.FUZZ_SEED ? positiveInt('FUZZ_SEED', 0) : randomInt(1, 2 ** 31);

interface Party {
  name: string; // schemathesis user name (= organization id)
  organizationId: string;
  clientId: string;
  secret: string;
  token?: string;
}
const PARTIES: Party[] = JSON.parse(readFileSync(join(CONFIG_DIR, 'connectors.json'), 'utf8')).map((c: any) => ({
  name: c.organizationId,
  organizationId: c.organizationId,
  clientId: c.clientId,
  secret: c.clientSecret,
}));
const [CARRIER, SHIPPER] = PARTIES;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) fail(`${name} must be a positive integer, not ${JSON.stringify(raw)}`);
  return value;
}

function log(message: string) {
  process.stderr.write(`[fuzz] ${message}\n`);
}

function fail(message: string): never {
  process.stderr.write(`[fuzz] ${message}\n`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Python 3.12+ and the venv

/** The first interpreter that runs and is 3.12 or newer: PYTHON, then python3.x on PATH, then pyenv's. */
function findPython(): { path: string; version: string } {
  const probe = (cmd: string) => {
    const r = spawnSync(cmd, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3]); print(sys.executable)'], { encoding: 'utf8' });
    if (r.status !== 0 || !r.stdout) return undefined;
    const [version, path] = r.stdout.trim().split('\n');
    const [major, minor] = version.split('.').map(Number);
    return { version, path, ok: major > 3 || (major === 3 && minor >= 12) };
  };
  if (process.env.PYTHON) {
    const found = probe(process.env.PYTHON);
    if (!found) fail(`PYTHON=${process.env.PYTHON} does not run`);
    if (!found.ok) fail(`PYTHON=${process.env.PYTHON} is Python ${found.version}; schemathesis here needs 3.12 or newer`);
    return found;
  }
  const tried: string[] = [];
  const candidates = ['python3.14', 'python3.13', 'python3.12', 'python3'];
  const pyenvRoot = process.env.PYENV_ROOT ?? join(homedir(), '.pyenv');
  const versionsDir = join(pyenvRoot, 'versions');
  if (existsSync(versionsDir)) {
    const versions = readdirSync(versionsDir)
      .filter((v) => /^3\.\d+\.\d+$/.test(v))
      .sort((a, b) => {
        const [x, y] = [a, b].map((v) => v.split('.').map(Number));
        return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
      });
    for (const v of versions) candidates.push(join(versionsDir, v, 'bin', 'python3'));
  }
  for (const cmd of candidates) {
    const found = probe(cmd);
    tried.push(`${cmd}: ${found ? found.version : 'does not run'}`);
    if (found?.ok) return found;
  }
  fail(`no Python 3.12 or newer found (schemathesis' Hypothesis fails with several workers on 3.11). Tried:\n  ${tried.join('\n  ')}\nInstall one, or name it with PYTHON=/path/to/python3.12`);
}

function ensureVenv(): { st: string; python: string } {
  const python = findPython();
  const requirements = readFileSync(REQUIREMENTS, 'utf8');
  const stamp = createHash('sha256').update(`${python.version}\n${requirements}`).digest('hex');
  const stampFile = join(VENV, '.pcx-requirements-stamp');
  const st = join(VENV, 'bin', 'schemathesis');
  if (existsSync(st) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return { st, python: python.version };
  log(`installing schemathesis (${relative(ROOT, REQUIREMENTS)}) into ${relative(ROOT, VENV)} with Python ${python.version} (${python.path})`);
  rmSync(VENV, { recursive: true, force: true });
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${r.status})`);
  };
  run(python.path, ['-m', 'venv', VENV]);
  run(join(VENV, 'bin', 'python'), ['-m', 'pip', 'install', '-qq', '--disable-pip-version-check', '--no-deps', '-r', REQUIREMENTS]);
  writeFileSync(stampFile, stamp);
  return { st, python: python.version };
}

// ---------------------------------------------------------------------------------------------
// The stack and its cleanup

let temporal: Awaited<ReturnType<typeof startTemporal>> | undefined;
let broker: BrokerHandle | undefined;
let receiver: Receiver | undefined;
const fuzzers = new Set<ChildProcess>();
let stopping: Promise<void> | undefined;
let interrupted = false;

function stopAll(): Promise<void> {
  stopping ??= (async () => {
    for (const child of fuzzers) if (child.exitCode === null) child.kill('SIGINT');
    await Promise.all(
      [...fuzzers].map(
        (child) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            const kill = setTimeout(() => child.kill('SIGKILL'), 10000);
            child.once('exit', () => {
              clearTimeout(kill);
              done();
            });
          }),
      ),
    );
    // The broker first (it drains its worker), then Temporal.
    await broker?.stop().catch(() => undefined);
    await temporal?.stop().catch(() => undefined);
    await receiver?.close().catch(() => undefined);
    receiver = undefined;
    broker = undefined;
    temporal = undefined;
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping schemathesis, the broker and Temporal`);
    stopAll().then(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// HTTP as a party (setup only)

async function call(party: Party | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const h: Record<string, string> = { ...headers };
  if (party?.token) h.authorization = `Bearer ${party.token}`;
  if (body !== undefined) h['content-type'] = 'application/json';
  const res = await fetch(`${broker!.baseUrl}${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await readBody(res)) as any, etag: res.headers.get('etag') ?? '' };
}

async function expectStatus(want: number, party: Party, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const reply = await call(party, method, path, body, headers);
  if (reply.status !== want) throw new Error(`${party.organizationId}: ${method} ${path} answered ${reply.status}, expected ${want}: ${JSON.stringify(reply.body)}`);
  return reply;
}

async function token(party: Party) {
  const res = await fetch(`${broker!.baseUrl}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: party.clientId, client_secret: party.secret }),
  });
  if (res.status !== 200) throw new Error(`token for ${party.clientId}: ${res.status} ${await res.text()}`);
  party.token = ((await res.json()) as any).access_token;
}

const iso = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The carrier invites the shipper with every scope the fuzz organizations grant; the shipper accepts. */
async function makePartners(): Promise<string> {
  const granted: string[] = JSON.parse(readFileSync(join(CONFIG_DIR, 'organizations.json'), 'utf8')).find(
    (o: any) => o.organizationId === CARRIER.organizationId,
  ).partneringPolicy.grantedScopes;
  const created = await expectStatus(201, CARRIER, 'POST', '/partner-relationships', {
    requestingOrganizationId: CARRIER.organizationId,
    acceptingOrganizationId: SHIPPER.organizationId,
    scopes: granted,
  });
  const id = created.body.id;
  const requested = await expectStatus(200, CARRIER, 'POST', `/partner-relationships/${id}/request`, undefined, { 'if-match': created.etag });
  const accepted = await expectStatus(200, SHIPPER, 'POST', `/partner-relationships/${id}/accept`, undefined, { 'if-match': requested.etag });
  if (accepted.body.status !== 'active') throw new Error(`relationship ${id} is ${accepted.body.status}, not active`);
  return id;
}

const offerBody = () => ({
  availabilityWindow: { start: iso(24), end: iso(72), timeZone: 'Europe/Berlin' },
  originArea: { kind: 'unlocode', code: 'DEHAM' },
  destinationArea: { kind: 'unlocode', code: 'NLRTM' },
  vehicleProfile: { bodyType: 'curtainsider', equipment: ['tailLift'] },
  availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
  maximumDetour: { kilometres: 80 },
  expiresAt: iso(48),
  visibility: { mode: 'partners', organizationIds: [SHIPPER.organizationId] },
  restrictedDetails: { price: { amount: 900, currency: 'EUR' } },
  externalReferences: [{ system: 'fuzz-tms', type: 'trip', value: 'T-1' }],
});

const requestBody = (pallets: number) => ({
  pickupArea: { kind: 'subdivision', code: 'DE-HH' },
  pickupWindow: { start: iso(26), end: iso(30) },
  deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
  deliveryWindow: { start: iso(36), end: iso(48), timeZone: 'Europe/Amsterdam' },
  requiredCapacity: { weight: { value: 5000, unitCode: 'KGM' }, palletSpaces: pallets },
  vehicleRequirements: { bodyTypes: ['curtainsider'] },
  goodsProfile: { category: 'retail', packaging: 'pallets' },
  expiresAt: iso(48),
  visibility: { mode: 'partners', organizationIds: [CARRIER.organizationId] },
  restrictedDetails: { deliveryAddress: { lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' } },
});

/** What the seeding made, by dictionary name (config/fuzz/schemathesis.toml). */
type Seeded = Record<'relationships' | 'offers' | 'requests' | 'proposals' | 'tenders' | 'commitments' | 'references' | 'handovers' | 'subscriptions' | 'deliveries', string[]>;

/**
 * A webhook subscription of each organization to the run's receiver (HTTPS on 127.0.0.1, a test
 * authority; allow-listed for this broker only), made before the market so that its events
 * become deliveries the fuzzers can list and redeliver.
 */
async function seedSubscriptions(seeded: Seeded) {
  for (const party of PARTIES) {
    const created = await expectStatus(201, party, 'POST', '/webhook-subscriptions', { url: receiver!.url(`/fuzz/${party.organizationId}`), description: 'fuzz receiver' });
    seeded.subscriptions.push(created.body.id);
  }
}

/** Deliveries of the seeded subscriptions, once the market's events reached them. */
async function seedDeliveries(seeded: Seeded) {
  for (const [i, party] of PARTIES.entries()) {
    const id = seeded.subscriptions[i];
    const deliveries = await waitFor(`deliveries of subscription ${id}`, async () => {
      const list = await expectStatus(200, party, 'GET', `/webhook-subscriptions/${id}/deliveries`);
      return list.body.items.length ? list.body.items : undefined;
    });
    seeded.deliveries.push(...deliveries.slice(0, 3).map((d: { id: string }) => d.id));
  }
}

/**
 * A small market the fuzzers start from, made through the API as the walkthrough makes it: the
 * carrier's offer (published) and a draft one, the shipper's requests (two published, matched
 * into one open proposal and one accepted by both; one draft), the execution reference of the
 * accepted match, the shipper's tender for it accepted by both (a commitment), and the
 * shipper's handover for that commitment. Best effort: what fails is noted in the summary and
 * fuzzing goes on with what was made.
 */
async function seedMarket(seeded: Seeded) {
  const offer = await expectStatus(201, CARRIER, 'POST', '/capacity-offers', offerBody());
  seeded.offers.push(offer.body.id);
  await expectStatus(200, CARRIER, 'POST', `/capacity-offers/${offer.body.id}/publish`, undefined, { 'if-match': offer.etag });
  seeded.offers.push((await expectStatus(201, CARRIER, 'POST', '/capacity-offers', offerBody())).body.id);
  seeded.requests.push((await expectStatus(201, SHIPPER, 'POST', '/load-requests', requestBody(4))).body.id);
  const proposals: any[] = [];
  for (const pallets of [8, 10]) {
    const request = await expectStatus(201, SHIPPER, 'POST', '/load-requests', requestBody(pallets));
    seeded.requests.push(request.body.id);
    await expectStatus(200, SHIPPER, 'POST', `/load-requests/${request.body.id}/publish`, undefined, { 'if-match': request.etag });
    const proposal = await waitFor(`a proposal for load request ${request.body.id}`, async () => {
      const list = await expectStatus(200, SHIPPER, 'GET', `/match-proposals?request=${request.body.id}`);
      return list.body.items[0];
    });
    seeded.proposals.push(proposal.id);
    proposals.push(proposal);
  }
  const accepted = proposals[1];
  const first = await expectStatus(200, SHIPPER, 'POST', `/match-proposals/${accepted.id}/decisions`, { decision: 'accept' }, { 'if-match': `"${accepted.resourceVersion}"` });
  const committed = await expectStatus(200, CARRIER, 'POST', `/match-proposals/${accepted.id}/decisions`, { decision: 'accept' }, { 'if-match': first.etag });
  if (committed.body.decisionState !== 'COMMITTED') throw new Error(`proposal ${accepted.id} is ${committed.body.decisionState} after both accepts`);
  const reference = await waitFor(`the execution reference of proposal ${accepted.id}`, async () => {
    const list = await expectStatus(200, SHIPPER, 'GET', `/execution-references?proposal=${accepted.id}`);
    return list.body.items[0];
  });
  seeded.references.push(reference.id);
  const tender = await expectStatus(201, SHIPPER, 'POST', '/transport-tenders', {
    executingOrganizationId: CARRIER.organizationId,
    originatingProposalId: accepted.id,
    movementScope: 'fullTransport',
    expiresAt: iso(24), // an hour before the pickup window (26-30 h) ends at the latest (WINDOW_PASSED rules)
  });
  seeded.tenders.push(tender.body.id);
  const issued = await expectStatus(200, SHIPPER, 'POST', `/transport-tenders/${tender.body.id}/issue`, undefined, { 'if-match': tender.etag });
  const carrierAccepts = await expectStatus(200, CARRIER, 'POST', `/transport-tenders/${tender.body.id}/decisions`, { decision: 'accept', revision: 1 }, { 'if-match': issued.etag });
  const shipperAccepts = await expectStatus(200, SHIPPER, 'POST', `/transport-tenders/${tender.body.id}/decisions`, { decision: 'accept', revision: 1 }, { 'if-match': carrierAccepts.etag });
  const commitment = shipperAccepts.body.commitmentId;
  if (!commitment) throw new Error(`tender ${tender.body.id} accepted by both has no commitmentId: ${JSON.stringify(shipperAccepts.body)}`);
  seeded.commitments.push(commitment);
  const handover = await expectStatus(201, SHIPPER, 'POST', '/execution-handovers', {
    commitmentId: commitment,
    package: {
      stops: [
        { sequence: 1, role: 'pickup', timeWindow: { start: iso(27), end: iso(28) }, location: { address: { lines: ['Kaistrasse 7'], postalCode: '20457', city: 'Hamburg', countryCode: 'DE' } } },
        { sequence: 2, role: 'delivery', timeWindow: { start: iso(38), end: iso(40) }, location: { address: { lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' } } },
      ],
      cargo: { description: 'ten pallets', weight: { value: 5, unitCode: 'TNE' }, palletSpaces: 10 },
    },
    sourceExternalReferences: [{ system: 'fuzz-erp', type: 'shipment', value: 'S-1' }],
  });
  seeded.handovers.push(handover.body.id);
}

/** The dictionary files config/fuzz/schemathesis.toml reads: seeded ids, and times ahead. */
function writeDictionaries(seeded: Seeded) {
  const dir = join(RUN_DIR, 'dictionaries');
  mkdirSync(dir, { recursive: true });
  const write = (name: string, values: string[]) =>
    writeFileSync(join(dir, `${name}.dict`), values.map((v) => JSON.stringify(v)).join('\n') + '\n');
  // A dictionary may not be empty: an id nothing has stands in for a kind the seeding did not reach.
  for (const [name, ids] of Object.entries(seeded)) write(name, ids.length ? ids : ['00000000-0000-7000-8000-000000000000']);
  write('times', [1, 6, 20, 24, 26, 30, 36, 48, 72, 120].map((h) => iso(h)));
}

// ---------------------------------------------------------------------------------------------
// schemathesis

interface FuzzRun {
  party: Party;
  reportDir: string;
  logFile: string;
  exitCode: number | null;
}

/** What the summary needs of a run, kept in .data/fuzz/run.json (for --summary-only). */
interface RunInfo {
  version: string;
  python: string;
  maxTime: number;
  document: string;
  budgetSeconds: number;
  workers: number;
  seed: number;
  started: number;
  finished: number;
  code: string;
  notes: string[];
  baseUrl: string;
  runs: FuzzRun[];
}

/**
 * The document to fuzz: FUZZ_OPENAPI, else /openapi.bundled.json (every schema under
 * components/schemas), else /openapi.json. The two describe the same API; from the bundled one
 * schemathesis infers which response feeds which request (its stateful links: 582 against 12 for
 * /openapi.json, whose schemas are files of their own), so the stateful phase gets much further.
 */
async function openApiPath(): Promise<string> {
  if (process.env.FUZZ_OPENAPI) return process.env.FUZZ_OPENAPI;
  const bundled = await fetch(`${broker!.baseUrl}/openapi.bundled.json`).then((r) => r.status === 200, () => false);
  return bundled ? '/openapi.bundled.json' : '/openapi.json';
}

function runSchemathesis(st: string, party: Party, maxTime: number, document: string): Promise<FuzzRun> {
  const reportDir = join(RUN_DIR, 'reports', party.name);
  const logFile = join(RUN_DIR, `schemathesis-${party.name}.log`);
  mkdirSync(reportDir, { recursive: true });
  const args = [
    '--config-file', join(CONFIG_DIR, 'schemathesis.toml'),
    'run', `${broker!.baseUrl}${document}`,
    '--checks', 'all',
    '--phases', 'examples,coverage,fuzzing,stateful',
    '--max-time', String(maxTime),
    '--workers', String(workers),
    '--seed', String(seed),
    '--report', 'junit,json,ndjson',
    '--report-dir', reportDir,
    // Go on testing an operation after its first failure, so that one failure does not hide others.
    '--continue-on-failure',
    // The event stream answers for as long as its token lives (GET /events/stream): every call
    // would end in the request timeout. Its cursor handling is GET /events's, fuzzed there.
    '--exclude-operation-id', 'streamEvents',
    '--no-color',
  ];
  const child = spawn(st, args, {
    // schemathesis and Hypothesis keep caches (.schemathesis/, .hypothesis/) in the working
    // directory: the run's folder, not the repository.
    cwd: RUN_DIR,
    env: {
      ...process.env,
      PCX_FUZZ_USER: party.name,
      PCX_FUZZ_AUTH_FILE: join(CONFIG_DIR, 'auth.json'),
      // config/fuzz/hooks.py: no command on the connectors the runs authenticate as (a retire locked a run out).
      SCHEMATHESIS_HOOKS: join(CONFIG_DIR, 'hooks.py'),
      PCX_FUZZ_PROTECTED_CONNECTORS: PARTIES.map((p) => nameBasedId('connector', p.clientId)).join(','),
      PYTHONUNBUFFERED: '1',
      COLUMNS: '160',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  fuzzers.add(child);
  const out = createWriteStream(logFile);
  out.write(`$ ${st} ${args.join(' ')}\n`);
  const prefix = `[${party.name}] `;
  let partial = '';
  const echo = (chunk: Buffer) => {
    out.write(chunk);
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line.trim()) process.stdout.write(prefix + line + '\n');
  };
  child.stdout!.on('data', echo);
  child.stderr!.on('data', echo);
  // A backstop: schemathesis stops itself at --max-time; past it, it is stopped.
  const backstop = setTimeout(() => {
    log(`${party.name}: schemathesis still running ${maxTime + 120} s after its start; interrupting it`);
    child.kill('SIGINT');
    setTimeout(() => child.kill('SIGKILL'), 15000).unref();
  }, (maxTime + 120) * 1000);
  return new Promise((done) => {
    child.once('exit', (code) => {
      clearTimeout(backstop);
      out.end();
      done({ party, reportDir, logFile, exitCode: code });
    });
  });
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const { st, python } = ensureVenv();
  const version = spawnSync(st, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^.*version /, '');
  rmSync(RUN_DIR, { recursive: true, force: true });
  mkdirSync(RUN_DIR, { recursive: true });

  log('starting Temporal (dev server, in memory), a webhook receiver and the broker (PGlite under .data/fuzz/broker)');
  const tlsDir = join(RUN_DIR, 'tls');
  receiver = await startReceiver(testCertificates(tlsDir));
  temporal = await startTemporal();
  broker = await startBroker(
    {
      TEMPORAL_ADDRESS: temporal.address,
      DATABASE_URL: '',
      ORGANIZATIONS_FILE: join(CONFIG_DIR, 'organizations.json'),
      CONNECTORS_FILE: join(CONFIG_DIR, 'connectors.json'),
      // The fuzzers send as fast as the machine lets them; at the default request limits (3000 a
      // minute per token) a third of their requests were 429s. The invite limits stay as they are.
      RATE_LIMIT_ORG_PER_MINUTE: '1000000',
      RATE_LIMIT_TOKEN_PER_MINUTE: '1000000',
      // The seeded subscriptions deliver to the run's receiver on 127.0.0.1; the fuzzers' own
      // targets are judged as in production (anything private refused).
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      WEBHOOK_CA_FILE: join(tlsDir, 'ca.pem'),
      LOG_LEVEL: 'warn',
    },
    join(RUN_DIR, 'broker'),
    join(RUN_DIR, 'broker.log'),
  );
  log(`broker at ${broker.baseUrl}`);

  for (const party of PARTIES) await token(party);
  const relationship = await makePartners();
  log(`${CARRIER.organizationId} and ${SHIPPER.organizationId} are partners (relationship ${relationship})`);
  const notes: string[] = [];
  const seeded: Seeded = { relationships: [relationship], offers: [], requests: [], proposals: [], tenders: [], commitments: [], references: [], handovers: [], subscriptions: [], deliveries: [] };
  try {
    await seedSubscriptions(seeded);
    await seedMarket(seeded);
    await seedDeliveries(seeded);
  } catch (err) {
    notes.push(`seeding stopped (fuzzing went on with what was made): ${(err as Error).message}`);
    log(`seeding stopped (fuzzing goes on with what was made): ${(err as Error).message}`);
  }
  notes.push(`seeded through the API: ${Object.entries(seeded).map(([kind, ids]) => `${kind} ${ids.length}`).join(', ')}`);
  writeDictionaries(seeded);

  const elapsed = (Date.now() - started) / 1000;
  const maxTime = Math.max(60, Math.floor(budgetSeconds - elapsed - 30));
  log(`schemathesis ${version}: ${PARTIES.map((p) => p.name).join(' and ')} at once, ${workers} worker(s) each, seed ${seed}, --max-time ${maxTime}`);
  const document = await openApiPath();
  log(`fuzzing ${document}`);
  const runs = await Promise.all(PARTIES.map((party) => runSchemathesis(st, party, maxTime, document)));
  if (interrupted) return;
  const brokerExit = broker.process.exitCode ?? broker.process.signalCode;
  if (brokerExit !== null) notes.push(`**the broker exited during the run (${brokerExit})**: see .data/fuzz/broker.log`);

  const info: RunInfo = { version, python, maxTime, document, budgetSeconds, workers, seed, started, finished: Date.now(), code: codeVersion(), notes, baseUrl: broker.baseUrl, runs: runs.map((r) => ({ ...r, party: { ...r.party, token: undefined } })) };
  writeFileSync(join(RUN_DIR, 'run.json'), JSON.stringify(info, null, 2));
  const summary = await summarize(info);
  writeFileSync(join(RUN_DIR, 'summary.md'), summary.complete + '\n');
  const toDocs = process.env.FUZZ_NO_DOCS !== '1' && !summary.incomplete;
  if (toDocs) writeDoc(summary.markdown);
  log(summary.headline);
  log(`summary in ${toDocs ? relative(ROOT, DOC) : relative(ROOT, join(RUN_DIR, 'summary.md'))}; raw reports in ${relative(ROOT, join(RUN_DIR, 'reports'))}/`);
  process.exitCode = summary.incomplete ? 2 : summary.failed ? 1 : 0;
  if (process.env.FUZZ_KEEP === '1') {
    // The stack stays up for the curl lines of the summary, until Ctrl-C.
    for (const party of PARTIES) await token(party);
    process.stdout.write(
      `\nThe stack is still running; paste into bash to reproduce, Ctrl-C here to stop it:\n` +
        `B=${broker.baseUrl}\nCARRIER=${CARRIER.token}\nSHIPPER=${SHIPPER.token}\n`,
    );
    await new Promise(() => undefined);
  }
  await stopAll();
}

// ---------------------------------------------------------------------------------------------
// The summary, from the NDJSON event streams of both runs

interface Distinct {
  check: string;
  code: string;
  title: string;
  operations: Set<string>;
  status: number | undefined;
  problem: string;
  identities: Set<string>;
  count: number;
  curl: string;
  message: string;
}

interface Tally {
  requests: number;
  byRun: Map<string, number>;
  byClass: Map<string, number>;
  serverErrors: number;
  failures: Map<string, Distinct>;
  errors: Map<string, number>;
  warnings: Map<string, Set<string>>;
  phases: Map<string, string>;
}

const IDENTITY_VARS: Record<string, string> = { 'org-fuzz-carrier': 'CARRIER', 'org-fuzz-shipper': 'SHIPPER' };

/** A bash word: plain single quotes, or $'...' with escapes when the text holds control bytes. */
function sq(text: string): string {
  if (!/[\x00-\x1f\x7f]/.test(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  const bytes = Buffer.from(text, 'utf8');
  let out = '';
  for (const b of bytes) {
    if (b === 0x27) out += "\\'";
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `$'${out}'`;
}

function curlLine(request: any, baseUrl: string, identity: string | undefined): string {
  const parts = ['curl', '-sS', '-i', '-X', request.method];
  for (const [name, values] of Object.entries<string[]>(request.headers ?? {})) {
    for (const value of values) {
      if (name.toLowerCase() === 'authorization' && value === '[Filtered]') {
        const variable = identity ? IDENTITY_VARS[identity] : undefined;
        parts.push(variable ? `-H "Authorization: Bearer $${variable}"` : `-H 'Authorization: <redacted>'`);
      } else if (value === '') parts.push('-H', sq(`${name};`));
      else parts.push('-H', sq(`${name}: ${value}`));
    }
  }
  const body = request.body?.$base64 !== undefined ? Buffer.from(request.body.$base64, 'base64') : undefined;
  if (body && body.length) {
    const text = body.toString('utf8');
    // Bytes that are not UTF-8 go through printf, since an argument cannot carry them all.
    if (Buffer.from(text, 'utf8').equals(body) && !text.includes('\0')) parts.push('--data-binary', sq(text));
    else parts.push('--data-binary', `@<(printf '${[...body].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}')`);
  }
  const uri: string = request.uri ?? '';
  parts.push(uri.startsWith(baseUrl) ? `"$B"${sq(uri.slice(baseUrl.length))}` : sq(uri));
  return parts.join(' ');
}

/** A pointer with item indexes and generated member names (extension keys, say) as `*`. */
function normalPointer(pointer: string): string {
  return pointer
    .split('/')
    .map((segment, i) => (i === 0 || /^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(segment) ? segment : '*'))
    .join('/');
}

/** Text for a Markdown line: control characters escaped. */
function printable(text: string): string {
  return text.replace(/[\x00-\x1f\x7f]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * What makes two failures one. A refused valid request is the same rule whichever operation it
 * met (an If-Match that disagrees with observedResourceVersion is refused by every command); an
 * accepted invalid one is the same schema keyword; anything else is per operation and answer.
 */
function distinctKey(check: string, operation: string, status: number | undefined, problem: string, message: string): string {
  if (check === 'positive_data_acceptance') return [check, status, problem].join('|');
  if (check === 'negative_data_rejection') return [check, status, message.replace(/^.*?Invalid component: /, '')].join('|');
  if (check === 'response_schema_conformance') return [check, operation, status, message.slice(0, 120)].join('|');
  return [check, operation, status, problem].join('|');
}

/** The problem code and the field pointers of a problem answer, to tell refusals apart. */
function problemOf(response: any): { code: string; pointers: string[] } {
  if (!response?.content?.$base64) return { code: '', pointers: [] };
  try {
    const doc = JSON.parse(Buffer.from(response.content.$base64, 'base64').toString('utf8'));
    // Item indexes are left out (/coordinates/*/1), so one rule broken at many places is one failure.
    const pointers = Array.isArray(doc.errors) ? [...new Set<string>(doc.errors.map((e: any) => normalPointer(String(e.pointer))))].sort() : [];
    return { code: typeof doc.code === 'string' ? doc.code : '', pointers };
  } catch {
    return { code: '', pointers: [] };
  }
}

async function tally(runs: FuzzRun[], baseUrl: string): Promise<Tally> {
  const t: Tally = { requests: 0, byRun: new Map(), byClass: new Map(), serverErrors: 0, failures: new Map(), errors: new Map(), warnings: new Map(), phases: new Map() };
  const { createInterface } = await import('node:readline');
  const { createReadStream } = await import('node:fs');
  for (const run of runs) {
    const files = existsSync(run.reportDir) ? readdirSync(run.reportDir).filter((f) => f.endsWith('.ndjson')) : [];
    let requests = 0;
    for (const file of files) {
      const lines = createInterface({ input: createReadStream(join(run.reportDir, file)), crlfDelay: Infinity });
      for await (const line of lines) {
        if (!line) continue;
        const event = JSON.parse(line);
        if (event.NonFatalError) {
          const e = event.NonFatalError;
          const key = `${e.label ?? ''}: ${e.info?.title ?? e.value?.title ?? 'error'}`.slice(0, 200);
          t.errors.set(key, (t.errors.get(key) ?? 0) + 1);
        }
        if (event.PhaseFinished) {
          const p = event.PhaseFinished;
          const name = p.phase?.name ?? '?';
          const prev = t.phases.get(name);
          // The worst status of either run and any cycle.
          const rank = ['success', 'skip', 'failure', 'error', 'interrupted'];
          if (!prev || rank.indexOf(p.status) > rank.indexOf(prev)) t.phases.set(name, p.status);
        }
        const recorder = event.ScenarioFinished?.recorder;
        if (!recorder?.interactions) continue;
        for (const [caseId, interaction] of Object.entries<any>(recorder.interactions)) {
          requests++;
          const status: number | undefined = interaction.response?.status_code;
          const cls = status === undefined ? 'none' : `${Math.floor(status / 100)}xx`;
          t.byClass.set(cls, (t.byClass.get(cls) ?? 0) + 1);
          if (status !== undefined && status >= 500) t.serverErrors++;
          void caseId;
        }
        for (const [caseId, checks] of Object.entries<any[]>(recorder.checks ?? {})) {
          for (const check of checks) {
            if (check.status !== 'failure') continue;
            const failure = check.failure_info?.failure ?? {};
            const interaction = recorder.interactions[caseId];
            const theCase = recorder.cases?.[caseId]?.value ?? {};
            const operation = failure.operation ?? `${theCase.method ?? '?'} ${theCase.path ?? '?'}`;
            const status: number | undefined = interaction?.response?.status_code;
            const { code, pointers } = problemOf(interaction?.response);
            const message = printable(String(failure.message ?? '').split('\n').slice(0, 6).join(' ').replace(/\s+/g, ' ')).slice(0, 400);
            const identity: string | undefined = theCase.auth_identity ?? undefined;
            const curl = interaction ? curlLine(interaction.request, baseUrl, identity) : '(no request recorded)';
            // A refused valid request counts once for each field the broker named: each is a rule
            // the schema does not state, whatever else was wrong with the same request.
            const problems = check.name === 'positive_data_acceptance' && pointers.length ? pointers.map((p) => `${code} ${p}`) : [[code, ...pointers].filter(Boolean).join(' ')];
            for (const problem of problems) {
              const key = distinctKey(check.name, operation, status, problem, message);
              const found = t.failures.get(key);
              if (found) {
                found.count++;
                found.operations.add(operation);
                if (identity) found.identities.add(identity);
                // The shortest reproduction is the one worth reading.
                if (curl.length < found.curl.length) found.curl = curl;
              } else {
                t.failures.set(key, {
                  check: check.name,
                  code: failure.code ?? '',
                  title: failure.title ?? check.name,
                  operations: new Set([operation]),
                  status,
                  problem,
                  identities: new Set(identity ? [identity] : []),
                  count: 1,
                  curl,
                  message,
                });
              }
            }
          }
        }
      }
    }
    t.byRun.set(run.party.name, requests);
    t.requests += requests;
    for (const file of existsSync(run.reportDir) ? readdirSync(run.reportDir).filter((f) => f.endsWith('.json')) : []) {
      const report = JSON.parse(readFileSync(join(run.reportDir, file), 'utf8'));
      for (const [kind, items] of Object.entries<any>(report.warnings ?? {})) {
        if (!Array.isArray(items) || !items.length) continue;
        const set = t.warnings.get(kind) ?? new Set<string>();
        for (const item of items) set.add(typeof item === 'string' ? item : JSON.stringify(item));
        t.warnings.set(kind, set);
      }
    }
  }
  return t;
}

const SCHEMA_CHECK = 'response_schema_conformance';
const CURL_IN_DOCS = 2000;
const SERVER_CHECK = 'not_a_server_error';

async function summarize(input: RunInfo) {
  const t = await tally(input.runs, input.baseUrl);
  const failures = [...t.failures.values()].sort(
    (a, b) => rankCheck(a.check) - rankCheck(b.check) || a.check.localeCompare(b.check) || b.count - a.count,
  );
  const server = failures.filter((f) => f.check === SERVER_CHECK);
  const schema = failures.filter((f) => f.check === SCHEMA_CHECK);
  const other = failures.filter((f) => f.check !== SERVER_CHECK && f.check !== SCHEMA_CHECK);
  const runErrors = input.runs.filter((r) => r.exitCode !== 0 && r.exitCode !== 1);
  const minutes = (input.finished - input.started) / 60000;
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  const lines: string[] = [];
  // docs/fuzz.md shows curl lines up to CURL_IN_DOCS characters; .data/fuzz/summary.md all of them.
  const full: { marker: number; curl: string }[] = [];
  lines.push('## Last run', '');
  lines.push(`- Command: \`npm run fuzz\` (FUZZ_SECONDS=${input.budgetSeconds}, FUZZ_WORKERS=${input.workers}, FUZZ_SEED=${input.seed})`);
  lines.push(`- Date: ${new Date(input.started).toISOString().replace(/\.\d+Z$/, 'Z')}, ${minutes.toFixed(1)} minutes until the summary; schemathesis --max-time ${input.maxTime} s per organization`);
  lines.push(`- Broker code: ${input.code}; document \`GET ${input.document ?? '/openapi.json'}\``);
  lines.push(`- schemathesis ${input.version} on Python ${input.python}; ${input.runs.map((r) => `${r.party.name} exited ${r.exitCode}`).join(', ')}`);
  for (const note of input.notes) lines.push(`- ${note}`);
  lines.push(`- Phases (worst of both runs): ${[...t.phases].filter(([name]) => ['examples', 'coverage', 'fuzzing', 'stateful'].includes(name)).map(([name, status]) => `${name} ${status}`).join(', ') || 'none finished'}`);
  lines.push('');
  lines.push('| | |', '|---|---|');
  lines.push(`| Requests | ${t.requests} (${[...t.byRun].map(([name, count]) => `${count} as ${name}`).join(', ')}) |`);
  lines.push(`| Responses by class | ${[...t.byClass].sort().map(([cls, count]) => `${cls} ${count}`).join(', ')} |`);
  lines.push(`| Server errors (5xx responses) | ${t.serverErrors} (${n(server.length, 'distinct failure')} of not_a_server_error) |`);
  lines.push(`| Response-schema violations | ${n(schema.length, 'distinct failure')} (${schema.reduce((s, f) => s + f.count, 0)} responses) |`);
  const byCheck = new Map<string, number>();
  for (const f of other) byCheck.set(f.check, (byCheck.get(f.check) ?? 0) + 1);
  const checks = [...byCheck].map(([check, count]) => `${check} ${count}`).join(', ');
  lines.push(`| Other failed checks | ${n(other.length, 'distinct failure')}${checks ? `: ${checks}` : ''} (${other.reduce((s, f) => s + f.count, 0)} occurrences) |`);
  lines.push(`| Errors (timeouts, connection, schemathesis) | ${[...t.errors.values()].reduce((s, c) => s + c, 0)} |`);
  lines.push('');
  if (failures.length) {
    lines.push('### Failures', '');
    lines.push(
      'Each distinct failure once: the check (schemathesis code), the operations that gave it, the answer (status,',
      'problem code, field pointers), how often and as which organization; then the shortest request that got it.',
      'The curl lines expect `B`, `CARRIER` and `SHIPPER` (see "Reproducing a failure"); their ids are those of the',
      "run's broker.",
      '',
    );
    let i = 0;
    for (const f of failures) {
      i++;
      const answer = [f.status ?? 'no response', f.problem].filter(Boolean).join(' ');
      const ops = [...f.operations].sort();
      const where = ops.length > 6 ? `${ops.slice(0, 6).map((o) => `\`${o}\``).join(', ')} and ${ops.length - 6} more` : ops.map((o) => `\`${o}\``).join(', ');
      lines.push(`${i}. **${f.check}** (${f.code}): ${where} answered ${printable(answer)}; ${n(f.count, 'time')}, as ${[...f.identities].sort().join(', ') || 'no identity'}.`);
      if (f.message && f.check !== 'positive_data_acceptance') lines.push(`   ${f.message.replace(/`/g, "'")}`);
      if (f.curl.length <= CURL_IN_DOCS) lines.push('   ```sh', `   ${f.curl}`, '   ```');
      else {
        lines.push(`   The shortest request that got it is ${f.curl.length} characters long: its curl line is in \`.data/fuzz/summary.md\`.`);
        full.push({ marker: lines.length - 1, curl: f.curl });
      }
    }
    lines.push('');
  }
  if (t.errors.size) {
    lines.push('### Errors', '');
    for (const [what, count] of t.errors) lines.push(`- ${what} (${n(count, 'time')})`);
    lines.push('');
  }
  if (t.warnings.size) {
    lines.push('### schemathesis warnings', '');
    for (const [kind, items] of t.warnings) lines.push(`- ${kind}: ${[...items].slice(0, 12).join(', ')}${items.size > 12 ? `, and ${items.size - 12} more` : ''}`);
    lines.push('');
  }
  if (runErrors.length) lines.push(`**The run is incomplete**: ${runErrors.map((r) => `schemathesis as ${r.party.name} exited ${r.exitCode} (see ${relative(ROOT, r.logFile)})`).join('; ')}.`, '');
  lines.push(`Raw reports (JUnit, JSON, NDJSON) and the schemathesis and broker logs: \`.data/fuzz/\` (not committed).`);
  const headline = `${t.requests} requests, ${t.serverErrors} server errors, ${schema.length} response-schema violations, ${other.length} other failed checks${runErrors.length ? ', run incomplete' : ''}`;
  const complete = [...lines];
  for (const { marker, curl } of full) complete[marker] = ['   ```sh', `   ${curl}`, '   ```'].join('\n');
  return { markdown: lines.join('\n'), complete: complete.join('\n'), headline, failed: failures.length > 0 || t.serverErrors > 0 || runErrors.length > 0, incomplete: runErrors.length > 0 };
}

/** The commit the broker ran from, and whether the work tree differed from it. */
function codeVersion(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  const commit = git('rev-parse', '--short', 'HEAD');
  if (!commit) return 'not a git checkout';
  // This tool's own files do not change the broker.
  const own = /^(scripts\/fuzz|config\/fuzz\/|docs\/fuzz\.md$)/;
  const changed = git('status', '--porcelain', '--untracked-files=no')
    .split('\n')
    .filter((line) => line && !own.test(line.slice(3))).length;
  return changed ? `commit ${commit} with uncommitted changes in ${changed} tracked file${changed === 1 ? '' : 's'}` : `commit ${commit}`;
}

function rankCheck(check: string) {
  return check === SERVER_CHECK ? 0 : check === SCHEMA_CHECK ? 1 : 2;
}

function writeDoc(markdown: string) {
  const text = existsSync(DOC) ? readFileSync(DOC, 'utf8') : `# Fuzzing the API\n\n${BEGIN}\n${END}\n`;
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  const next = from >= 0 && to > from ? `${text.slice(0, from + BEGIN.length)}\n${markdown}\n${text.slice(to)}` : `${text.trimEnd()}\n\n${BEGIN}\n${markdown}\n${END}\n`;
  writeFileSync(DOC, next);
}

/** `--summary-only`: the summary of the last run again, from .data/fuzz/ (after changing this script). */
async function summaryOnly() {
  const file = join(RUN_DIR, 'run.json');
  if (!existsSync(file)) fail(`no finished run in ${relative(ROOT, RUN_DIR)} to summarize`);
  const summary = await summarize(JSON.parse(readFileSync(file, 'utf8')));
  writeFileSync(join(RUN_DIR, 'summary.md'), summary.complete + '\n');
  if (process.env.FUZZ_NO_DOCS !== '1' && !summary.incomplete) writeDoc(summary.markdown);
  log(summary.headline);
}

(process.argv.includes('--summary-only') ? summaryOnly() : main()).catch(async (err) => {
  log(`failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  await stopAll();
  process.exit(2);
});
