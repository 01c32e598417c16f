// The event feed consumer (GET /events), by the specification's delivery rules: events come at
// least once and in order per resource, so a consumer skips an event id it applied before (rule
// 1-2) and an event whose resourceversion is not above the one it applied for the subject (rule
// 3). `for await` yields each event to apply; the event counts as applied, and the cursor moves
// past its page, only when the loop asks for the next one, so a crash or an exception in the loop
// body gets the event again next time (make applying idempotent, or keep `applied` durable).
import { MemoryAppliedStore, type AppliedStore, type WebhookEvent } from './webhooks';
import { sleep } from './transport';

/** Where the consumer keeps its place: the cursor of the last page it finished. */
export interface CursorStore {
  load(): Promise<string | undefined> | string | undefined;
  save(cursor: string): Promise<void> | void;
}

export interface FeedOptions {
  /** Start after this cursor (default: the store's, else the feed's beginning, or its end with `from: 'end'`). */
  cursor?: string;
  /** Without a cursor: 'beginning' (default) reads the whole feed; 'end' only what comes after now. */
  from?: 'beginning' | 'end';
  cursorStore?: CursorStore;
  /** What has been applied (default: in memory, for this consumer only). */
  applied?: AppliedStore;
  /** Keep polling at the end of the feed (default false: end there). */
  follow?: boolean;
  /** The pause at the end of the feed while following (default 1,000 ms). */
  pollIntervalMs?: number;
  /** Page size (default the broker's). */
  limit?: number;
  signal?: AbortSignal;
  /** Told of every event skipped as a duplicate or a stale version. */
  onSkip?: (event: FeedEvent, why: 'duplicate' | 'stale') => void;
}

export type FeedEvent<Data = unknown> = WebhookEvent<Data>;

type ReadPage = (query: Record<string, unknown>, call: { signal?: AbortSignal }) => Promise<{ items: FeedEvent[]; nextCursor: string }>;

export class FeedConsumer implements AsyncIterable<FeedEvent> {
  /** The cursor after the last finished page. */
  cursor: string | undefined;
  private readonly applied: AppliedStore;

  constructor(
    private readonly readPage: ReadPage,
    private readonly options: FeedOptions,
  ) {
    this.applied = options.applied ?? new MemoryAppliedStore();
    this.cursor = options.cursor;
  }

  /**
   * Moves the cursor to the feed's end without yielding what is before it, saves it in the store and
   * returns it. A consumer that acts on what happens after it starts calls this before it acts (say,
   * before it publishes), so that no answer to its own action can fall before its cursor.
   */
  async skipToEnd(): Promise<string> {
    const { signal } = this.options;
    for (;;) {
      const page = await this.readPage({ ...(this.cursor ? { cursor: this.cursor } : {}), limit: 200 }, { ...(signal ? { signal } : {}) });
      const moved = page.nextCursor !== this.cursor;
      this.cursor = page.nextCursor;
      if (page.items.length === 0 || !moved) break;
    }
    await this.options.cursorStore?.save(this.cursor);
    return this.cursor;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<FeedEvent> {
    const { options } = this;
    if (this.cursor === undefined && options.cursorStore) this.cursor = (await options.cursorStore.load()) ?? undefined;
    if (this.cursor === undefined && options.from === 'end') await this.skipToEnd();
    for (;;) {
      const page = await this.readPage({ ...(this.cursor ? { cursor: this.cursor } : {}), ...(options.limit ? { limit: options.limit } : {}) }, { ...(options.signal ? { signal: options.signal } : {}) });
      for (const event of page.items) {
        if (await this.applied.hasEvent(event.id)) {
          options.onSkip?.(event, 'duplicate');
          continue;
        }
        const version = await this.applied.appliedVersion(event.subject);
        if (version !== undefined && event.resourceversion <= version) {
          options.onSkip?.(event, 'stale');
          continue;
        }
        yield event;
        // The loop asked for the next one: this one is applied.
        await this.applied.record(event);
      }
      const moved = page.nextCursor !== this.cursor;
      this.cursor = page.nextCursor;
      if (moved) await options.cursorStore?.save(page.nextCursor);
      if (page.items.length === 0) {
        if (!options.follow) return;
        await sleep(options.pollIntervalMs ?? 1000, options.signal);
      }
    }
  }
}
