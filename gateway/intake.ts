// Taking a message in: recorded in the inbox first (for the organization of its mailbox or
// credential), then its workflow started under the entry's id. A crash between the two is
// repaired at the next start (`resume`): every entry not yet acknowledged gets its workflow, and
// one that exists already is left as it is.
//
// Before a format sees a message, `screen` judges what no format could read: a file over the size
// limit (not kept at all: refused as too large, never cut and misread) and bytes that are no text
// in the format's encoding (a NUL byte: a binary file, which the database could not even store as
// text). Such a message is recorded already quarantined, with its reason, and answered in its
// format's way like any other: one bad file is one held message, never a stopped gateway.
import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from '../core/db';
import type { Format } from './format';
import { advance, quarantine, receive, unfinished, type InboxEntry, type QuarantineReason } from './store';

export interface Incoming {
  id: string;
  organizationId: string;
  transport: 'mailbox' | 'http';
  format: string;
  name: string | null;
  content: string;
  /** Set when screening refused the message: it is recorded quarantined with this reason. */
  refusal?: QuarantineReason;
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

/** What a message is kept as when screening refused it: what it was, never the bytes. */
export const REFUSED_CONTENT = (size: number) => `(not kept: ${size} bytes the gateway could not read as a message)`;

export interface Screened {
  /** The message as text, when it can be read; otherwise a placeholder (REFUSED_CONTENT). */
  content: string;
  refusal?: QuarantineReason;
}

/** Judges a message's bytes before its format reads them: size, then whether it is text at all. */
export function screen(bytes: Buffer, size: number, format: Format, maxBytes: number): Screened {
  if (size > maxBytes) {
    return { content: REFUSED_CONTENT(size), refusal: { code: 'TOO_LARGE', message: `the file has ${size} bytes; a message may have at most ${maxBytes} (split it, or ask the operator for GATEWAY_MAX_MESSAGE_BYTES)` } };
  }
  const content = format.decode(bytes);
  const nul = content.indexOf('\u0000');
  if (nul >= 0) {
    return { content: REFUSED_CONTENT(size), refusal: { code: 'NOT_TEXT', message: `the file holds a NUL byte (character ${nul + 1}): it is a binary file, not ${format.name} text`, position: `character ${nul + 1}` } };
  }
  return { content };
}

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
    async take({ refusal, ...message }) {
      const result = await db.transaction(async (tx) => {
        const received = await receive(tx, { ...message, contentSha256: sha256(message.content) });
        // A screened-out message is held at once: its workflow only answers it.
        if (received.created && refusal) {
          await quarantine(tx, received.entry, [refusal]);
          await advance(tx, message.id, ['received'], 'quarantined', { kind: 'quarantined', reasons: [refusal], screened: true });
        }
        return received;
      });
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
