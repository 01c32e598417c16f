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
import { encodeCursor, notFound, pageParams } from './http';
import { purgedRecordFor, purgedRecordPage } from '../read-model/purged-records';

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
