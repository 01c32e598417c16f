// The event feed as a conforming consumer reads it (specification, Events, delivery rules 1-3):
// the whole feed of one organization from its start, and the invariants a consumer relies on.
import type { Connector } from './helpers';

/** Every event the organization's feed holds, oldest first, read page by page from the start. */
export async function wholeFeed(c: Connector): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await c.get(`/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    if (page.status !== 200) throw new Error(`GET /events: ${page.status} ${JSON.stringify(page.body)}`);
    items.push(...page.body.items);
    if (page.body.items.length === 0) return items;
    cursor = page.body.nextCursor;
  }
}

/**
 * Delivery rules 1-3 over a feed: ids are unique, and within one subject resourceversion strictly
 * increases from event to event, so a consumer that drops an event at or below the version it
 * applied (rule 2) drops none of them.
 */
export function expectCausalFeed(events: any[]): void {
  const ids = new Set<string>();
  const last = new Map<string, { version: number; type: string }>();
  for (const e of events) {
    if (ids.has(e.id)) throw new Error(`event ${e.id} (${e.type}) appears twice in the feed`);
    ids.add(e.id);
    const before = last.get(e.subject);
    if (before && !(e.resourceversion > before.version)) {
      throw new Error(`${e.subject}: ${e.type} at resourceversion ${e.resourceversion} follows ${before.type} at ${before.version}; a consumer would drop it`);
    }
    last.set(e.subject, { version: e.resourceversion, type: e.type });
  }
}

/** One message of an event stream (GET /events/stream), as an SSE client parses it. */
export interface StreamMessage {
  event: string;
  id?: string;
  data: any;
}

/**
 * Reads GET /events/stream as an SSE client would (fetch with the bearer token: EventSource cannot
 * send one), until `enough` says so, the stream ends, or `ms` pass; then closes it. The raw
 * response's status and content type come back too, for a refusal.
 */
export async function readStream(
  baseUrl: string,
  token: string,
  options: { query?: string; lastEventId?: string; ms?: number; enough?: (messages: StreamMessage[]) => boolean; quietMs?: number } = {},
): Promise<{ status: number; contentType: string | null; messages: StreamMessage[]; comments: number; problem?: any }> {
  const abort = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  const res = await fetch(`${baseUrl}/events/stream${options.query ?? ''}`, { headers, signal: abort.signal });
  const contentType = res.headers.get('content-type');
  if (!res.ok) return { status: res.status, contentType, messages: [], comments: 0, problem: await res.json() };
  const messages: StreamMessage[] = [];
  let comments = 0;
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const deadline = Date.now() + (options.ms ?? 10_000);
  let quiet: NodeJS.Timeout | undefined;
  const stop = () => abort.abort();
  const timer = setTimeout(stop, Math.max(0, deadline - Date.now()));
  try {
    for (;;) {
      if (options.quietMs) {
        clearTimeout(quiet);
        quiet = setTimeout(stop, options.quietMs);
      }
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: StreamMessage = { event: 'message', data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments++;
          else if (line.startsWith('event:')) message.event = line.slice(6).trim();
          else if (line.startsWith('id:')) message.id = line.slice(3).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (!data.length) continue;
        message.data = JSON.parse(data.join('\n'));
        messages.push(message);
      }
      if (options.enough?.(messages) || messages.some((m) => m.event === 'end')) break;
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    clearTimeout(quiet);
    abort.abort();
  }
  return { status: res.status, contentType, messages, comments };
}
