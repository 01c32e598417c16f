// The transparency log's store (docs/transparency-log.md): leaves appended in the transaction that
// writes their records (read-model/projection.ts), the nodes of the tree kept as they complete,
// checkpoints signed on demand and at an interval, and the proofs a participant asks for, computed
// by the RFC's recursion (domain/transparency-log.ts) on the nodes it names.
//
// Appends take one lock for the whole log, after the resource's own lock (never before it: no
// deadlock), and hold it to their commit: leaf indices are given out in commit order, so what a
// reader sees committed is always a prefix of the log, and a checkpoint signs a prefix.
import { createHash, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../core/db';
import { canonicalBytes, sha256Hex } from '../core/digest';
import { checkpointText, noteText, signNote, type TransparencyLogKeys } from '../core/transparency-log-key';
import { compute, nodeKey, nodesCompletedBy, nodesFor, nodesForAppend, type LedgerRecord, type NodeId, type Question } from '../domain/transparency-log';

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const LOCK = `select pg_advisory_xact_lock(hashtextextended('pcx-transparency-log', 0))`;
/** The root of the empty tree: SHA-256 of nothing (RFC 9162 2.1.1). */
const EMPTY_ROOT = sha256(new Uint8Array());

/** SHA-256 of the record's RFC 8785 canonical JSON, hex (core/digest.ts, as a commitment's digest): what a leaf commits to. */
export function recordDigest(record: unknown): string {
  return sha256Hex(canonicalBytes(record as Record<string, unknown>));
}

/** A leaf's bytes: the canonical JSON of the record's key, digest and salt (sdk/src/transparency.ts `leafOf`). */
export function leafOf(key: string, digest: string, salt: string): Uint8Array {
  return canonicalBytes({ digest, key, salt });
}

async function readNodes(q: Queryable, ids: NodeId[]): Promise<Map<string, Uint8Array>> {
  if (ids.length === 0) return new Map();
  const { rows } = await q.query<{ level: number; node_index: string; hash: string }>(
    `select level, node_index::text, hash from transparency_log_nodes
      where (level, node_index) in (select * from unnest($1::int[], $2::bigint[]))`,
    [ids.map((n) => n.level), ids.map((n) => n.index)],
  );
  return new Map(rows.map((r) => [nodeKey({ level: r.level, index: Number(r.node_index) }), new Uint8Array(Buffer.from(r.hash, 'hex'))]));
}

async function sizeOf(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ size: string }>('select coalesce(max(leaf_index) + 1, 0)::text as size from transparency_log_leaves');
  return Number(rows[0].size);
}

/**
 * Appends the records not yet logged, inside the caller's transaction (the one writing them): the
 * same record written again (a second writer, a rebuild) is logged once, by its key.
 */
export async function appendToLog(tx: Queryable, records: LedgerRecord[], organizations: string[]): Promise<number> {
  if (records.length === 0) return 0;
  const keys = records.map((r) => r.key);
  // Looked up before the lock (mostly all are logged: nothing to wait for), and again under it with
  // the log's size: a record is written under its resource's lock, but a key logged twice must
  // never be possible.
  const first = await tx.query<{ record_key: string }>('select record_key from transparency_log_leaves where record_key = any($1)', [keys]);
  if (first.rows.length === keys.length) return 0;
  await tx.query(LOCK);
  const { rows } = await tx.query<{ size: string; logged: string[] }>(
    `select coalesce(max(leaf_index) + 1, 0)::text as size,
            array(select record_key from transparency_log_leaves where record_key = any($1)) as logged
       from transparency_log_leaves`,
    [keys],
  );
  const logged = new Set(rows[0].logged);
  const missing = records.filter((r) => !logged.has(r.key));
  let index = Number(rows[0].size);
  for (const { key, record } of missing) {
    const digest = recordDigest(record);
    const salt = randomBytes(32).toString('hex');
    const completed = nodesCompletedBy(sha256, index, leafOf(key, digest, salt), await readNodes(tx, nodesForAppend(index)));
    await tx.query(
      `with leaf as (
         insert into transparency_log_leaves (leaf_index, record_key, record_digest, salt, leaf_hash, organizations) values ($1, $2, $3, $4, $5, $6)
       )
       insert into transparency_log_nodes (level, node_index, hash) select * from unnest($7::int[], $8::bigint[], $9::text[])`,
      [index, key, digest, salt, hex(completed[0].hash), organizations, completed.map((n) => n.level), completed.map((n) => n.index), completed.map((n) => hex(n.hash))],
    );
    index++;
  }
  return missing.length;
}

export interface LogEpoch {
  epoch: number;
  startedAt: string;
  restoredSize: number;
  restoredRoot: string;
}

async function epochsOf(q: Queryable): Promise<LogEpoch[]> {
  const { rows } = await q.query<{ ordinal: number; started_at: Date | string; restored_size: string; restored_root: string }>(
    'select ordinal, started_at, restored_size::text, restored_root from transparency_log_epochs order by ordinal',
  );
  return rows.map((r) => ({ epoch: r.ordinal, startedAt: new Date(r.started_at).toISOString(), restoredSize: Number(r.restored_size), restoredRoot: r.restored_root }));
}

/** The origin of the log's current epoch: the configured one, then `<origin>/epoch-<n>` after each restore. */
export const originOf = (origin: string, epochs: LogEpoch[]) => (epochs.length ? `${origin}/epoch-${epochs[epochs.length - 1].epoch}` : origin);

/**
 * After a restore (scripts/restore.ts, scripts/restored.ts; the broker stopped): the log goes on as
 * a new log, under a new origin, whose first new leaf links it to the tree restored (its size and
 * root, key `transparency-log#/epochs/<n>`). Checkpoints signed after the backup were of the old
 * origin: a reader holding one sees a log of another name, and the link says from which point it
 * goes on, instead of a silent fork.
 */
export async function startLogEpoch(db: Db): Promise<LogEpoch> {
  return db.transaction(async (tx) => {
    await tx.query(LOCK);
    const size = await sizeOf(tx);
    const root = await rootOf(tx, size);
    const { rows } = await tx.query<{ ordinal: number }>(
      `insert into transparency_log_epochs (ordinal, restored_size, restored_root)
       select coalesce(max(ordinal), 1) + 1, $1, $2 from transparency_log_epochs returning ordinal`,
      [size, hex(root)],
    );
    const epoch = rows[0].ordinal;
    await appendToLog(tx, [{ key: `transparency-log#/epochs/${epoch}`, record: { epoch, restoredSize: size, restoredRoot: hex(root) } }], []);
    return (await epochsOf(tx)).find((e) => e.epoch === epoch)!;
  });
}

/** The hashes a question asks for (a root, an inclusion or a consistency proof), from the stored nodes. */
async function answer(q: Queryable, question: Question): Promise<Uint8Array[]> {
  return compute(sha256, question, await readNodes(q, nodesFor(question)));
}

/** The root of the tree of `size` leaves (the empty tree's too). */
async function rootOf(q: Queryable, size: number): Promise<Uint8Array> {
  return size === 0 ? EMPTY_ROOT : (await answer(q, { root: size }))[0];
}

export interface SignedCheckpoint {
  treeSize: number;
  rootHash: string;
  /** The signed note, the broker's signature first, then any witnesses' cosignatures. */
  note: string;
  signedAt: string;
}

export interface LoggedLeaf {
  leafIndex: number;
  recordKey: string;
  recordDigest: string;
  salt: string;
  leafHash: string;
  organizations: string[];
  loggedAt: string;
}

interface CheckpointRow {
  tree_size: string;
  root_hash: string;
  note: string;
  signed_at: Date | string;
}

const checkpointOf = (r: CheckpointRow): SignedCheckpoint => ({
  treeSize: Number(r.tree_size),
  rootHash: r.root_hash,
  note: r.note,
  signedAt: new Date(r.signed_at).toISOString(),
});

interface LeafRow {
  leaf_index: string;
  record_key: string;
  record_digest: string;
  salt: string;
  leaf_hash: string;
  organizations: string[];
  logged_at: Date | string;
}

const leafRow = (r: LeafRow): LoggedLeaf => ({
  leafIndex: Number(r.leaf_index),
  recordKey: r.record_key,
  recordDigest: r.record_digest,
  salt: r.salt,
  leafHash: r.leaf_hash,
  organizations: r.organizations,
  loggedAt: new Date(r.logged_at).toISOString(),
});

/** The signature lines of a note: the broker's first, then the cosignatures. */
const signatureLines = (note: string) => note.slice(noteText(note).length + 1).split('\n').filter((l) => l.startsWith('\u2014 ')).length;

const CHECKPOINT_COLUMNS = 'tree_size::text, root_hash, note, signed_at';
const LEAF_COLUMNS = 'leaf_index::text, record_key, record_digest, salt, leaf_hash, organizations, logged_at';

/**
 * The log as the API serves it: checkpoints, proofs, an organization's leaves.
 * @param settings.witnesses the note verifier keys of the witnesses whose cosignatures the log
 * takes (TRANSPARENCY_LOG_WITNESS_KEYS); none by default.
 */
export function openTransparencyLog(db: Db, settings: { keys: TransparencyLogKeys; origin: string; witnesses?: readonly string[] }) {
  const { keys } = settings;
  const witnesses = settings.witnesses ?? [];
  // Epochs change only by a restore, with the broker stopped: read once.
  let epochs: Promise<LogEpoch[]> | undefined;
  const epochsNow = () => (epochs ??= epochsOf(db).catch((err) => {
    epochs = undefined;
    throw err;
  }));
  const originNow = async () => originOf(settings.origin, await epochsNow());

  async function checkpointAt(size: number): Promise<SignedCheckpoint | undefined> {
    const { rows } = await db.query<CheckpointRow>(`select ${CHECKPOINT_COLUMNS} from transparency_log_checkpoints where tree_size = $1`, [size]);
    return rows[0] && checkpointOf(rows[0]);
  }

  /** The checkpoint of the log as it is now: the stored one of its size, or one signed now. */
  async function current(): Promise<SignedCheckpoint> {
    const size = await sizeOf(db);
    const stored = await checkpointAt(size);
    if (stored) return stored;
    const root = await rootOf(db, size);
    const note = signNote(checkpointText(await originNow(), size, root), keys.signer);
    // Two replicas signing the same size at once: the first stored is the one every reader gets.
    await db.query('insert into transparency_log_checkpoints (tree_size, root_hash, note) values ($1, $2, $3) on conflict (tree_size) do nothing', [size, hex(root), note]);
    return (await checkpointAt(size))!;
  }

  return {
    origin: originNow,
    epochs: epochsNow,
    keys,
    witnesses,
    current,
    checkpointAt,
    /** The logged leaf of a record, by its key. */
    async leaf(key: string): Promise<LoggedLeaf | undefined> {
      const { rows } = await db.query<LeafRow>(`select ${LEAF_COLUMNS} from transparency_log_leaves where record_key = $1`, [key]);
      return rows[0] && leafRow(rows[0]);
    },
    /** An organization's leaves in log order, after a leaf index (paging). */
    async leavesOf(organizationId: string, after: number, limit: number): Promise<LoggedLeaf[]> {
      const { rows } = await db.query<LeafRow>(
        `select ${LEAF_COLUMNS} from transparency_log_leaves where organizations @> array[$1]::text[] and leaf_index > $2 order by leaf_index limit $3`,
        [organizationId, after, limit],
      );
      return rows.map(leafRow);
    },
    size: () => sizeOf(db),
    inclusionProof: async (index: number, size: number) => (await answer(db, { inclusion: { index, size } })).map(hex),
    consistencyProof: async (from: number, to: number) => (from === 0 || from === to ? [] : (await answer(db, { consistency: { from, to } })).map(hex)),
    /** Adds a witness's cosignature line (already verified) to a stored checkpoint, once. */
    async addCosignature(size: number, line: string): Promise<SignedCheckpoint | undefined> {
      await db.query(`update transparency_log_checkpoints set note = note || $2 where tree_size = $1 and position($2 in note) = 0`, [size, `${line}\n`]);
      return checkpointAt(size);
    },
    /** The newest checkpoint cosigned by at least `witnesses` witnesses (among the last hundred signed). */
    async latestWitnessed(witnesses: number): Promise<SignedCheckpoint | undefined> {
      const { rows } = await db.query<CheckpointRow>(`select ${CHECKPOINT_COLUMNS} from transparency_log_checkpoints order by tree_size desc limit 100`);
      return rows.map(checkpointOf).find((c) => signatureLines(c.note) - 1 >= witnesses);
    },
  };
}

export type TransparencyLog = ReturnType<typeof openTransparencyLog>;
