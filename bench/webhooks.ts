// `npm run bench:webhooks`: webhook delivery at the command path's full rate, on the embedded
// set-up (`npm start`'s: one broker process, PGlite, a Temporal dev server). The relationship
// command path (create, request, accept: two events per flow, each for both organizations) runs at
// concurrency 8, first without subscriptions (the reference: the outbox's write rate and the
// command rate without webhooks), then with one subscription per organization, all pointing at
// one local HTTPS receiver (certificates of a test authority; 127.0.0.1 allow-listed). Reported:
// events written per second, deliveries per second, outbox-to-delivery latency (the event's `time`
// to its arrival at the receiver) p50/p95, how long the backlog took to drain after the load, and
// the command rate beside the reference. The report goes into docs/benchmarks.md between the
// bench-webhooks markers.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { f1, median, percentile, publishReport } from './common';
import { commandFlow, organizationPairs, runLevel, send, tokensOf, UNLIMITED, type Created } from './load';
import { startBroker, startTemporal, TEST_ORGANIZATION_COUNT, writeTestRegistry } from '../test/stack';
import { testCertificates } from '../test/tls';
import { startReceiver } from '../test/webhook-receiver';

const CONCURRENCY = 8;
const FLOWS = Number(process.env.BENCH_WEBHOOK_FLOWS ?? 200);
const log = (msg: string) => process.stderr.write(`[bench:webhooks] ${msg}\n`);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-webhooks-'));
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const tlsDir = join(dir, 'tls');
    const certificates = testCertificates(tlsDir);
    const receiver = await startReceiver(certificates);
    cleanups.push(() => receiver.close());
    const temporal = await startTemporal();
    cleanups.push(() => temporal.stop());
    const registry = writeTestRegistry(join(dir, 'registry'));
    const broker = await startBroker(
      {
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: `pcx-bench-webhooks-${process.pid}`,
        DATABASE_URL: '',
        ORGANIZATIONS_FILE: registry.organizationsFile,
        CONNECTORS_FILE: registry.connectorsFile,
        ...UNLIMITED,
        WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
        WEBHOOK_CA_FILE: join(tlsDir, 'ca.pem'),
        LOG_LEVEL: 'warn',
      },
      join(dir, 'data'),
    );
    cleanups.push(() => broker.stop());
    const base = () => broker.baseUrl;
    const tokens = await tokensOf(broker.baseUrl, TEST_ORGANIZATION_COUNT);
    const pairs = organizationPairs(TEST_ORGANIZATION_COUNT);
    const cpuNow = () => ({});

    log('warm-up');
    await runLevel('warm-up', CONCURRENCY, 40, commandFlow(base, tokens, pairs, []), cpuNow);

    log(`reference: ${FLOWS} flows without subscriptions`);
    const reference = await runLevel('reference', CONCURRENCY, FLOWS, commandFlow(base, tokens, pairs, []), cpuNow);

    log(`subscribing ${TEST_ORGANIZATION_COUNT} organizations`);
    for (const [, token] of tokens) await send(broker.baseUrl, 'POST', '/webhook-subscriptions', token, { url: receiver.url('/bench') });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    receiver.requests.length = 0;

    log(`${FLOWS} flows with every organization subscribed`);
    const created: Created[] = [];
    const loaded = await runLevel('webhooks', CONCURRENCY, FLOWS, commandFlow(base, tokens, pairs, created), cpuNow);
    const loadEnded = Date.now();
    // Two events per flow (requested, activated), each for both organizations.
    const expected = FLOWS * 2 * 2;
    // The flows' events only: the registry's organizations are still being registered (their
    // pcx.organization.registered events reach their partners' subscriptions too).
    const ours = (r: { path: string; body: string }) => r.path === '/bench' && JSON.parse(r.body).type.startsWith('pcx.partner-relationship.');
    const deadline = Date.now() + 300_000;
    while (receiver.requests.filter((r) => ours(r)).length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const received = receiver.requests.filter(ours);
    const ids = new Set(received.map((r) => `${r.headers['webhook-id']}`));
    const latencies = received.map((r) => r.at - Date.parse(JSON.parse(r.body).time));
    const first = Math.min(...received.map((r) => r.at));
    const last = Math.max(...received.map((r) => r.at));
    const deliveredPerSecond = received.length / ((last - first) / 1000);
    const writtenPerSecond = (FLOWS * 2) / loaded.seconds;
    const commandsPerSecond = (run: { flows: number; seconds: number }) => (run.flows * 3) / run.seconds;

    const rows = [
      '| measure | without subscriptions (reference) | every organization subscribed |',
      '|---|---|---|',
      `| commands per second (c = ${CONCURRENCY}) | ${f1(commandsPerSecond(reference))} | ${f1(commandsPerSecond(loaded))} (${((commandsPerSecond(loaded) / commandsPerSecond(reference)) * 100).toFixed(0)} %) |`,
      `| events written to the outbox per second | ${f1((FLOWS * 2) / reference.seconds)} | ${f1(writtenPerSecond)} |`,
      `| deliveries per second (2 per event) | – | ${f1(deliveredPerSecond)} |`,
      `| outbox-to-delivery latency p50 / p95 (ms) | – | ${f1(median(latencies))} / ${f1(percentile(latencies, 95))} |`,
      `| deliveries received / expected (distinct event ids) | – | ${received.length} / ${expected} (${ids.size}) |`,
      `| backlog drained after the load ended (s) | – | ${f1(Math.max(0, (last - loadEnded) / 1000))} |`,
    ];
    const generated = [
      `Run of ${new Date().toISOString().slice(0, 10)}: \`npm run bench:webhooks\` (${FLOWS} relationship flows at concurrency ${CONCURRENCY}, ${TEST_ORGANIZATION_COUNT} organizations each with one subscription to a local HTTPS receiver; ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end).`,
      '',
      ...rows,
    ].join('\n');
    publishReport('bench:webhooks', '## Webhook delivery (`npm run bench:webhooks`)', generated, log);
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  log(`failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
