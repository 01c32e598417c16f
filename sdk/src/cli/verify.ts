// `pcx verify`: an auditor's check of the broker's transparency log (docs/transparency-log.md). The
// log's latest checkpoint is verified against its keys (pinned with --key, else the published ones)
// and against the checkpoint this machine kept from the last run (the log only grew); then each of
// the organization's records (or the one --record names) is read where the broker serves it and
// proven in that checkpoint. Any rewrite, dropped record or fork exits 1 with what was found, and
// the kept checkpoint stays as it was.
import type { Command } from 'commander';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PcxClient } from '../client';
import { PcxProblemError } from '../errors';
import { TransparencyMonitor, type CheckpointStore } from '../transparency-monitor';
import type { Output } from './output';
import { configDir } from './profiles';

export interface VerifyCli {
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

export function verifyCommand(program: Command, cli: VerifyCli): void {
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
