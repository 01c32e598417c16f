// The transparency log's store on the engine under test (read-model/transparency-log.ts), without a
// broker: concurrent appends give a gapless log that verifies; a log carried into a rebuilt read
// model is extended, never restarted; and every way an operator could rewrite it (a record's row
// changed, the tree recomputed around a changed record, a leaf dropped and replaced, a second tree
// signed) is caught by the SDK's verifier holding a checkpoint from before.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../core/db';
import { noteSigner } from '../core/transparency-log-key';
import { openReadModel } from '../read-model/database';
import { appendToLog, openTransparencyLog, recordDigest, startLogEpoch, type TransparencyLog } from '../read-model/transparency-log';
import { carryOver, LOG_TABLES } from '../read-model/rebuild';
import { hashLeaf, leafOf, noteVerifier, TransparencyError, verifyCheckpoint, verifyConsistency, verifyInclusion } from '../sdk/src/transparency';
import { ENGINE } from './helpers';
import { adminQuery, schemaUrl } from './pg-admin';

const opened: Db[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
  for (const schema of schemas) await adminQuery(`drop schema if exists ${schema} cascade`);
});

async function emptyReadModel(): Promise<Db> {
  let db: Db;
  if (ENGINE === 'postgres') {
    const schema = `pcx_tlog_${process.pid}_${Date.now()}_${schemas.length}`;
    schemas.push(schema);
    await adminQuery(`create schema ${schema}`);
    db = await openReadModel({ databaseUrl: schemaUrl(schema), dataDir: '' });
  } else {
    db = await openReadModel({ dataDir: mkdtempSync(join(tmpdir(), 'pcx-tlog-')) });
  }
  opened.push(db);
  return db;
}

const signer = noteSigner(undefined, 'test.example/transparency-log');
const verifiers = [noteVerifier(signer.verifierKey)];
const ORIGIN = 'test.example/transparency-log';
const logOn = (db: Db) => openTransparencyLog(db, { keys: { signer, retired: [], source: 'test' }, origin: ORIGIN });
const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const record = (i: number) => ({ key: `match-proposals/p-${i}#/decisions/0`, record: { id: `d-${i}`, decision: i % 2 ? 'accept' : 'reject', decidedAt: `2026-12-07T10:00:${String(i % 60).padStart(2, '0')}Z` } });

/** What a participant holding `held` (a record it read) checks: the leaf, the path, the signed root. */
async function verifyHeld(log: TransparencyLog, held: { key: string; record: unknown }) {
  const checkpoint = verifyCheckpoint((await log.current()).note, verifiers, ORIGIN);
  const leaf = (await log.leaf(held.key))!;
  const digest = recordDigest(held.record);
  if (digest !== leaf.recordDigest) throw new TransparencyError('the record read is not the record logged');
  verifyInclusion(leaf.leafIndex, checkpoint.size, hashLeaf(leafOf(held.key, digest, leaf.salt)), (await log.inclusionProof(leaf.leafIndex, checkpoint.size)).map(hex), checkpoint.root);
  return checkpoint;
}

/** The kept checkpoint `before` against what the log shows now: it must have only grown. */
async function verifyGrowth(log: TransparencyLog, before: { size: number; root: Uint8Array }) {
  const now = verifyCheckpoint((await log.current()).note, verifiers, ORIGIN);
  verifyConsistency(before.size, now.size, before.root, now.root, (await log.consistencyProof(before.size, now.size)).map(hex));
}

describe('the transparency log store', () => {
  test('concurrent appends: a gapless log in which every record verifies, each logged once', async () => {
    const db = await emptyReadModel();
    const log = logOn(db);
    const records = Array.from({ length: 40 }, (_, i) => record(i));
    // Forty transactions at once, each logging one record (and one repeating another's key).
    await Promise.all(records.map((r, i) => db.transaction((tx) => appendToLog(tx, i % 10 === 9 ? [r, records[i - 1]] : [r], ['org-a']))));
    expect(await log.size()).toBe(40);
    const { rows } = await db.query<{ n: string }>('select count(distinct leaf_index)::text as n from transparency_log_leaves');
    expect(rows[0].n).toBe('40');
    for (const r of records) await verifyHeld(log, r);
    // The same records again (a second writer, a rebuild): nothing appended.
    expect(await db.transaction((tx) => appendToLog(tx, records, ['org-a']))).toBe(0);
    expect(await log.size()).toBe(40);
  });

  test('carried into a rebuilt read model, the log is extended, not restarted', async () => {
    const old = await emptyReadModel();
    const records = Array.from({ length: 7 }, (_, i) => record(100 + i));
    for (const r of records) await old.transaction((tx) => appendToLog(tx, [r], ['org-a']));
    const before = verifyCheckpoint((await logOn(old).current()).note, verifiers, ORIGIN);
    const rebuilt = await emptyReadModel();
    await carryOver(old, rebuilt, LOG_TABLES);
    // The rebuild writes every record again, and one the old log lacked.
    await rebuilt.transaction((tx) => appendToLog(tx, [...records, record(200)], ['org-a']));
    const log = logOn(rebuilt);
    expect(await log.size()).toBe(8);
    await verifyGrowth(log, before);
    await verifyHeld(log, record(200));
  });

  test('every rewrite is caught by a participant holding a checkpoint from before', async () => {
    const db = await emptyReadModel();
    const log = logOn(db);
    const records = Array.from({ length: 13 }, (_, i) => record(300 + i));
    for (const r of records) await db.transaction((tx) => appendToLog(tx, [r], ['org-a']));
    const kept = await verifyHeld(log, records[5]);

    // 1. A record's row rewritten (another decision): its holder's record no longer matches.
    const forged = { ...records[5], record: { ...(records[5].record as object), decision: 'withdraw' } };
    const digestOf5 = (await log.leaf(records[5].key))!.recordDigest;
    await db.query('update transparency_log_leaves set record_digest = $2 where record_key = $1', [records[5].key, recordDigest(forged.record)]);
    await expect(verifyHeld(log, records[5])).rejects.toThrow(TransparencyError);
    // ... and the forged record with the old leaf hash does not prove either.
    await expect(verifyHeld(log, forged)).rejects.toThrow(TransparencyError);
    await db.query('update transparency_log_leaves set record_digest = $2 where record_key = $1', [records[5].key, digestOf5]);
    await verifyHeld(log, records[5]);

    // 2. A stored node changed under the checkpoint: the signed root no longer follows from the proof.
    const { rows } = await db.query<{ hash: string }>('select hash from transparency_log_nodes where level = 0 and node_index = 4');
    await db.query(`update transparency_log_nodes set hash = repeat('0', 64) where level = 0 and node_index = 4`);
    await expect(verifyHeld(log, records[5])).rejects.toThrow(TransparencyError);
    await db.query('update transparency_log_nodes set hash = $1 where level = 0 and node_index = 4', [rows[0].hash]);
    await verifyHeld(log, records[5]);

    // 3. The log written again from scratch around a changed record, and signed: a fork of the kept checkpoint.
    const writeAgain = async (list: Array<{ key: string; record: unknown }>) => {
      for (const table of LOG_TABLES) await db.query(`delete from ${table}`);
      for (const r of list) await db.transaction((tx) => appendToLog(tx, [r], ['org-a']));
    };
    await writeAgain(records.map((r, i) => (i === 5 ? forged : r)));
    await expect(verifyGrowth(log, kept)).rejects.toThrow(/forked|rewritten/);

    // 4. A leaf dropped and the log grown again past it: not an extension of the kept checkpoint.
    await writeAgain([...records.slice(0, 5), ...records.slice(6), record(400)]);
    await expect(verifyGrowth(log, kept)).rejects.toThrow(TransparencyError);
  });

  test('a restore: the log goes on under a new origin, linked to the restored tree; checkpoints signed after the backup are of another log', async () => {
    const live = await emptyReadModel();
    const records = Array.from({ length: 10 }, (_, i) => record(500 + i));
    for (const r of records) await live.transaction((tx) => appendToLog(tx, [r], ['org-a']));
    const atBackup = verifyCheckpoint((await logOn(live).current()).note, verifiers, ORIGIN);
    // The backup: the read model as it is now (its log tables suffice here).
    const restored = await emptyReadModel();
    await carryOver(live, restored, LOG_TABLES);
    // After the backup the live log grew, and a participant kept a checkpoint of it.
    for (const r of [record(600), record(601)]) await live.transaction((tx) => appendToLog(tx, [r], ['org-a']));
    const afterBackup = verifyCheckpoint((await logOn(live).current()).note, verifiers, ORIGIN);

    const epoch = await startLogEpoch(restored);
    expect(epoch).toMatchObject({ epoch: 2, restoredSize: 10, restoredRoot: Buffer.from(atBackup.root).toString('hex') });
    const log = logOn(restored);
    for (const r of [record(700), record(701)]) await restored.transaction((tx) => appendToLog(tx, [r], ['org-a']));
    expect(await log.origin()).toBe(`${ORIGIN}/epoch-2`);
    const now = verifyCheckpoint((await log.current()).note, verifiers, `${ORIGIN}/epoch-2`);
    expect(now.size).toBe(13);
    // The new log extends the restored tree (the link leaf and what followed) ...
    verifyConsistency(atBackup.size, now.size, atBackup.root, now.root, (await log.consistencyProof(atBackup.size, now.size)).map(hex));
    // ... and a reader of the old log finds it renamed, not silently forked: same size, another origin.
    const note = (await log.current()).note;
    expect(() => verifyCheckpoint(note, verifiers, ORIGIN)).toThrow(/not test.example\/transparency-log$/);
    // Had it kept the name, the new log would be a fork of what the participant kept after the backup.
    const proof = (await log.consistencyProof(afterBackup.size, now.size)).map(hex);
    expect(() => verifyConsistency(afterBackup.size, now.size, afterBackup.root, now.root, proof)).toThrow(TransparencyError);
    expect((await log.leaf('transparency-log#/epochs/2'))!.leafIndex).toBe(10);
  });
});
