// GET /events: the pull feed of CloudEvents the caller's organization may see, in causal order
// per resource. An event's audience is fixed when it is emitted (partners share a listing's events
// while their relationship is in force then; ending it stops future sharing only, so a feed read
// again from its start is the same feed), with the same field disclosure as the reads. The cursor
// is (transaction id, sequence): the feed only serves rows of transactions older than every
// running one, so a late commit can never be skipped by a cursor.
import { Hono } from 'hono';
import { operation } from './operations';
import { Problem } from '../domain/problems';
import type { AppEnv } from './context';
import { decodeCursor, encodeCursor, querySingle } from './http';
import { eventView } from '../domain/views';
import { readFeed } from '../read-model/events';
import { deliverableKinds, feedAudiences } from '../domain/webhooks';
import { settledPrefix } from '../core/sandbox';

export const events = new Hono<AppEnv>();

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
    },
  },
}, async ({ c, principal }) => {
  const { db, config } = c.get('services');
  const limitText = querySingle(c, 'limit') ?? String(config.limits.pageSizeDefault);
  if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > config.limits.pageSizeMax) {
    throw new Problem('VALIDATION_FAILED', `limit must be an integer from 1 to ${config.limits.pageSizeMax}`, { errors: [{ pointer: '/query/limit', message: 'is out of range' }] });
  }
  let tx = '0';
  let seq = 0;
  const cursor = querySingle(c, 'cursor');
  if (cursor !== undefined) {
    const m = /^(\d{1,20})\.(\d{1,18})$/.exec(decodeCursor(cursor));
    if (!m) throw new Problem('VALIDATION_FAILED', 'cursor is not one this broker issued', { errors: [{ pointer: '/query/cursor', message: 'is not valid' }] });
    if (BigInt(m[1]) > 2n ** 64n - 1n) throw new Problem('VALIDATION_FAILED', 'cursor is not one this broker issued', { errors: [{ pointer: '/query/cursor', message: 'is not valid' }] });
    [tx, seq] = [m[1], Number(m[2])];
  }
  // Gate 6 holds in the feed too: only the kinds the token may read on their own endpoints
  // (webhooks deliver the same kinds: delivery/webhook-pump.ts).
  const kinds = deliverableKinds([...principal.scopes]);
  let rows = await readFeed(db, feedAudiences(principal.organizationId, principal.operator), kinds, { tx, seq }, Number(limitText));
  // The sandbox's event disorder (development mode, core/sandbox.ts): a page ends after a quiet
  // time, reversed and served again at the next read; the cursor stays that of the events held.
  const sandbox = c.get('services').sandbox;
  const disorder = sandbox?.disorderOf(principal.clientId);
  if (disorder) rows = settledPrefix(rows, (r) => String(r.cloudevent.time), disorder.holdSeconds);
  const last = rows[rows.length - 1];
  const nextCursor = encodeCursor(last ? `${last.tx}.${last.seq}` : `${tx}.${seq}`);
  const items = rows.map((r) => eventView(r.kind, r.cloudevent, principal));
  return c.json({ items: sandbox && disorder ? sandbox.serveDisordered(principal.clientId, items) : items, nextCursor });
});
