// The worker role's own liveness and readiness (core/worker-health.ts, WORKER_HEALTH_PORT): a
// broker process with PCX_ROLE=worker in production mode, on the test stack's Temporal server and
// PostgreSQL schema, with its own task queue. Its database connection runs through a TCP relay
// that the test cuts and restores, to show readiness follows the database. PostgreSQL only:
// a worker in its own process needs a shared database (PGlite lives inside one process).
import { spawn } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { parse as parseYaml } from 'yaml';
import { workerReadiness } from '../core/worker-health';
import { db, sleep, testEnv } from './helpers';
import { startWorkerProcess, type WorkerProcess } from './worker-process';
import { ROOT } from './stack';

/** The Dockerfile's HEALTHCHECK command (exec form): `node -e <script>`. */
function dockerfileHealthcheck(): string[] {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, '');
  const line = text.split('\n').find((l) => l.startsWith('HEALTHCHECK '))!;
  return JSON.parse(line.slice(line.indexOf('CMD ') + 4));
}

/** The compose file's healthcheck of a service: ['CMD', 'node', '-e', <script>]. */
function composeHealthcheck(service: string): string[] {
  return parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')).services[service].healthcheck.test;
}

/**
 * Runs a container health command here, with the container's environment; its exit code.
 * Asynchronously: the database relay of this test lives in this process and must keep serving.
 */
function runCheck(command: string[], env: Record<string, string>): Promise<number | null> {
  const [bin, ...args] = command[0] === 'CMD' ? command.slice(1) : command;
  expect(bin).toBe('node');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore', timeout: 10000 });
    child.on('exit', (code) => resolve(code));
  });
}

// Runs once, on the postgres project (jest.config.js, ENGINE_INDEPENDENT).
const describePostgres = describe;

/** A TCP relay to PostgreSQL that can be cut (listener closed, connections dropped) and restored. */
async function relay(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const up = net.connect(target.port, target.host);
        sockets.add(client).add(up);
        client.pipe(up).pipe(client);
        const end = () => {
          client.destroy();
          up.destroy();
          sockets.delete(client);
          sockets.delete(up);
        };
        client.on('error', end).on('close', end);
        up.on('error', end).on('close', end);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      server!.close(() => resolve());
    });
  await open();
  return { port: () => port, cut, restore: open };
}

async function getJson(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function waitForStatus(url: string, status: number, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await getJson(url).catch(() => undefined);
    if (reply?.status === status) return reply;
    if (Date.now() > deadline) throw new Error(`${url}: expected ${status}, last answer ${JSON.stringify(reply)}`);
    await sleep(250);
  }
}

describePostgres('worker role health', () => {
  let dir: string;
  let pg: Awaited<ReturnType<typeof relay>>;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pcx-worker-health-'));
    const url = new URL(testEnv().databaseUrl);
    pg = await relay({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(pg.port());
    worker = await startWorkerProcess(
      {
        PCX_MODE: 'production',
        SECRETS_KEY_FILE: testEnv().brokerEnv.SECRETS_KEY_FILE,
        PERSONAL_DATA_KEYS_DIR: testEnv().brokerEnv.PERSONAL_DATA_KEYS_DIR,
        DATABASE_URL: url.toString(),
        TEMPORAL_ADDRESS: testEnv().temporalAddress,
        TEMPORAL_TASK_QUEUE: `pcx-test-worker-health-${process.pid}`,
        // Production needs no key set in the worker role: it verifies no tokens.
        ORGANIZATIONS_FILE: testEnv().registry.organizationsFile,
        CONNECTORS_FILE: testEnv().registry.connectorsFile,
      },
      join(dir, 'data'),
    );
  }, 90000);

  afterAll(async () => {
    await worker?.stop();
    await pg?.cut().catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('live and ready answer 200 with the checks, on the worker health port only', async () => {
    const live = await getJson(`${worker!.healthUrl}/health/live`);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'live' });
    const ready = await getJson(`${worker!.healthUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('content-type')).toMatch(/^application\/json/);
    expect(ready.body).toEqual({ status: 'ready', checks: { worker: 'up', database: 'up', temporal: 'up' }, workerState: 'RUNNING' });
    // HEAD works for probes that want no body; other methods and paths do not.
    expect((await fetch(`${worker!.healthUrl}/health/ready`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${worker!.healthUrl}/health/ready`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${worker!.healthUrl}/partner-relationships`)).status).toBe(404);
    // The worker role opens no API port.
    await expect(fetch(`http://127.0.0.1:${worker!.apiPort}/health/ready`)).rejects.toThrow();
  });

  test('ready turns 503 while the database is unreachable and 200 again once it is back; live stays 200', async () => {
    await pg.cut();
    const down = await waitForStatus(`${worker!.healthUrl}/health/ready`, 503);
    expect(down.body).toMatchObject({ status: 'not-ready', checks: { worker: 'up', database: 'down', temporal: 'up' } });
    expect((await getJson(`${worker!.healthUrl}/health/live`)).status).toBe(200);
    expect(worker!.process.exitCode).toBeNull();

    await pg.restore();
    const up = await waitForStatus(`${worker!.healthUrl}/health/ready`, 200);
    expect(up.body.checks).toEqual({ worker: 'up', database: 'up', temporal: 'up' });
  });

  test("the image's HEALTHCHECK and the compose worker healthcheck pass against the running worker", async () => {
    const port = new URL(worker!.healthUrl).port;
    const image = dockerfileHealthcheck();
    expect(await runCheck(image, { PCX_ROLE: 'worker', WORKER_HEALTH_PORT: port, PORT: String(worker!.apiPort) })).toBe(0);
    // The same check in the api role asks PORT, where this process serves nothing.
    expect(await runCheck(image, { PCX_ROLE: 'api', WORKER_HEALTH_PORT: port, PORT: String(worker!.apiPort) })).toBe(1);
    // The compose file names the worker's port literally (WORKER_HEALTH_PORT: "8081" there).
    const compose = composeHealthcheck('worker');
    expect(parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')).services.worker.environment.WORKER_HEALTH_PORT).toBe('8081');
    expect(compose.join(' ')).toContain('127.0.0.1:8081/health/ready');
    expect(await runCheck(compose.map((part) => part.replace(':8081/', `:${port}/`)), {})).toBe(0);
  });

  test('SIGTERM drains the worker and exits 0', async () => {
    expect(await worker!.stop()).toBe(0);
    await expect(fetch(`${worker!.healthUrl}/health/live`)).rejects.toThrow();
    worker = undefined;
  });

  test('readiness requires a polling worker, as well as Temporal and the database', async () => {
    const connection = await Connection.connect({ address: testEnv().temporalAddress });
    try {
      const deps = { db: { query: (sql: string) => db().query(sql) as any }, connection };
      for (const state of ['INITIALIZED', 'DRAINING', 'STOPPING', 'STOPPED', 'FAILED'] as const) {
        const r = await workerReadiness({ ...deps, worker: { getState: () => state } });
        expect(r).toEqual({ ready: false, body: { status: 'not-ready', checks: { worker: 'down', database: 'up', temporal: 'up' }, workerState: state } });
      }
      expect((await workerReadiness({ ...deps, worker: { getState: () => 'RUNNING' } })).ready).toBe(true);
      // A database that fails its query.
      const broken = await workerReadiness({ ...deps, db: { query: () => Promise.reject(new Error('connection refused')) }, worker: { getState: () => 'RUNNING' } });
      expect(broken.body.checks).toEqual({ worker: 'up', database: 'down', temporal: 'up' });
    } finally {
      await connection.close();
    }
  });
});
