// The transparency log from a shell (docs/transparency-log.md).
//
// `pcx verify`: an auditor's check of the broker's transparency log. The
// log's latest checkpoint is verified against its keys (pinned with --key, else the published ones)
// and against the checkpoint this machine kept from the last run (the log only grew); then each of
// the organization's records (or the one --record names) is read where the broker serves it and
// proven in that checkpoint. Any rewrite, dropped record or fork exits 1 with what was found, and
// the kept checkpoint stays as it was.
//
// `pcx witness`: an organization (or anyone the operator lists) as a witness of the log: it verifies
// the latest checkpoint as `pcx verify` does (signed, and extending the one it cosigned before),
// then cosigns it with its own note key, so that readers who trust it see only checkpoints it checked.
import type { Command } from 'commander';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PcxClient } from '../client';
import { PcxProblemError } from '../errors';
import { TransparencyMonitor, type CheckpointStore } from '../transparency-monitor';
import { cosign, generateNoteKey } from '../transparency';
import type { Output } from './output';
import { configDir } from './profiles';

export interface TransparencyLogCli {
  io: { env: NodeJS.ProcessEnv };
  client(out: Output): PcxClient;
  run<A extends unknown[]>(fn: (out: Output, ...args: A) => Promise<void>): (...args: A) => Promise<void>;
}

/** The kept checkpoint of each log, one file per origin in a folder (written whole, then renamed). */
export class FileCheckpointStore implements CheckpointStore {
  constructor(private readonly dir: string) {}
  private file(origin: string) {
    return join(this.dir, `${origin.replace(/[^A-Za-z0-9._-]/g, '_')}.checkpoint`);
  }
  async load(origin: string) {
    return existsSync(this.file(origin)) ? readFileSync(this.file(origin), 'utf8') : undefined;
  }
  async save(origin: string, note: string) {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(`${this.file(origin)}.tmp`, note, { mode: 0o600 });
    renameSync(`${this.file(origin)}.tmp`, this.file(origin));
  }
}

interface Leaf {
  leafIndex: number;
  recordKey: string;
}

export function transparencyLogCommands(program: Command, cli: TransparencyLogCli): void {
  program
    .command('verify')
    .description("prove your organization's decisions, commitments and outcomes are in the broker's transparency log, and that the log only grew")
    .option('--key <verifierKey...>', "the log's note verifier keys, pinned (else the ones the broker publishes)")
    .option('--record <key>', 'only this record (e.g. match-proposals/<id>#/decisions/0)')
    .option('--state <dir>', 'where the last verified checkpoint is kept', undefined)
    .action(
      cli.run(async (out, opts: { key?: string[]; record?: string; state?: string }) => {
        const pcx = cli.client(out);
        const store = new FileCheckpointStore(opts.state ?? join(configDir(cli.io.env), 'transparency-log'));
        const monitor = new TransparencyMonitor(pcx, { store, ...(opts.key ? { verifierKeys: opts.key } : {}) });
        const before = await monitor.kept();
        const checkpoint = await monitor.refresh();
        out.progress(`checkpoint: ${checkpoint.size} leaves${before ? `, consistent with the one kept (${before.size} leaves)` : ' (none kept before: this one is kept now)'}`);
        const leaves: Leaf[] = opts.record ? [{ leafIndex: -1, recordKey: opts.record }] : await allLeaves(pcx);
        const verified: string[] = [];
        const unreadable: Array<{ recordKey: string; status: number }> = [];
        for (const leaf of leaves) {
          const path = leaf.recordKey.split('#')[0];
          let document: unknown;
          try {
            document = (await pcx.send('GET', `/${path}`)).data;
          } catch (err) {
            // A record retention purged (410) or one no longer shown: its leaf stays, its content cannot be checked.
            if (err instanceof PcxProblemError && (err.status === 404 || err.status === 410) && !opts.record) {
              unreadable.push({ recordKey: leaf.recordKey, status: err.status });
              continue;
            }
            throw err;
          }
          await monitor.verifyRecord(leaf.recordKey, document);
          verified.push(leaf.recordKey);
        }
        const kept = await monitor.kept();
        const report = { treeSize: kept?.size, verified: verified.length, unreadable };
        if (out.json) out.data(report);
        else {
          out.message(`${verified.length} record${verified.length === 1 ? '' : 's'} proven in the log's checkpoint of ${kept?.size} leaves`);
          for (const u of unreadable) out.message(`  not readable (${u.status}), its leaf kept: ${u.recordKey}`);
        }
      }),
    );

  program
    .command('witness')
    .description("cosign the broker's latest transparency-log checkpoint once it is verified to extend the last one you cosigned")
    .option('--key-file <path>', 'your note signer key (PRIVATE+KEY+...); the operator lists its verifier key in TRANSPARENCY_LOG_WITNESS_KEYS')
    .option('--generate-key <name>', 'write a new note key named <name> to --key-file and print its verifier key for the operator')
    .option('--state <dir>', 'where the last cosigned checkpoint is kept', undefined)
    .action(
      cli.run(async (out, opts: { keyFile?: string; generateKey?: string; state?: string }) => {
        if (!opts.keyFile) throw new Error('--key-file is required');
        if (opts.generateKey) {
          if (existsSync(opts.keyFile)) throw new Error(`${opts.keyFile} exists: a witness keeps its key`);
          const key = generateNoteKey(opts.generateKey);
          writeFileSync(opts.keyFile, `${key.signerKey}\n`, { mode: 0o600 });
          return out.json ? out.data({ verifierKey: key.verifierKey }) : out.message(key.verifierKey);
        }
        const signerKey = readFileSync(opts.keyFile, 'utf8').trim();
        const pcx = cli.client(out);
        const store = new FileCheckpointStore(opts.state ?? join(configDir(cli.io.env), 'transparency-log-witness'));
        // Verified (signed, and extending the one this witness cosigned before), then cosigned.
        const checkpoint = await new TransparencyMonitor(pcx, { store }).refresh();
        const { data } = await pcx.request<{ treeSize: number; note: string }>('POST', '/transparency-log/cosignatures', { body: { treeSize: checkpoint.size, signature: cosign(checkpoint.note.text, signerKey) } });
        if (out.json) out.data({ treeSize: data.treeSize, cosigned: true });
        else out.message(`cosigned the checkpoint of ${data.treeSize} leaves`);
      }),
    );
}

/** `pcx --verify`: each `get` proves what it read, against the checkpoint `pcx verify` keeps. */
export function verifyingReads(pcx: PcxClient, env: NodeJS.ProcessEnv): (collection: string, document: unknown) => Promise<void> {
  return new TransparencyMonitor(pcx, { store: new FileCheckpointStore(join(configDir(env), 'transparency-log')) }).verifyReads();
}

async function allLeaves(pcx: PcxClient): Promise<Leaf[]> {
  const leaves: Leaf[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = (await pcx.request<{ items: Leaf[]; nextCursor: string | null }>('GET', '/transparency-log/leaves', { query: { limit: 200, ...(cursor ? { cursor } : {}) } })).data;
    leaves.push(...page.items);
    if (!page.nextCursor) return leaves;
    cursor = page.nextCursor;
  }
}
