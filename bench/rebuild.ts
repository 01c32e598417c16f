// `npm run bench:rebuild`: how long the read model takes to rebuild from Temporal (issue 34 part 1;
// read-model/rebuild.ts), per 10,000 resources, beside a reference measured in the same run on the
// same machine: the time the broker took to create and publish those resources over HTTP. A broker
// on the embedded PGlite and its own Temporal dev server; BENCH_REBUILD_RESOURCES offers (default
// 1000, each created and published: two transitions, one event) from 20 organizations at 16 at a
// time; then the rebuild into an empty PGlite folder, BENCH_REPEATS times (default 3). Prints a
// markdown section to paste into docs/benchmarks.md. Everything runs on 127.0.0.1 and stops by itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { openReadModel } from '../read-model/database';
import { rebuildReadModel } from '../read-model/rebuild';
import { startBroker, startTemporal, writeTestRegistry } from '../test/stack';
import { f1, median, runBench } from './common';
import { createOffers, tokensOf, UNLIMITED } from './load';

const RESOURCES = Number(process.env.BENCH_REBUILD_RESOURCES ?? 1000);
const REPEATS = Math.max(1, Number(process.env.BENCH_REPEATS ?? 3));
const ORGANIZATIONS = 20;
const CONCURRENCY = 16;
const log = (s: string) => process.stderr.write(`[bench:rebuild] ${s}\n`);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-rebuild-'));
  const temporal = await startTemporal();
  const registry = writeTestRegistry(join(dir, 'registry'));
  const broker = await startBroker(
    { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: `pcx-bench-rebuild-${process.pid}`, DATABASE_URL: '', ORGANIZATIONS_FILE: registry.organizationsFile, CONNECTORS_FILE: registry.connectorsFile, ...UNLIMITED, LOG_LEVEL: 'warn' },
    join(dir, 'data'),
  );
  try {
    const byOrganization = await tokensOf(broker.baseUrl, ORGANIZATIONS);
    const tokens = [...byOrganization.values()];
    // The benchmark's organizations only: the registry's seed keeps importing the others' records meanwhile.
    const organizationIds = [...byOrganization.keys()].map((n) => `org-${n}`);
    log(`creating and publishing ${RESOURCES} offers`);
    const createSeconds = await createOffers(broker.baseUrl, tokens, { count: RESOURCES, concurrency: CONCURRENCY, then: 'publish', keyed: false });
    log(`created in ${f1(createSeconds)} s`);
    const connection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection });
    const seconds: number[] = [];
    let report: Awaited<ReturnType<typeof rebuildReadModel>> | undefined;
    for (let run = 0; run < REPEATS; run++) {
      const into = mkdtempSync(join(tmpdir(), 'pcx-bench-rebuilt-'));
      const db = await openReadModel({ dataDir: into });
      report = await rebuildReadModel(client, db, { schemaBase: 'https://schemas.pcx.example', eventSource: `${broker.baseUrl}/events` }, { organizationIds });
      seconds.push(report.seconds);
      await db.close();
      rmSync(into, { recursive: true, force: true });
      log(`rebuild ${run + 1}: ${report.resources} resources, ${report.transitions} transitions, ${report.events} events in ${f1(report.seconds)} s`);
    }
    await connection.close();
    const per10k = (s: number) => (s * 10_000) / report!.resources;
    process.stdout.write(
      [
        `## Rebuilding the read model from Temporal (\`npm run bench:rebuild\`)`,
        '',
        `${report!.resources} resources (offers created and published by ${ORGANIZATIONS} organizations, ${report!.transitions} transitions, ${report!.events} events), rebuilt ${REPEATS} times into an empty PGlite folder; Temporal dev server and broker on this machine.`,
        '',
        '| | seconds | per 10,000 resources |',
        '|---|---|---|',
        `| rebuild (median of ${REPEATS}) | ${f1(median(seconds))} | ${f1(per10k(median(seconds)))} |`,
        `| reference: creating and publishing the ${RESOURCES} offers over HTTP (${CONCURRENCY} at a time) | ${f1(createSeconds)} | ${f1((createSeconds * 10_000) / RESOURCES)} |`,
        '',
        `Rebuild / creation, per resource: ${(per10k(median(seconds)) / ((createSeconds * 10_000) / RESOURCES)).toFixed(2)}.`,
        '',
      ].join('\n'),
    );
  } finally {
    await broker.stop();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(log, main, 20);
