// `npm run bench:purge`: how fast the retention purge removes records (issue 34 part 4;
// activities/retention.ts), beside a reference measured in the same run on the same machine: the
// time the broker took to create and withdraw those records over HTTP. A broker on the embedded
// PGlite and its own Temporal dev server, under a policies file whose periods are one minute;
// BENCH_PURGE_RESOURCES offers (default 1000) created and withdrawn by 20 organizations, 16 at a
// time; then, past the minute, the broker restarts and the retention workflow is poked, and the
// purge's rounds are read from the workflow's history: records purged, seconds from the first
// round's start to the last record purged. Prints a markdown section for docs/benchmarks.md.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { startBroker, startTemporal, writeTestRegistry } from '../test/stack';
import { f1, runBench } from './common';
import { createOffers, tokensOf, UNLIMITED } from './load';
import { PERIODS, retentionWorkflowId } from '../domain/retention';
import { pokeRetention } from '../core/temporal';

const RESOURCES = Number(process.env.BENCH_PURGE_RESOURCES ?? 1000);
const ORGANIZATIONS = 20;
const CONCURRENCY = 16;
const log = (s: string) => process.stderr.write(`[bench:purge] ${s}\n`);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-purge-'));
  const policies = join(dir, 'retention-policies.json');
  writeFileSync(policies, JSON.stringify({ default: 'bench:minute', policies: { 'bench:minute': { title: 'one minute', periods: Object.fromEntries(PERIODS.map((p) => [p, 'PT1M'])) } } }));
  const temporal = await startTemporal();
  const registry = writeTestRegistry(join(dir, 'registry'));
  const env = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: `pcx-bench-purge-${process.pid}`, DATABASE_URL: '', ORGANIZATIONS_FILE: registry.organizationsFile, CONNECTORS_FILE: registry.connectorsFile, RETENTION_POLICIES_FILE: policies, ...UNLIMITED, LOG_LEVEL: 'warn' };
  let broker = await startBroker(env, join(dir, 'data'));
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const tokens = [...(await tokensOf(broker.baseUrl, ORGANIZATIONS)).values()];
    log(`creating and withdrawing ${RESOURCES} offers`);
    const createSeconds = await createOffers(broker.baseUrl, tokens, { count: RESOURCES, concurrency: CONCURRENCY, then: 'withdraw', keyed: true });
    log(`created and withdrawn in ${f1(createSeconds)} s; waiting for the minute to pass`);
    await broker.stop();
    await new Promise((r) => setTimeout(r, 65_000));
    broker = await startBroker(env, join(dir, 'data'), undefined, Number(new URL(broker.baseUrl).port));
    const client = new Client({ connection });
    // A round at once, as after a changed policies file (the start does not poke).
    await pokeRetention(client, env.TEMPORAL_TASK_QUEUE);
    // The purge's rounds, from the retention workflow's history, until the records are all purged.
    let purged = 0;
    let first: number | undefined;
    let last: number | undefined;
    const deadline = Date.now() + 15 * 60_000;
    while (purged < RESOURCES && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2000));
      purged = 0;
      const history = await client.workflow.getHandle(retentionWorkflowId(env.TEMPORAL_TASK_QUEUE)).fetchHistory();
      const scheduled = new Map<string, number>();
      for (const e of history.events ?? []) {
        const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
        if (e.activityTaskScheduledEventAttributes) scheduled.set(String(e.eventId), at);
        const done = e.activityTaskCompletedEventAttributes;
        if (!done) continue;
        const result = defaultPayloadConverter.fromPayload<{ purged: number }>(done.result!.payloads![0]);
        if (result.purged === 0) continue;
        purged += result.purged;
        first ??= scheduled.get(String(done.scheduledEventId));
        last = at;
      }
      log(`${purged} purged`);
    }
    if (purged < RESOURCES || first === undefined || last === undefined) throw new Error(`only ${purged} of ${RESOURCES} purged in 15 minutes`);
    const purgeSeconds = (last - first) / 1000;
    process.stdout.write(
      [
        '## Retention purge (`npm run bench:purge`)',
        '',
        `${RESOURCES} withdrawn offers of ${ORGANIZATIONS} organizations, purged under a policy of one minute by the retention workflow (each: its row and events removed, a tombstone and its event written, its workflow history deleted), on PGlite and the Temporal dev server of this machine.`,
        '',
        '| | seconds | per 10,000 records |',
        '|---|---|---|',
        `| purge (first round's start to the last record purged) | ${f1(purgeSeconds)} | ${f1((purgeSeconds * 10_000) / RESOURCES)} |`,
        `| reference: creating and withdrawing the ${RESOURCES} offers over HTTP (${CONCURRENCY} at a time) | ${f1(createSeconds)} | ${f1((createSeconds * 10_000) / RESOURCES)} |`,
        '',
        `Purge / creation, per record: ${(purgeSeconds / createSeconds).toFixed(2)}.`,
        '',
      ].join('\n'),
    );
  } finally {
    await connection.close();
    await broker.stop();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(log, main, 25);
