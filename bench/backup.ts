// `npm run bench:backup`: how long a cold backup and a restore of the embedded default's data
// folder take (issue 34 part 2; scripts/backup.ts, scripts/restore.ts) with BENCH_BACKUP_RESOURCES
// offers (default 1000, created and published by 20 organizations, 16 at a time), beside a
// reference measured in the same run: the time the broker took to create them over HTTP. The
// broker runs on PGlite; the data folder holds its read model (the Temporal dev server's own file
// lives elsewhere here: in `npm start` it is in the folder too, and is backed up with it). Each
// step BENCH_REPEATS times (default 3), medians. Prints a markdown section for docs/benchmarks.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startBroker, startTemporal, writeTestRegistry } from '../test/stack';
import { f1, median, runBench } from './common';
import { createOffers, tokensOf, UNLIMITED } from './load';

const RESOURCES = Number(process.env.BENCH_BACKUP_RESOURCES ?? 1000);
const REPEATS = Math.max(1, Number(process.env.BENCH_REPEATS ?? 3));
const ORGANIZATIONS = 20;
const CONCURRENCY = 16;
const log = (s: string) => process.stderr.write(`[bench:backup] ${s}\n`);

const script = (name: string, ...args: string[]) => {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', `${name}.ts`), ...args], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${name}: ${run.stderr}`);
  return (performance.now() - started) / 1000;
};

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-backup-'));
  const temporal = await startTemporal();
  const registry = writeTestRegistry(join(dir, 'registry'));
  const dataDir = join(dir, 'data');
  const broker = await startBroker({ TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: `pcx-bench-backup-${process.pid}`, DATABASE_URL: '', ORGANIZATIONS_FILE: registry.organizationsFile, CONNECTORS_FILE: registry.connectorsFile, ...UNLIMITED, LOG_LEVEL: 'warn' }, dataDir);
  try {
    const tokens = [...(await tokensOf(broker.baseUrl, ORGANIZATIONS)).values()];
    log(`creating and publishing ${RESOURCES} offers`);
    const createSeconds = await createOffers(broker.baseUrl, tokens, { count: RESOURCES, concurrency: CONCURRENCY, then: 'publish', keyed: true });
    await broker.stop();
    const backups: number[] = [];
    const restores: number[] = [];
    let size = 0;
    for (let run = 0; run < REPEATS; run++) {
      const file = join(dir, `backup-${run}.tgz`);
      backups.push(script('backup', '--data-dir', dataDir, '--into', file));
      size = statSync(file).size;
      const into = join(dir, `restored-${run}`);
      restores.push(script('restore', '--from', file, '--data-dir', into));
      rmSync(into, { recursive: true, force: true });
      log(`run ${run + 1}: backup ${f1(backups[run])} s, restore ${f1(restores[run])} s`);
    }
    process.stdout.write(
      [
        '## Backup and restore of the embedded data folder (`npm run bench:backup`)',
        '',
        `A PGlite data folder with ${RESOURCES} offers created and published by ${ORGANIZATIONS} organizations (the gzipped backup: ${(size / 1e6).toFixed(1)} MB), backed up by \`npm run backup\` and restored by \`npm run restore\` (unpack, and a new feed history) ${REPEATS} times; each a process of its own, start-up included.`,
        '',
        '| | seconds (median) |',
        '|---|---|',
        `| backup | ${f1(median(backups))} |`,
        `| restore | ${f1(median(restores))} |`,
        `| reference: creating and publishing the ${RESOURCES} offers over HTTP (${CONCURRENCY} at a time) | ${f1(createSeconds)} |`,
        '',
        `Backup / creation: ${(median(backups) / createSeconds).toFixed(2)}; restore / creation: ${(median(restores) / createSeconds).toFixed(2)}.`,
        '',
      ].join('\n'),
    );
  } finally {
    await broker.stop().catch(() => undefined);
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(log, main, 20);
