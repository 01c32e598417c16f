// The retention policies and the tombstones of what the purge removed (issue 34 part 4;
// docs/retention.md). GET /retention-policies: the named policies a relationship's
// retentionPolicyRef may give. GET /purged-records: the tombstones of the records the caller's
// organization could read (an operator: all), newest first; GET /purged-records/{id}: one. A
// purged record's own path answers 410 RECORD_PURGED (api/gates.ts).
import { Hono } from 'hono';
import type { AppEnv } from './context';
import { operation } from './operations';
import { Problem } from '../domain/problems';
import { isUuid } from '../domain/ids';
import { encodeCursor, notFound, pageParams, querySingle } from './http';
import { purgedRecordFor, purgedRecordPage } from '../read-model/purged-records';
import { previewDue } from '../read-model/retention';
import { recordRetentionRun, retentionRunPage, type RetentionRun } from '../read-model/retention-runs';
import { pokeRetention } from '../core/temporal';
import { uuid7 } from '../domain/ids';

export const retentionPolicies = new Hono<AppEnv>();
export const purgedRecords = new Hono<AppEnv>();

operation(retentionPolicies, {
  method: 'GET', path: '/', access: { scope: [] }, answers: [200],
  returns: 'RetentionPolicyList',
  doc: {
    id: 'listRetentionPolicies',
    summary: "The broker's retention policies",
    description:
      'The policies a partner relationship\'s `retentionPolicyRef` may name (another value is refused with 400 ' +
      '`VALIDATION_FAILED`), and which is the default (records without a relationship, relationships that name ' +
      'none). Each gives a period per class of record, counted from the moment a record reached a final status, ' +
      'after which the broker purges it (GET /purged-records), and a period for the contact persons of handovers. ' +
      'A policy that holds purges nothing linked to its relationships. Needs a valid token but no particular scope.',
    responses: { '200': 'The policies, the default first.' },
  },
}, async ({ c }) => {
  const { retention } = c.get('services').config;
  const items = Object.values(retention.policies)
    .map((p) => ({ ref: p.ref, title: p.title, hold: p.hold, default: p.ref === retention.default, ...(p.hold ? {} : { periods: p.periods }) }))
    .sort((a, b) => Number(b.default) - Number(a.default) || a.ref.localeCompare(b.ref));
  return c.json({ items });
});

operation(purgedRecords, {
  method: 'GET', path: '/', access: { scope: [] }, answers: [200],
  returns: 'PurgedRecordPage',
  doc: {
    id: 'listPurgedRecords',
    summary: 'Tombstones of records the retention purge removed',
    description:
      "The records the caller's organization could read (owner, party or participant) that the retention purge " +
      'removed, newest purge first: what each was, its final status and when it reached it, the policy and ' +
      'period it followed, when it went and what went with it (its events, milestones, outcomes and workflow ' +
      'histories). A protocol operator reads all. `kind` keeps one resource kind. Each purge also emits ' +
      '`pcx.purged-record.recorded.v1` to the same organizations. Needs a valid token but no particular scope.',
    client: { name: 'purged', columns: ['id', 'resourceKind', 'finalStatus', 'retentionPolicyRef', 'purgedAt'] },
    parameters: [{ name: 'kind', in: 'query', required: false, description: 'Only tombstones of this resource kind (capacity-offer, transport-tender, ...).', schema: { type: 'string', pattern: '^[a-z-]{1,40}$' } }, 'CursorQuery', 'LimitQuery'],
    responses: { '200': 'A page of tombstones.' },
  },
}, async ({ c, principal }) => {
  const { db } = c.get('services');
  const { after, limit } = pageParams(c);
  const kind = c.req.query('kind');
  if (kind !== undefined && !/^[a-z-]{1,40}$/.test(kind)) throw new Problem('VALIDATION_FAILED', 'kind is a resource kind such as capacity-offer', { errors: [{ pointer: '/query/kind', message: 'is not a resource kind' }] });
  // The cursor names the last tombstone of the page (pageParams: an id); the next page starts after its purge.
  const rows = await purgedRecordPage(db, principal, { kind, after, limit });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > limit && last ? encodeCursor(last.id) : null;
  return c.json({ items: page.map((r) => r.doc), nextCursor });
});

operation(purgedRecords, {
  method: 'GET', path: '/:id', access: { scope: [] }, answers: [200],
  returns: 'PurgedRecord',
  doc: {
    id: 'getPurgedRecord',
    summary: 'The tombstone of a purged record',
    description: 'By the purged record\'s id, to the organizations that could read the record (and operators); 404 to anyone else.',
    responses: { '200': 'The tombstone.', '404': true },
  },
}, async ({ c, principal }) => {
  const id = c.req.param('id') ?? '';
  if (!isUuid(id)) throw notFound('purged record');
  const found = await purgedRecordFor(c.get('services').db, id, principal);
  if (!found) throw notFound('purged record');
  return c.json(found);
});

// What the purge would do, and a round now, for protocol operators (docs/retention.md, "Seeing and
// running the purge"). GET /retention-preview: the records a purge at `at` (now by default) would
// remove, decided as the purge decides, nothing changed. POST /retention-runs: a round at once (a
// signal to the purge's workflow, which runs it as the daily one), each asked-for round kept with
// who asked and why; GET /retention-runs lists them. Organizations see their own purged records as
// tombstones (GET /purged-records), not the operator's preview, which spans every organization.
export const retentionPreview = new Hono<AppEnv>();
export const retentionRuns = new Hono<AppEnv>();

const OPERATOR = 'exchange:admin';
const operatorOnly = (operator: boolean) => {
  if (!operator) throw new Problem('ACTOR_NOT_PERMITTED', 'the retention purge is seen and run by the protocol operator; organizations read their tombstones at /purged-records');
};
const PREVIEW_LIMIT = 1000;

operation(retentionPreview, {
  method: 'GET', path: '/', access: { scope: OPERATOR }, answers: [200],
  returns: 'RetentionRunPreview',
  doc: {
    id: 'previewRetention',
    summary: 'What the retention purge would remove',
    description:
      'The records a purge at `at` (an RFC 3339 time; now by default) would remove, in its order (executions first, ' +
      'relationships last), each with its policy, period and the moment it fell due; `totals` counts them per policy ' +
      'and kind. Decided as the purge decides (holds, each record\'s policy, final statuses); nothing is changed. At ' +
      `most \`limit\` records (1..${PREVIEW_LIMIT}, ${PREVIEW_LIMIT} by default; \`truncated\` says more would go). Personal data erasures are not listed. ` +
      'The protocol operator only (`exchange:admin`).',
    parameters: [
      { name: 'at', in: 'query', required: false, description: 'The instant of the purge to preview (RFC 3339, with its offset).', schema: { type: 'string', format: 'date-time' } },
      { name: 'limit', in: 'query', required: false, description: `At most this many records (1..${PREVIEW_LIMIT}).`, schema: { type: 'integer', minimum: 1, maximum: PREVIEW_LIMIT } },
      { name: 'organizationId', in: 'query', required: false, description: 'Only the records this organization owns (a relationship: its requesting organization).', schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$' } },
    ],
    responses: { '200': 'The preview.', '403': '`INSUFFICIENT_SCOPE` or `ACTOR_NOT_PERMITTED` (not the protocol operator).' },
  },
}, async ({ c, principal }) => {
  operatorOnly(principal.operator);
  const atText = querySingle(c, 'at');
  const at = atText === undefined ? new Date() : new Date(atText);
  if (atText !== undefined && (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/i.test(atText) || Number.isNaN(at.getTime()))) {
    throw new Problem('VALIDATION_FAILED', 'at is an RFC 3339 time with its offset, such as 2027-01-31T00:00:00Z', { errors: [{ pointer: '/query/at', message: 'is not an RFC 3339 time' }] });
  }
  const limitText = querySingle(c, 'limit');
  if (limitText !== undefined && (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > PREVIEW_LIMIT)) {
    throw new Problem('VALIDATION_FAILED', `limit must be an integer from 1 to ${PREVIEW_LIMIT}`, { errors: [{ pointer: '/query/limit', message: `must be 1..${PREVIEW_LIMIT}` }] });
  }
  const owner = querySingle(c, 'organizationId');
  if (owner !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(owner)) throw new Problem('VALIDATION_FAILED', 'organizationId is an organization id', { errors: [{ pointer: '/query/organizationId', message: 'is not an organization id' }] });
  const { db, config } = c.get('services');
  const now = at.toISOString();
  const { items, truncated } = await previewDue(db, config.retention, now, limitText === undefined ? PREVIEW_LIMIT : Number(limitText), owner);
  const totals: Record<string, Record<string, number>> = {};
  for (const item of items) {
    const byKind = (totals[item.retentionPolicyRef] ??= {});
    byKind[item.resourceKind] = (byKind[item.resourceKind] ?? 0) + 1;
  }
  return c.json({ at: now, items, truncated, totals });
});

operation(retentionRuns, {
  method: 'POST', path: '/', access: { scope: OPERATOR }, body: 'CommonReasonedCommand', answers: [202],
  returns: 'RetentionRun',
  doc: {
    id: 'runRetention',
    summary: 'Run the retention purge now',
    description:
      'A purge round at once, as the daily one (what GET /retention-preview lists for now, and the personal data ' +
      'erasures that are due): the round runs in the background and its tombstones appear at GET /purged-records. ' +
      'The request is kept (who, when, why: GET /retention-runs). The protocol operator only (`exchange:admin`).',
    responses: {
      '202': 'The round is asked for; the record of the request.',
      '403': '`INSUFFICIENT_SCOPE` or `ACTOR_NOT_PERMITTED` (not the protocol operator).',
      '503': '`SERVICE_UNAVAILABLE`: the purge\'s workflow could not be reached; nothing was recorded, try again.',
    },
  },
}, async ({ c, principal, body }) => {
  operatorOnly(principal.operator);
  const { db, temporal, config } = c.get('services');
  try {
    await pokeRetention(temporal, config.temporal.taskQueue);
  } catch (err) {
    throw new Problem('SERVICE_UNAVAILABLE', `the retention purge's workflow could not be reached: ${(err as Error).message}`);
  }
  const run: RetentionRun = {
    id: uuid7(),
    requestedAt: new Date().toISOString(),
    requestedBy: { organizationId: principal.organizationId, ...(principal.userId ? { userId: principal.userId } : { clientId: principal.clientId }) },
    reason: body.reason,
    correlationId: c.get('correlationId'),
  };
  await recordRetentionRun(db, run);
  return c.json(run, 202);
});

operation(retentionRuns, {
  method: 'GET', path: '/', access: { scope: OPERATOR }, answers: [200],
  returns: 'RetentionRunPage',
  doc: {
    id: 'listRetentionRuns',
    summary: 'The purge rounds operators asked for',
    description: 'Newest first: who asked for a round at once, when and why. The protocol operator only (`exchange:admin`).',
    parameters: ['CursorQuery', 'LimitQuery'],
    responses: { '200': 'A page of requests.', '403': '`INSUFFICIENT_SCOPE` or `ACTOR_NOT_PERMITTED` (not the protocol operator).' },
  },
}, async ({ c, principal }) => {
  operatorOnly(principal.operator);
  const { after, limit } = pageParams(c);
  const rows = await retentionRunPage(c.get('services').db, after, limit);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return c.json({ items: page, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null });
});
