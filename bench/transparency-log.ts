// `npm run bench:transparency-log`: what the transparency log adds to the write of a decision
// (issue 54 outcome 6; docs/transparency-log.md), on PGlite and, when it answers, PostgreSQL
// (PCX_TEST_DATABASE_URL, default the test suite's). Each of N match proposals is written at version
// 1, then its decision's transition (version 2, one decision, one event) is written by the
// transition writer, alternately with the log (the product) and without it (the reference: the
// same writer with match-proposal's `ledger` left out), so both see the same machine and the same
// table sizes. Reported per engine: the median write of a decision's transition with and without
// the log, their ratio, the log's bytes per leaf, and at the end the median time to answer an
// inclusion proof, a consistency proof and a checkpoint signing. Then, in the same run, the command
// that pays it, end to end: a broker on the embedded set-up (PGlite, a Temporal dev server) and
// BENCH_LOG_COMMANDS direct tenders issued one at a time (issuing logs the tender's first
// revision), the p50 of the issue command over HTTP beside the log's share of it (the in-process
// difference above, on PGlite). Prints a markdown section.
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
import { startBroker, startTemporal, writeTestRegistry } from '../test/stack';
import { f1, f2, median, runBench } from './common';
import { send, tokensOf, UNLIMITED } from './load';

const N = Number(process.env.BENCH_LOG_PROPOSALS ?? 1000);
const COMMANDS = Number(process.env.BENCH_LOG_COMMANDS ?? 60);
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

/** The logged write's extra median, per engine: what the command path pays per logged record. */
const extraMs: Record<string, number> = {};

/** p50 of a logged command end to end: `tenders/{id}/issue` of a direct tender, at c = 1. */
async function issueLatency(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-log-broker-'));
  const temporal = await startTemporal();
  const registry = writeTestRegistry(join(dir, 'registry'));
  const broker = await startBroker({ TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: `pcx-bench-log-${process.pid}`, DATABASE_URL: '', ORGANIZATIONS_FILE: registry.organizationsFile, CONNECTORS_FILE: registry.connectorsFile, ...UNLIMITED, LOG_LEVEL: 'warn' }, join(dir, 'data'));
  try {
    const tokens = await tokensOf(broker.baseUrl, 2);
    const [issuer, executor] = [tokens.get('001')!, tokens.get('002')!];
    const scopes = ['capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide', 'tenders:read', 'tenders:decide'];
    const r = await send(broker.baseUrl, 'POST', '/partner-relationships', issuer, { requestingOrganizationId: 'org-001', acceptingOrganizationId: 'org-002', scopes, decisionPolicy: { mode: 'INITIATOR_ONLY' } });
    await send(broker.baseUrl, 'POST', `/partner-relationships/${r.id}/request`, issuer, undefined, { 'if-match': '"1"' });
    await send(broker.baseUrl, 'POST', `/partner-relationships/${r.id}/accept`, executor, undefined, { 'if-match': '"2"' });
    const day = 24 * 3600_000;
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const terms = {
      cargo: { goodsCategory: 'retail', weight: { value: 5, unitCode: 'TNE' }, palletSpaces: 6 },
      equipment: { bodyTypes: ['curtainsider'] },
      stops: [
        { sequence: 1, role: 'pickup', area: { kind: 'unlocode', code: 'DEHAM' }, timeWindow: { start: at(day), end: at(day + 4 * 3600_000) } },
        { sequence: 2, role: 'delivery', area: { kind: 'unlocode', code: 'NLRTM' }, timeWindow: { start: at(day + 12 * 3600_000), end: at(2 * day) } },
      ],
      commercialTerms: { amount: 700, currency: 'EUR' },
    };
    const times: number[] = [];
    for (let i = 0; i < COMMANDS + 5; i++) {
      const draft = await send(broker.baseUrl, 'POST', '/transport-tenders', issuer, { executingOrganizationId: 'org-002', movementScope: 'fullTransport', expiresAt: at(day), terms });
      const started = performance.now();
      await send(broker.baseUrl, 'POST', `/transport-tenders/${draft.id}/issue`, issuer, undefined, { 'if-match': `"${draft.resourceVersion}"` });
      if (i >= 5) times.push(performance.now() - started); // the first five warm the path
    }
    return median(times);
  } finally {
    await broker.stop();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
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
  extraMs[engine] = median(times.withLog) - median(times.without);
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
  const reached = await adminQuery(`create schema ${schema}`).then(() => true, (err) => {
    log(`PostgreSQL not reached (${String(err)}): PGlite only`);
    return false;
  });
  if (reached) {
    try {
      const pg = await openReadModel({ databaseUrl: schemaUrl(schema), dataDir: '' });
      lines.push(...(await measure('PostgreSQL', pg)));
      await pg.close();
    } finally {
      await adminQuery(`drop schema if exists ${schema} cascade`);
    }
  }
  log('the command end to end: direct tenders issued one at a time on the embedded set-up');
  const issue = await issueLatency();
  lines.push(
    '',
    `A command that logs one record, end to end in the same run (the embedded set-up, ${COMMANDS} direct tenders issued one at a time, each logging its first revision): p50 ${f1(issue)} ms, of which the log's write is ${f2(extraMs.PGlite)} ms (${f1((100 * extraMs.PGlite) / issue)} %; the command without it would take ${f1(issue - extraMs.PGlite)} ms, so the log adds ${f1((100 * extraMs.PGlite) / (issue - extraMs.PGlite))} %).`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

runBench(log, main, 30);
