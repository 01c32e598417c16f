// A participant's watch over the broker's transparency log (docs/transparency-log.md): every
// checkpoint it is shown is verified against the log's keys and against the last one it kept (a
// consistency proof: the log only grew), and every record it checks is proven in a checkpoint so
// verified. A broker that rewrote a decision, dropped an outcome, or showed this organization a
// different log than before fails here with a TransparencyError, and the kept checkpoint is not moved.
import type { PcxClient } from './client';
import {
  hashLeaf,
  leafOf,
  loggedValue,
  noteVerifier,
  recordDigest,
  toHex,
  TransparencyError,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  type Checkpoint,
  type NoteVerifier,
} from './transparency';

/** Where the last verified checkpoint is kept between runs (a file, a table); memory by default. */
export interface CheckpointStore {
  load(origin: string): Promise<string | undefined>;
  save(origin: string, note: string): Promise<void>;
}

export class MemoryCheckpointStore implements CheckpointStore {
  private readonly notes = new Map<string, string>();
  async load(origin: string) {
    return this.notes.get(origin);
  }
  async save(origin: string, note: string) {
    this.notes.set(origin, note);
  }
}

export interface TransparencyMonitorOptions {
  /**
   * The log's note verifier keys, pinned out of band (the strongest check). Without them the keys
   * the broker publishes at /.well-known/transparency-log/keys are trusted on first use.
   */
  verifierKeys?: string[];
  /** The log's origin, if known; otherwise the published one. */
  origin?: string;
  store?: CheckpointStore;
  /**
   * Witnesses this reader trusts (their note verifier keys) and how many of them must have
   * cosigned a checkpoint before it is believed (default: all of them). With witnesses, the
   * monitor reads the newest checkpoint they cosigned, and proves records in it: a log that showed
   * another organization a different tree could not have had it cosigned by a witness that checks.
   */
  witnesses?: { keys: string[]; quorum?: number };
}

interface CheckpointBody {
  origin: string;
  treeSize: number;
  rootHash: string;
  note: string;
}

/** A checkpoint verified: its size, root and origin, and its note opened (the text its signatures cover, who signed). */
export type VerifiedCheckpoint = ReturnType<typeof verifyCheckpoint>;

/** What `verifyRecord` proved. */
export interface VerifiedRecord {
  recordKey: string;
  leafIndex: number;
  treeSize: number;
  recordDigest: string;
}

export class TransparencyMonitor {
  private verifiers: NoteVerifier[] | undefined;
  private origin: string | undefined;
  private readonly store: CheckpointStore;
  private readonly witnesses: { verifiers: NoteVerifier[]; quorum: number } | undefined;

  constructor(
    private readonly client: PcxClient,
    options: TransparencyMonitorOptions = {},
  ) {
    this.store = options.store ?? new MemoryCheckpointStore();
    this.origin = options.origin;
    if (options.verifierKeys) this.verifiers = options.verifierKeys.map(noteVerifier);
    if (options.witnesses) {
      const verifiers = options.witnesses.keys.map(noteVerifier);
      this.witnesses = { verifiers, quorum: options.witnesses.quorum ?? verifiers.length };
    }
  }

  private async keys(): Promise<{ verifiers: NoteVerifier[]; origin: string }> {
    if (!this.verifiers || !this.origin) {
      const { data } = await this.client.request<{ origin: string; keys: Array<{ verifierKey: string }> }>('GET', '/.well-known/transparency-log/keys');
      this.verifiers ??= data.keys.map((k) => noteVerifier(k.verifierKey));
      this.origin ??= data.origin;
    }
    return { verifiers: this.verifiers, origin: this.origin };
  }

  /** The last checkpoint this monitor verified and kept, if any. */
  async kept(): Promise<Checkpoint | undefined> {
    const { verifiers, origin } = await this.keys();
    const note = await this.store.load(origin);
    return note === undefined ? undefined : verifyCheckpoint(note, verifiers, origin);
  }

  /**
   * Verifies a checkpoint the broker showed (its signature, then that it extends the kept one) and
   * keeps it if it is newer. Throws TransparencyError on a bad signature or a fork.
   */
  async observe(body: CheckpointBody): Promise<VerifiedCheckpoint> {
    const { verifiers, origin } = await this.keys();
    const checkpoint = verifyCheckpoint(body.note, [...verifiers, ...(this.witnesses?.verifiers ?? [])], origin);
    if (this.witnesses) {
      const byWitness = checkpoint.note.verified.filter((s) => this.witnesses!.verifiers.some((w) => w.name === s.name && w.keyHash === s.keyHash));
      if (byWitness.length < this.witnesses.quorum) throw new TransparencyError(`the checkpoint of ${checkpoint.size} leaves is cosigned by ${byWitness.length} of the witnesses, ${this.witnesses.quorum} needed`);
    }
    if (!checkpoint.note.verified.some((s) => verifiers.some((v) => v.name === s.name && v.keyHash === s.keyHash))) throw new TransparencyError("the checkpoint is not signed by the log's key");
    if (checkpoint.size !== body.treeSize || toHex(checkpoint.root) !== body.rootHash) throw new TransparencyError('the checkpoint says other than its note signs');
    const kept = await this.kept();
    if (kept && kept.size <= checkpoint.size) {
      const { data } = await this.client.request<{ consistencyPath: string[] }>('GET', '/transparency-log/consistency-proofs', { query: { from: kept.size, to: checkpoint.size } });
      verifyConsistency(kept.size, checkpoint.size, kept.root, checkpoint.root, data.consistencyPath.map(hexBytes));
    } else if (kept) {
      // An older checkpoint than the kept one: the kept one must extend it.
      const { data } = await this.client.request<{ consistencyPath: string[]; checkpoint: CheckpointBody }>('GET', '/transparency-log/consistency-proofs', { query: { from: checkpoint.size, to: kept.size } });
      verifyConsistency(checkpoint.size, kept.size, checkpoint.root, kept.root, data.consistencyPath.map(hexBytes));
    }
    if (!kept || checkpoint.size > kept.size) await this.store.save(origin, body.note);
    return checkpoint;
  }

  /** The log's latest checkpoint (with witnesses, the latest they cosigned), verified and kept. */
  async refresh(): Promise<VerifiedCheckpoint> {
    const query = this.witnesses ? { witnessed: this.witnesses.quorum } : {};
    const { data } = await this.client.request<CheckpointBody>('GET', '/transparency-log/checkpoint', { query });
    return this.observe(data);
  }

  /**
   * Proves that the record `recordKey` names, as read in `document` (the document of the key's path:
   * a proposal for `match-proposals/{id}#/decisions/0`, an outcome for `execution-outcomes/{id}`), is
   * the one the log holds, in a checkpoint that extends every one seen before.
   */
  async verifyRecord(recordKey: string, document: unknown): Promise<VerifiedRecord> {
    // With witnesses, in the newest checkpoint they cosigned (a record logged after it is not yet witnessed: 400).
    const treeSize = this.witnesses ? (await this.refresh()).size : undefined;
    const { data } = await this.client.request<{ leaf: { leafIndex: number; recordDigest: string; salt: string; leafHash: string }; treeSize: number; auditPath: string[]; checkpoint: CheckpointBody }>(
      'GET',
      '/transparency-log/inclusion-proofs',
      { query: { recordKey, ...(treeSize !== undefined ? { treeSize } : {}) } },
    );
    const digest = recordDigest(loggedValue(recordKey, document));
    if (digest !== data.leaf.recordDigest) throw new TransparencyError(`${recordKey}: the record read is not the record logged (digest ${digest}, logged ${data.leaf.recordDigest})`);
    const leafHash = hashLeaf(leafOf(recordKey, digest, data.leaf.salt));
    if (toHex(leafHash) !== data.leaf.leafHash) throw new TransparencyError(`${recordKey}: the leaf does not commit to this record`);
    const checkpoint = await this.observe(data.checkpoint);
    if (checkpoint.size !== data.treeSize) throw new TransparencyError(`${recordKey}: the proof is for a tree of ${data.treeSize} leaves, the checkpoint signs ${checkpoint.size}`);
    verifyInclusion(data.leaf.leafIndex, data.treeSize, leafHash, data.auditPath.map(hexBytes), checkpoint.root);
    return { recordKey, leafIndex: data.leaf.leafIndex, treeSize: data.treeSize, recordDigest: digest };
  }

  /** Every logged record in a document read from a collection, proven (`loggedKeys`). */
  async verifyDocument(collection: string, document: unknown): Promise<VerifiedRecord[]> {
    const verified: VerifiedRecord[] = [];
    for (const key of loggedKeys(collection, document)) verified.push(await this.verifyRecord(key, document));
    return verified;
  }

  /** For PcxClientOptions.onRead: every resource the client reads by `get` has its logged records proven. */
  verifyReads(): (collection: string, document: unknown) => Promise<void> {
    return async (collection, document) => {
      await this.verifyDocument(collection, document);
    };
  }
}

/**
 * The keys of the logged records in a document of a collection, as the broker's kinds declare them
 * (docs/transparency-log.md, "What is logged"): the lists only grow, so a record's key is its place.
 */
export function loggedKeys(collection: string, document: any): string[] {
  const id = document?.id;
  if (typeof id !== 'string') return [];
  const listed = (member: string) => (Array.isArray(document[member]) ? document[member].map((_: unknown, i: number) => `${collection}/${id}#/${member}/${i}`) : []);
  switch (collection) {
    case 'match-proposals':
      return listed('decisions');
    case 'transport-tenders':
      return [...listed('revisions'), ...listed('decisions')];
    case 'transport-commitments':
      return document.digest ? [`${collection}/${id}#/digest`] : [];
    case 'execution-handovers':
      return listed('acknowledgements');
    case 'execution-outcomes':
      return [`${collection}/${id}`];
    default:
      return [];
  }
}

function hexBytes(hex: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new TransparencyError('a hash of the proof is not 32 bytes of hex');
  return new Uint8Array(Buffer.from(hex, 'hex'));
}
