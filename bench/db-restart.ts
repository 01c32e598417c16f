// `npm run bench:db-restart`: how long connectors see 503 when the read model's PostgreSQL restarts
// (issue 34 part 3; test/database-chaos.test.ts tests the behaviour, this measures it). A
// PostgreSQL of its own (initdb from /usr/local/bin, as user postgres when run as root; a free port;
// the shared server is untouched), its own Temporal dev server and one broker on them. Four
// connectors create offers (an Idempotency-Key each, retried every 250 ms on 503 or a lost
// connection) and four readers poll their feeds every 250 ms. BENCH_RESTARTS times (default 5) the
// server is stopped (`pg_ctl -m fast stop`), left down BENCH_DOWN_MS (default 3000) and started
// (`pg_ctl -w start`). Per restart: the seconds from the first to the last 503 the connectors saw
// (the figure), the seconds the server was away (stop called to start returned), and how many
// answers were 500 (must be 0). Prints a markdown section for docs/benchmarks.md.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startBroker, startTemporal, writeTestRegistry } from '../test/stack';
import { offer } from '../test/market-bodies';
import { f1, median, runBench } from './common';
import { tokensOf, UNLIMITED } from './load';

const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 5);
const DOWN_MS = Number(process.env.BENCH_DOWN_MS ?? 3000);
const CONNECTORS = 4;
const BIN = '/usr/local/bin';
const log = (s: string) => process.stderr.write(`[bench:db-restart] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const asPostgres = (cmd: string, args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', join(BIN, cmd), ...args]] : [join(BIN, cmd), args];
    execFile(file, argv, { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd}: ${err.message} ${stderr}`)) : resolve(stdout)));
  });

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-dbrestart-'));
  chmodSync(dir, 0o777);
  const pgData = join(dir, 'pg');
  mkdirSync(pgData);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', pgData]);
  await asPostgres('initdb', ['-D', pgData, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const pgStart = () => asPostgres('pg_ctl', ['-D', pgData, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', join(dir, 'pg.log'), '-w', '-t', '30', 'start']);
  await pgStart();
  const temporal = await startTemporal();
  const registry = writeTestRegistry(join(dir, 'registry'));
  const env = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: `pcx-bench-dbrestart-${process.pid}`, DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, ORGANIZATIONS_FILE: registry.organizationsFile, CONNECTORS_FILE: registry.connectorsFile, ...UNLIMITED, LOG_LEVEL: 'warn' };
  const broker = await startBroker(env, join(dir, 'data'), join(dir, 'broker.log'));
  const base = broker.baseUrl;
  let stop = false;
  const seen: Array<{ status: number; at: number }> = [];
  const call = async (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) => {
    const status = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20_000) })
      .then(async (r) => (await r.arrayBuffer(), r.status))
      .catch(() => 0);
    seen.push({ status, at: Date.now() });
    return status;
  };
  try {
    const tokens = [...(await tokensOf(base, CONNECTORS)).values()];
    const connector = async (token: string, i: number) => {
      for (let n = 0; !stop; n++) {
        const body = offer();
        for (const until = Date.now() + 60_000; !stop && Date.now() < until; await sleep(250)) {
          const status = await call('POST', '/capacity-offers', token, body, { 'idempotency-key': `bench-${process.pid}-${i}-${n}` });
          if (status !== 0 && status !== 503 && status !== 409) break;
        }
      }
    };
    const reader = async (token: string) => {
      while (!stop) {
        await call('GET', '/events?limit=5', token);
        await sleep(250);
      }
    };
    const load = Promise.all([...tokens.map(connector), ...tokens.map(reader)]);
    const rows: Array<{ window: number; away: number; answers: number; unavailable: number; errors: number }> = [];
    for (let r = 1; r <= RESTARTS; r++) {
      await sleep(3000);
      const from = Date.now();
      await asPostgres('pg_ctl', ['-D', pgData, '-m', 'fast', 'stop']);
      await sleep(DOWN_MS);
      await pgStart();
      const away = (Date.now() - from) / 1000;
      await sleep(6000);
      const during = seen.filter((s) => s.at >= from);
      const unavailable = during.filter((s) => s.status === 503).map((s) => s.at);
      const window = unavailable.length ? (Math.max(...unavailable) - Math.min(...unavailable)) / 1000 : 0;
      const errors = during.filter((s) => s.status >= 500 && s.status !== 503).length;
      rows.push({ window, away, answers: during.length, unavailable: unavailable.length, errors });
      log(`restart ${r}: 503 for ${f1(window)} s (server away ${f1(away)} s), ${unavailable.length} of ${during.length} answers 503, ${errors} 5xx other than 503`);
      seen.length = 0;
    }
    stop = true;
    await Promise.race([load, sleep(30_000)]);
    const windows = rows.map((r) => r.window);
    process.stdout.write(
      [
        `## A PostgreSQL restart under load (bench/db-restart.ts)`,
        '',
        `${RESTARTS} fast restarts of the read model's own PostgreSQL, down ${DOWN_MS / 1000} s each, under ${CONNECTORS} connectors creating offers (retrying every 250 ms on 503) and ${CONNECTORS} feed readers (every 250 ms).`,
        '',
        `Seconds of 503 per restart (first to last 503): median **${f1(median(windows))} s**, min ${f1(Math.min(...windows))} s, max ${f1(Math.max(...windows))} s; the server away (stop called to start returned): median ${f1(median(rows.map((r) => r.away)))} s. 500s: ${rows.reduce((a, r) => a + r.errors, 0)}.`,
        '',
        '| restart | 503 window (s) | server away (s) | answers | 503 | other 5xx |',
        '|---|---|---|---|---|---|',
        ...rows.map((r, i) => `| ${i + 1} | ${f1(r.window)} | ${f1(r.away)} | ${r.answers} | ${r.unavailable} | ${r.errors} |`),
        '',
      ].join('\n'),
    );
  } finally {
    stop = true;
    await broker.stop();
    await temporal.stop();
    await asPostgres('pg_ctl', ['-D', pgData, '-m', 'immediate', 'stop']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(log, main);
