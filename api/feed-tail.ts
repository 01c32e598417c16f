// The feed's tail, watched once per process for every open event stream (api/events.ts): the
// newest position of the outbox is read twice a second while at least one stream waits, and
// every waiting stream is woken when it moves; then each reads its own rows. One cheap query per
// process instead of one feed query per stream.
import type { Db } from '../core/db';
import { outboxTail } from '../read-model/webhook-subscriptions';

const INTERVAL_MS = 500;

export interface FeedTail {
  /** How many moves have been seen: taken before a read, handed to `moved` after it. */
  generation(): number;
  /** Resolves when the feed moved after `since` was taken (at once if it has), or after `ms`. */
  moved(ms: number, since: number): Promise<void>;
}

const tails = new WeakMap<Db, FeedTail>();

export function feedTail(db: Db): FeedTail {
  let tail = tails.get(db);
  if (!tail) tails.set(db, (tail = watch(db)));
  return tail;
}

function watch(db: Db): FeedTail {
  const waiting = new Set<() => void>();
  let position: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let reading = false;
  let generation = 0;

  async function look() {
    if (reading) return;
    if (!waiting.size) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    reading = true;
    try {
      const t = await outboxTail(db);
      const now = `${t.tx}.${t.seq}`;
      if (now !== position) {
        // The first look counts as a move too: whatever came before it may not have been read.
        position = now;
        generation++;
        for (const wake of [...waiting]) wake();
      }
    } catch {
      // The database away: the streams' own reads will say so; wake them on their timers.
    } finally {
      reading = false;
    }
  }

  return {
    generation: () => generation,
    moved(ms, since) {
      if (generation > since) return Promise.resolve();
      return new Promise((resolve) => {
        const wake = () => {
          waiting.delete(wake);
          clearTimeout(timeout);
          resolve();
        };
        const timeout = setTimeout(wake, ms);
        waiting.add(wake);
        if (!timer) {
          timer = setInterval(() => void look(), INTERVAL_MS);
          timer.unref();
          void look();
        }
      });
    },
  };
}
