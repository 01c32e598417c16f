// `npm run bench:transparency-log`: what the transparency log adds to the write of a decision
// (issue 54 outcome 6; docs/transparency-log.md), on PGlite and, when it answers, PostgreSQL
// (PCX_TEST_DATABASE_URL, default the test suite's). Each of N match proposals is written at version
// 1, then its decision's transition (version 2, one decision, one event) is written by the
// transition writer, alternately with the log (the product) and without it (the reference: the
// same writer with match-proposal's `ledger` left out), so both see the same machine and the same
// table sizes. Reported per engine: the median write of a decision's transition with and without
// the log, their ratio, the log's bytes per leaf, and at the end the median time to answer an
// inclusion proof, a consistency proof and a checkpoint signing. Prints a markdown section.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Db } from '../core/db';
import { noteSigner } from '../core/transparency-log-key';
import { uuid7 } from '../domain/ids';
import { RESOURCES } from '../domain/registry';
import type { TransitionRecord } from '../domain/transition';
import { openReadModel } from '../read-model/database';
import { createTransitionWriter } from '../read-model/projection';
import { openTransparencyLog } from '../read-model/transparency-log';
import { adminQuery, schemaUrl } from '../test/pg-admin';
import { f2, median, runBench } from './common';

const N = Number(process.env.BENCH_LOG_PROPOSALS ?? 1000);
const log = (s: string) => process.stderr.write(`[bench:transparency-log] ${s}\n`);
const SETTINGS = { schemaBase: 'https://schemas.pcx.example', eventSource: 'https://broker.pcx.example/events' };

function records(id: string, now: string): [TransitionRecord, TransitionRecord] {
  const [a, b] = ['org-offer-owner', 'org-request-owner'];
  const base = {
    id, resourceVersion: 1, ownerOrganizationId: a, createdAt: now, updatedAt: now, status: 'proposed', decisionState: 'PROPOSED',
    capacityOfferId: uuid7(), loadRequestId: uuid7(), offerOwnerOrganizationId: a, requestOwnerOrganizationId: b,
    requiredDecisionPolicy: { mode: 'BILATERAL_REQUIRED', relationshipId: uuid7(), relationshipVersion: 3 }, validUntil: now, decisions: [] as unknown[],
    explanation: { score: 0.82, reasons: [{ code: 'DISTANCE', value: 41.5 }, { code: 'WINDOW_OVERLAP', value: 6 }] },
  };
  const decision = { id: uuid7(), organizationId: b, decision: 'accept', decidedAt: now, decidedBy: { organizationId: b, clientId: 'bench' }, observedProposalVersion: 1 };
  const event = (type: string) => ({ id: uuid7(), type, audience: [a, b], time: now });
  return [
    { kind: 'match-proposal', snapshot: base as any, events: [event('pcx.match-proposal.created.v1')], correlationId: uuid7(), causationId: uuid7() },
    { kind: 'match-proposal', snapshot: { ...base, resourceVersion: 2, decisions: [decision], decisionState: 'PARTIALLY_ACCEPTED' } as any, events: [event('pcx.match-decision.recorded.v1')], correlationId: uuid7(), causationId: uuid7() },
  ];
}

async function measure(engine: string, db: Db): Promise<string[]> {
  const withLog = createTransitionWriter(db, SETTINGS);
  const without = createTransitionWriter(db, SETTINGS, RESOURCES.map((r) => (r.kind === 'match-proposal' ? { ...r, ledger: undefined } : r)));
  const times = { withLog: [] as number[], without: [] as number[] };
  for (let i = 0; i < N; i++) {
    const [created, decided] = records(uuid7(), new Date().toISOString());
    await withLog.writeTransitions([created]);
    const writer = i % 2 === 0 ? withLog : without;
    const started = performance.now();
    await writer.writeTransitions([decided]);
    (i % 2 === 0 ? times.withLog : times.without).push(performance.now() - started);
  }
  const { rows } = await db.query<{ bytes: string; leaves: string }>(
    `select (pg_total_relation_size('transparency_log_leaves') + pg_total_relation_size('transparency_log_nodes'))::text as bytes, (select count(*) from transparency_log_leaves)::text as leaves`,
  );
  const tlog = openTransparencyLog(db, { keys: { signer: noteSigner(undefined, 'bench/transparency-log'), retired: [], source: 'bench' }, origin: 'bench/transparency-log' });
  const size = await tlog.size();
  const timed = async (fn: (i: number) => Promise<unknown>) => {
    const xs: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      await fn(i);
      xs.push(performance.now() - started);
    }
    return median(xs);
  };
  const inclusion = await timed((i) => tlog.inclusionProof((i * 7919) % size, size));
  const consistency = await timed((i) => tlog.consistencyProof(1 + ((i * 104729) % (size - 1)), size));
  const signing = await timed(async () => {
    await db.query('delete from transparency_log_checkpoints');
    return tlog.current();
  });
  const ratio = median(times.withLog) / median(times.without);
  log(`${engine}: ${f2(median(times.withLog))} ms with the log, ${f2(median(times.without))} ms without (${f2(ratio)}×)`);
  return [
    `| ${engine} | ${f2(median(times.withLog))} | ${f2(median(times.without))} | ${f2(ratio)}× | ${Math.round(Number(rows[0].bytes) / Number(rows[0].leaves))} | ${f2(inclusion)} | ${f2(consistency)} | ${f2(signing)} |`,
  ];
}

async function main() {
  const lines = [
    `${N} match proposals per engine, each decided once; the decision's transition written alternately with and without the log (medians of ${N / 2} each).`,
    `Proofs and signing at the log's final size (${N} leaves), medians of 50.`,
    '',
    '| engine | decision written, with the log (ms) | without (ms) | ratio | bytes per leaf (leaves and nodes) | inclusion proof (ms) | consistency proof (ms) | checkpoint signed (ms) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-log-'));
  try {
    const pglite = await openReadModel({ dataDir: dir });
    lines.push(...(await measure('PGlite', pglite)));
    await pglite.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const schema = `pcx_bench_log_${process.pid}`;
  try {
    await adminQuery(`create schema ${schema}`);
  } catch (err) {
    log(`PostgreSQL not reached (${String(err)}): PGlite only`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  try {
    const pg = await openReadModel({ databaseUrl: schemaUrl(schema), dataDir: '' });
    lines.push(...(await measure('PostgreSQL', pg)));
    await pg.close();
  } finally {
    await adminQuery(`drop schema if exists ${schema} cascade`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

runBench(log, main, 30);
