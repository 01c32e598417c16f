// `npm run bench:gateway`: what the adapter gateway adds to the broker's own command path, on the
// embedded set-up (one broker process on PGlite, a Temporal dev server, the gateway in this process
// on its own PGlite). In one run, for the same load request (the example IFTMIN's: Gothenburg to
// Hamburg, published):
// - reference: the broker's command path as a connector uses it: create and publish (two calls);
// - HTTP: the IFTMIN POSTed to /messages/edifact, answered when it is published and acknowledged;
// - mailbox: the same interchange dropped as files, from the drop to the APERAK in the out folder;
// each one at a time (latency p50/p95), then N at once (messages per second to a published listing).
// The report goes into docs/benchmarks.md between the bench-gateway markers.
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PcxClient } from '@pcx/sdk';
import { f1, median, percentile, publishReport, runBench } from './common';
import { UNLIMITED } from './load';
import { ROOT, startBroker, startTemporal, writeTestRegistry } from '../test/stack';
import { startGateway } from '../gateway/main';
import type { GatewayConfig, ServedOrganization } from '../gateway/config';

const SERIAL = Number(process.env.BENCH_GATEWAY_SERIAL ?? 30);
const BURST = Number(process.env.BENCH_GATEWAY_BURST ?? 100);
const log = (msg: string) => process.stderr.write(`[bench:gateway] ${msg}\n`);

const EXAMPLE = readFileSync(join(ROOT, 'examples', 'edifact', 'transport-instruction.edi'), 'latin1');
/** The example interchange with a document number (and interchange reference) of its own. */
/** The two organizations the gateway serves send under EDIFACT identities of their own (the example's, and another). */
const SENDERS = { http: '5790000000005', mailbox: '5790000000098' };
const instruction = (n: string, sender = SENDERS.http) => EXAMPLE.replace(/BS-2031-0001/g, `BENCH-${n}`).replace(/BALTIC0001/g, `B${n}`.slice(0, 14)).replace(/5790000000005/g, sender);

/** The fields of a load request a connector sends (the rest the broker adds). */
const CREATE_FIELDS = ['pickupArea', 'pickupWindow', 'deliveryArea', 'deliveryWindow', 'requiredCapacity', 'vehicleRequirements', 'goodsProfile', 'handlingRequirements', 'expiresAt', 'visibility'];

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-gateway-'));
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const temporal = await startTemporal();
    cleanups.push(() => temporal.stop());
    const registry = writeTestRegistry(join(dir, 'registry'));
    const broker = await startBroker(
      { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: `pcx-bench-gateway-${process.pid}`, DATABASE_URL: '', ORGANIZATIONS_FILE: registry.organizationsFile, CONNECTORS_FILE: registry.connectorsFile, ...UNLIMITED, LOG_LEVEL: 'warn' },
      join(dir, 'data'),
    );
    cleanups.push(() => broker.stop());
    const [httpOrg, mailboxOrg, referenceOrg] = ['001', '002', '003'].map((n) => ({ organizationId: `org-${n}`, clientId: `client-${n}`, clientSecret: `secret-${n}` }));
    const settings = {
      loadRequests: { publish: true, visibility: { mode: 'open' }, bodyTypes: ['curtainsider', 'box'], goodsCategory: 'general', timeZone: 'Europe/Stockholm', pointTimeMinutes: 60, expiresBeforePickupHours: 2 },
      places: { '9:5790000000012': 'SEGOT', '9:5790000000029': 'DEHAM' },
    } satisfies Partial<ServedOrganization>;
    const config: GatewayConfig = {
      brokerUrl: broker.baseUrl,
      host: '127.0.0.1',
      port: 0,
      dataDir: join(dir, 'gateway'),
      databaseUrl: undefined,
      mailboxRoot: join(dir, 'mailboxes'),
      mailboxPollMs: 100,
      temporal: { address: temporal.address, namespace: 'default', taskQueue: `pcx-bench-gateway-${process.pid}-gw` },
      organizations: [
        { ...httpOrg, ...settings, edifact: { senderIds: [SENDERS.http] } },
        { ...mailboxOrg, ...settings, edifact: { senderIds: [SENDERS.mailbox] } },
      ],
      maxMessageBytes: 1_000_000,
      push: { allowCidrs: [] },
      consoleOrigins: [],
      operatorOrganizations: [],
      feedPollMs: 1000,
      contentRetentionDays: 365,
    };
    const gateway = await startGateway(config);
    cleanups.push(() => gateway.stop());
    const http = new PcxClient({ baseUrl: broker.baseUrl, clientId: httpOrg.clientId, clientSecret: httpOrg.clientSecret });
    const reference = new PcxClient({ baseUrl: broker.baseUrl, clientId: referenceOrg.clientId, clientSecret: referenceOrg.clientSecret });
    const token = await http.accessToken();

    // The reference sends what the example IFTMIN becomes: read back from one the gateway made.
    // (The first message may take longer than the answer waits, while the worker warms up: read it again until it is done.)
    const first = (await (await fetch(`${gateway.url}/messages/edifact`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'bench-template' }, body: instruction('T') })).json()) as { id: string };
    let entry: { status: string; submitted?: { resources: Array<{ id: string }> } } = { status: 'received' };
    for (let i = 0; i < 120 && entry.status !== 'acknowledged'; i++) {
      entry = (await (await fetch(`${gateway.url}/messages/edifact/${first.id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as typeof entry;
      if (entry.status !== 'acknowledged') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const made = entry.submitted?.resources[0]?.id;
    if (!made) throw new Error(`the example instruction did not become a load request: ${JSON.stringify(entry)}`);
    const template = (await http.requests.get(made)) as unknown as Record<string, unknown>;
    const body = (n: string) => ({
      ...Object.fromEntries(CREATE_FIELDS.filter((k) => template[k] !== undefined).map((k) => [k, template[k]])),
      externalReferences: [{ system: 'bench', type: 'BGM+610', value: `REF-${n}` }],
    });
    const viaBroker = async (n: string) => {
      const created = await reference.requests.create(body(n) as any, { idempotencyKey: `bench-create-${n}` });
      await reference.requests.publish(created, {}, { idempotencyKey: `bench-publish-${n}` });
    };
    const viaHttp = async (n: string) => {
      const answer = await fetch(`${gateway.url}/messages/edifact`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'idempotency-key': `bench-${n}` }, body: instruction(n) });
      const entry = (await answer.json()) as { status: string; submitted?: { kind: string } };
      if (answer.status !== 200 || entry.status !== 'acknowledged' || entry.submitted?.kind !== 'created') throw new Error(`HTTP message ${n}: ${answer.status} ${JSON.stringify(entry)}`);
    };
    const inDir = join(config.mailboxRoot, mailboxOrg.organizationId, 'in');
    const outDir = join(config.mailboxRoot, mailboxOrg.organizationId, 'out');
    const drop = (n: string) => {
      writeFileSync(join(inDir, `.bench-${n}.edi`), instruction(n, SENDERS.mailbox), 'latin1');
      renameSync(join(inDir, `.bench-${n}.edi`), join(inDir, `bench-${n}.edi`));
    };
    const answered = async (names: string[], timeoutMs = 600_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const out = new Set(readdirSync(outDir));
        if (names.every((n) => out.has(`bench-${n}.aperak.edi`))) return;
        if (Date.now() > deadline) throw new Error('mailbox answers did not come');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const viaMailbox = async (n: string) => {
      drop(n);
      await answered([n]);
      if (!readFileSync(join(outDir, `bench-${n}.aperak.edi`), 'latin1').includes('BGM+313')) throw new Error(`no APERAK for ${n}`);
    };

    const timed = async (label: string, count: number, fn: (n: string) => Promise<void>) => {
      const ms: number[] = [];
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        await fn(`${label}${i}`);
        ms.push(performance.now() - started);
      }
      return ms;
    };
    log('warm-up');
    await timed('wr', 5, viaBroker);
    await timed('wh', 5, viaHttp);
    await timed('wm', 5, viaMailbox);

    log(`one at a time: ${SERIAL} each, interleaved by round`);
    const serial = { broker: [] as number[], http: [] as number[], mailbox: [] as number[] };
    for (let round = 0; round < SERIAL; round++) {
      serial.broker.push(...(await timed(`sr${round}-`, 1, viaBroker)));
      serial.http.push(...(await timed(`sh${round}-`, 1, viaHttp)));
      serial.mailbox.push(...(await timed(`sm${round}-`, 1, viaMailbox)));
    }

    log(`${BURST} at once`);
    const burst = async (fn: (n: string) => Promise<void>, prefix: string) => {
      const started = performance.now();
      await Promise.all(Array.from({ length: BURST }, (_, i) => fn(`${prefix}${i}`)));
      return (performance.now() - started) / 1000;
    };
    const brokerSeconds = await burst(viaBroker, 'br');
    const httpSeconds = await burst(viaHttp, 'bh');
    const names = Array.from({ length: BURST }, (_, i) => `bm${i}`);
    const mailboxStarted = performance.now();
    names.forEach(drop);
    await answered(names);
    const mailboxSeconds = (performance.now() - mailboxStarted) / 1000;

    const p = (xs: number[]) => `${f1(median(xs))} / ${f1(percentile(xs, 95))}`;
    const rows = [
      '| path | one at a time: p50 / p95 (ms) | p50 added to the reference | ' + `${BURST} at once: messages per second |`,
      '|---|---|---|---|',
      `| reference: create + publish by a connector (SDK) | ${p(serial.broker)} | – | ${f1(BURST / brokerSeconds)} |`,
      `| gateway, HTTP: IFTMIN to published and acknowledged | ${p(serial.http)} | ${f1(median(serial.http) - median(serial.broker))} (${f1(median(serial.http) / median(serial.broker))}×) | ${f1(BURST / httpSeconds)} (${((BURST / httpSeconds / (BURST / brokerSeconds)) * 100).toFixed(0)} %) |`,
      `| gateway, mailbox: drop to APERAK in the out folder | ${p(serial.mailbox)} | ${f1(median(serial.mailbox) - median(serial.broker))} (${f1(median(serial.mailbox) / median(serial.broker))}×) | ${f1(BURST / mailboxSeconds)} (${((BURST / mailboxSeconds / (BURST / brokerSeconds)) * 100).toFixed(0)} %) |`,
    ];
    const generated = [
      `Run of ${new Date().toISOString().slice(0, 10)}: \`npm run bench:gateway\` (${SERIAL} messages of each path one at a time, interleaved; then ${BURST} at once per path; mailbox polled every ${config.mailboxPollMs} ms; ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end).`,
      '',
      ...rows,
    ].join('\n');
    publishReport('bench:gateway', '## The adapter gateway (`npm run bench:gateway`)', generated, log);
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(log, main);
