// GET /events: the pull feed of CloudEvents the caller's organization may see, in causal order
// per resource. An event's audience is fixed when it is emitted (partners share a listing's events
// while their relationship is in force then; ending it stops future sharing only, so a feed read
// again from its start is the same feed), with the same field disclosure as the reads. The cursor
// is (transaction id, sequence): the feed only serves rows of transactions older than every
// running one, so a late commit can never be skipped by a cursor.
// GET /events/stream: the same feed pushed as Server-Sent Events (the console's live view, a
// connector that would rather not poll), each event with its own cursor as the SSE id.
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { operation } from './operations';
import { Problem } from '../domain/problems';
import type { AppEnv, Principal } from './context';
import { decodeCursor, encodeCursor, querySingle } from './http';
import { eventView } from '../domain/views';
import { feedHistories, readFeed, type FeedHistory, type FeedRow } from '../read-model/events';
import { deliverableKinds, feedAudiences } from '../domain/webhooks';
import { settledPrefix } from '../core/sandbox';
import { feedTail } from './feed-tail';

export const events = new Hono<AppEnv>();

/** A position in the feed: after (transaction id, sequence). */
type Position = { tx: string; seq: number };

const badCursor = (pointer: string) => new Problem('VALIDATION_FAILED', 'cursor is not one this broker issued', { errors: [{ pointer, message: 'is not valid' }] });

/** What a cursor this broker issued names: a position, and the feed history it was issued in (absent in cursors of before histories). */
function cursorParts(cursor: string, pointer: string): Position & { history?: string } {
  const m = /^(\d{1,20})\.(\d{1,18})(?:\.([0-9a-f-]{36}))?$/.exec(decodeCursor(cursor));
  if (!m || BigInt(m[1]) > 2n ** 64n - 1n) throw badCursor(pointer);
  return { tx: m[1], seq: Number(m[2]), ...(m[3] ? { history: m[3] } : {}) };
}

const isAfter = (a: Position, b: Position) => BigInt(a.tx) > BigInt(b.tx) || (a.tx === b.tx && a.seq > b.seq);

/** The feed's histories, read again every few seconds at most (a restore happens with the broker stopped). */
let histories: { at: number; list: Promise<FeedHistory[]> } | undefined;
function historiesOf(c: Context<AppEnv>): Promise<FeedHistory[]> {
  if (!histories || Date.now() - histories.at > 10_000) {
    const list = feedHistories(c.get('services').db);
    histories = { at: Date.now(), list };
    list.catch(() => (histories = undefined));
  }
  return histories.list;
}

/**
 * Where a cursor continues, in the current feed history; the feed's start without one. A cursor
 * of an earlier history (the broker was restored to an earlier point since, docs/deployment.md,
 * "Backup and restore") holds up to the restore point, whose events are the same; past it, it names
 * events that are gone, and new ones may sit behind it: 410 FEED_HISTORY_CHANGED with the cursor to
 * resume from, never a feed that silently skips.
 */
async function positionOf(c: Context<AppEnv>, cursor: string | undefined, pointer: string): Promise<{ from: Position; history: string }> {
  const all = await historiesOf(c);
  const current = all[all.length - 1];
  if (cursor === undefined) return { from: { tx: '0', seq: 0 }, history: current.id };
  const { history, ...from } = cursorParts(cursor, pointer);
  if (history === undefined || history === current.id) return { from, history: current.id };
  const index = all.findIndex((h) => h.id === history);
  // A history this database never had: the read model was rebuilt from Temporal (its events keep
  // their ids, not their positions) or restored from elsewhere. Nothing of the cursor's position
  // holds: resume from the start and deduplicate by event id (docs/deployment.md, "Rebuilding").
  if (index < 0) {
    throw new Problem(
      'FEED_HISTORY_CHANGED',
      `this cursor is of a feed history this broker no longer has (its read model was rebuilt or restored since; its feed history since ${current.startedAt}): resume from resumeCursor, the start of the feed, and skip the events whose ids you have`,
      { resumeCursor: cursorOf({ tx: '0', seq: 0 }, current.id), restoredAt: current.startedAt },
    );
  }
  const floor = all.slice(index + 1).reduce<Position | undefined>((low, h) => (h.floor && (!low || isAfter(low, h.floor)) ? h.floor : low), undefined);
  if (floor && !isAfter(from, floor)) return { from, history: current.id };
  const resume = floor ?? { tx: '0', seq: 0 };
  throw new Problem(
    'FEED_HISTORY_CHANGED',
    `the broker was restored to an earlier point (its feed history since ${current.startedAt}): the events after the restore point are gone, and this cursor lies past it. Resume from resumeCursor, and read again the resources of the events received after it`,
    { resumeCursor: cursorOf(resume, current.id), restoredAt: current.startedAt },
  );
}

const cursorOf = (p: Position | FeedRow, history: string) => encodeCursor(`${p.tx}.${p.seq}.${history}`);

/** The caller's rows after `from` (gate 6 holds in the feed too: only the kinds the token may read on their own endpoints, as webhooks deliver). */
function rowsFor(c: Context<AppEnv>, principal: Principal, from: Position, limit: number): Promise<FeedRow[]> {
  const kinds = deliverableKinds([...principal.scopes]);
  return readFeed(c.get('services').db, feedAudiences(principal.organizationId, principal.operator), kinds, from, limit);
}

// Any authenticated connector reads its feed; gate 6 applies per kind below.
operation(events, {
  method: 'GET', path: '/', access: { scope: [] }, answers: [200],
  returns: 'EventPage',
  doc: {
    id: 'listEvents',
    summary: 'Pull feed of events',
    description:
      "The CloudEvents the caller's organization is in the audience of, in causal order per " +
      'resource, each projected for the caller. Start without a cursor to read from the beginning; ' +
      'continue with `nextCursor`, which is always present and stays the same while no newer event ' +
      'exists. Delivery is at least once: deduplicate by event id. Needs a valid token of an active ' +
      'connector but no particular scope.',
    parameters: ['CursorQuery', 'LimitQuery'],
    responses: {
      '200': 'One page of events.',
      '400': '`VALIDATION_FAILED`: a limit outside 1..200 or a cursor this broker did not issue.',
      '403': '`ORGANIZATION_INACTIVE`.',
      '410': '`FEED_HISTORY_CHANGED`: the cursor is of a feed history before a restore (past its restore point) or a rebuild; the problem carries `resumeCursor`, where to read on, and `restoredAt`.',
    },
  },
}, async ({ c, principal }) => {
  const { config } = c.get('services');
  const limitText = querySingle(c, 'limit') ?? String(config.limits.pageSizeDefault);
  if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > config.limits.pageSizeMax) {
    throw new Problem('VALIDATION_FAILED', `limit must be an integer from 1 to ${config.limits.pageSizeMax}`, { errors: [{ pointer: '/query/limit', message: 'is out of range' }] });
  }
  const { from, history } = await positionOf(c, querySingle(c, 'cursor'), '/query/cursor');
  let rows = await rowsFor(c, principal, from, Number(limitText));
  // The sandbox's event disorder (development mode, core/sandbox.ts): a page ends after a quiet
  // time, reversed and served again at the next read; the cursor stays that of the events held.
  const sandbox = c.get('services').sandbox;
  const disorder = sandbox?.disorderOf(principal.clientId);
  if (disorder) rows = settledPrefix(rows, (r) => String(r.cloudevent.time), disorder.holdSeconds);
  const last = rows[rows.length - 1];
  const nextCursor = cursorOf(last ?? from, history);
  const items = rows.map((r) => eventView(r.kind, r.cloudevent, principal));
  return c.json({ items: sandbox && disorder ? sandbox.serveDisordered(principal.clientId, items) : items, nextCursor });
});

/** A stream says it is alive this often when nothing happens (proxies close idle connections). */
const HEARTBEAT_MS = 15_000;
/** A stream ends after this long at most, and when its token expires: the client opens it again (with Last-Event-ID). */
const STREAM_MAX_MS = 15 * 60_000;

operation(events, {
  method: 'GET', path: '/stream', access: { scope: [] }, answers: [200],
  doc: {
    id: 'streamEvents',
    summary: 'The feed of events, pushed (Server-Sent Events)',
    description:
      'The events of `GET /events`, the same ones in the same order and projection, sent as they are ' +
      'written: each as an SSE message of type `event` whose `data` is the CloudEvent and whose `id` is ' +
      'the cursor after it. Start after a cursor (`cursor`, or the `Last-Event-ID` header a reconnecting ' +
      'client sends), or from the beginning without either; read `GET /events` to its end first to follow ' +
      'only what happens from now. A comment line every 15 s keeps the connection alive. The stream ends ' +
      'when the token that opened it expires (at most after 15 minutes) with a message of type `end`; ' +
      'open it again with a fresh token and the last id. The sandbox\'s event disorder applies to ' +
      '`GET /events` only.',
    parameters: [
      'CursorQuery',
      { name: 'Last-Event-ID', in: 'header', required: false, description: 'The id of the last message received (a cursor); takes the place of `cursor`.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' } },
    ],
    responses: {
      '200': {
        description: 'The stream: `event` messages (data: a CloudEvent as in `GET /events`; id: the cursor after it), then an `end` message when the token expires.',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      '400': '`VALIDATION_FAILED`: a cursor this broker did not issue.',
      '403': '`ORGANIZATION_INACTIVE`.',
      '410': '`FEED_HISTORY_CHANGED`: as for `GET /events`, with `resumeCursor`.',
    },
  },
}, async ({ c, principal }) => {
  const lastEventId = c.req.header('last-event-id');
  const start = lastEventId !== undefined ? await positionOf(c, lastEventId, '/header/Last-Event-ID') : await positionOf(c, querySingle(c, 'cursor'), '/query/cursor');
  let from = start.from;
  const history = start.history;
  const until = Math.min(principal.expiresAt ?? Infinity, Date.now() + STREAM_MAX_MS);
  const tail = feedTail(c.get('services').db);
  const { personalData } = c.get('services');
  return streamSSE(c, async (stream) => {
    let open = true;
    stream.onAbort(() => void (open = false));
    let quietSince = Date.now();
    while (open && Date.now() < until) {
      const seen = tail.generation();
      const rows = await rowsFor(c, principal, from, 200);
      for (const row of rows) {
        await stream.writeSSE({ event: 'event', id: cursorOf(row, history), data: personalData.openText(JSON.stringify(eventView(row.kind, row.cloudevent, principal))) });
        from = { tx: row.tx, seq: Number(row.seq) };
      }
      if (rows.length === 200) continue;
      if (rows.length) quietSince = Date.now();
      else if (Date.now() - quietSince >= HEARTBEAT_MS) {
        await stream.write(': keep-alive\n\n');
        quietSince = Date.now();
      }
      // Until the feed moves (any event of anyone: the read above decides whether it is ours), a heartbeat is due, or the stream's end.
      await tail.moved(Math.max(0, Math.min(HEARTBEAT_MS, until - Date.now())), seen);
    }
    if (open) await stream.writeSSE({ event: 'end', data: JSON.stringify({ reason: 'the token that opened the stream expires: open it again with a fresh token and Last-Event-ID', cursor: cursorOf(from, history) }) });
  }, async (_err, stream) => {
    // The database away: say so and end; the client reconnects with the last id it received.
    await stream.writeSSE({ event: 'end', data: JSON.stringify({ reason: 'the feed could not be read: open the stream again with Last-Event-ID in a moment', cursor: cursorOf(from, history) }) });
  });
});
