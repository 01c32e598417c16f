// Liveness and readiness of the worker role (PCX_ROLE=worker), which serves no API: a small HTTP
// server of its own on WORKER_HEALTH_PORT (bound on HOST). The `api` and `all` roles answer the
// same paths from the API (api/health.ts), and the bodies have the same shape.
//   GET /health/live   200 while the process runs
//   GET /health/ready  200 only when the worker is polling its task queue (state RUNNING), the
//                      Temporal frontend answers and the database answers `select 1`; else 503
//   GET /metrics       the process's Prometheus metrics (core/metrics.ts), as the API serves them
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { Db } from './db';
import { scrape } from './metrics';

export interface WorkerHealthDeps {
  worker: Pick<Worker, 'getState'>;
  /** METRICS_TOKEN, when set. */
  metricsToken?: string;
  db: Pick<Db, 'query'>;
  connection: Pick<Connection, 'workflowService'>;
}

const CHECK_TIMEOUT_MS = 2000;

export async function workerReadiness({ worker, db, connection }: WorkerHealthDeps) {
  const timeout = <T>(p: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
      p.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  const state = worker.getState();
  const [database, temporal] = (
    await Promise.allSettled([timeout(db.query('select 1')), timeout(connection.workflowService.getSystemInfo({}))])
  ).map((r) => (r.status === 'fulfilled' ? 'up' : 'down'));
  const checks = { worker: state === 'RUNNING' ? 'up' : 'down', database, temporal };
  const ready = Object.values(checks).every((v) => v === 'up');
  return { ready, body: { status: ready ? 'ready' : 'not-ready', checks, workerState: state } };
}

/** Starts the health server; resolves once it listens (rejects if the port cannot be bound). */
export async function startWorkerHealthServer(deps: WorkerHealthDeps, options: { host: string; port: number }): Promise<Server> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/health/live' && path !== '/health/ready' && path !== '/metrics') return reply(404, { status: 404, title: 'Not Found' });
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, { status: 405, title: 'Method Not Allowed' }, { allow: 'GET, HEAD' });
    if (path === '/health/live') return reply(200, { status: 'live' });
    if (path === '/metrics') {
      scrape(req.headers.authorization, deps.metricsToken).then(
        ({ status, contentType, body }) => {
          res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
        () => reply(503, { status: 503, title: 'Metrics unavailable' }),
      );
      return;
    }
    workerReadiness(deps).then(
      ({ ready, body }) => reply(ready ? 200 : 503, body),
      () => reply(503, { status: 'not-ready' }),
    );
  });
  // Probes are short; a stuck client must not hold a socket for long.
  server.requestTimeout = 10000;
  server.headersTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function workerHealthUrl(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}
