// Taking a message in: recorded in the inbox first (for the organization of its mailbox or
// credential), then its workflow started under the entry's id. A crash between the two is
// repaired at the next start (`resume`): every entry not yet acknowledged gets its workflow, and
// one that exists already is left as it is.
import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from '../core/db';
import { receive, unfinished, type InboxEntry } from './store';

export interface Incoming {
  id: string;
  organizationId: string;
  transport: 'mailbox' | 'http';
  format: string;
  name: string | null;
  content: string;
}

export interface Intake {
  /** Records the message (once per id) and starts its processing. */
  take(message: Incoming): Promise<{ entry: InboxEntry; created: boolean }>;
  /** Starts the processing of every entry a crash left unfinished. */
  resume(): Promise<number>;
  /** Waits up to `ms` for an entry's processing to end; true when it has. */
  settled(id: string, ms: number): Promise<boolean>;
}

export const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

export function createIntake(db: Db, temporal: Client, taskQueue: string): Intake {
  const start = async (id: string) => {
    try {
      // A workflow task a killed worker held moves on after 4 s (Temporal's default is 10).
      await temporal.workflow.start('adapterMessage', { taskQueue, workflowId: id, args: [id], workflowIdConflictPolicy: 'USE_EXISTING', workflowIdReusePolicy: 'REJECT_DUPLICATE', workflowTaskTimeout: '4 seconds' });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // done before: nothing to do
    }
  };
  return {
    async take(message) {
      const result = await receive(db, { ...message, contentSha256: sha256(message.content) });
      if (result.entry.status !== 'acknowledged') await start(message.id);
      return result;
    },
    async resume() {
      const ids = await unfinished(db);
      for (const id of ids) await start(id);
      return ids.length;
    },
    async settled(id, ms) {
      let timer: NodeJS.Timeout | undefined;
      try {
        const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)));
        await Promise.race([temporal.workflow.getHandle(id).result(), late]);
        return true;
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
