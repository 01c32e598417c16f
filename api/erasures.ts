// The answer to an erasure request (docs/retention.md): a handover's contact persons, a removed
// user's name. Both run the retention activities' `erase` now, on the caller's behalf, and answer
// the record as it is after it: 404 when it went meanwhile, 422 while it is not final yet.
import { createRetentionActivities, type ErasureOutcome, type ErasureRequest } from '../activities/retention';
import { eventSource } from '../core/config';
import type { Envelope } from '../domain/machine';
import { Problem } from '../domain/problems';
import type { Resource } from '../domain/resource';
import { viewOf } from '../domain/views';
import { loadDocument } from '../read-model/projection-document';
import type { Principal } from './context';
import { etagOf, notFound, type Ctx } from './http';

type Activities = ReturnType<typeof createRetentionActivities>;

export async function answerErasure(
  c: Ctx,
  resource: Resource<any, any>,
  id: string,
  principal: Principal,
  reason: string,
  erase: (activities: Activities, request: ErasureRequest) => Promise<ErasureOutcome>,
  notFinal: (status: string | undefined) => string,
): Promise<Response> {
  const { db, entities, config } = c.get('services');
  const by = { organizationId: principal.organizationId, clientId: principal.clientId, ...(principal.userId ? { userId: principal.userId } : {}) };
  const activities = createRetentionActivities(db, entities, { schemaBase: config.schemaBase, eventSource: eventSource(config), retention: config.retention });
  const outcome = await erase(activities, { reason, now: new Date().toISOString(), by, correlationId: c.get('correlationId') });
  if (!outcome.erased && outcome.reason === 'missing') throw notFound(resource.kind.replace(/-/g, ' '));
  if (!outcome.erased && outcome.reason === 'notFinal') throw new Problem('INVALID_STATE_TRANSITION', notFinal(outcome.status), { currentState: outcome.status });
  const snapshot = (outcome.doc ?? (await loadDocument<Envelope>(db, resource, id))) as Envelope;
  return c.json(viewOf(resource, snapshot, principal) as object, 200, { etag: etagOf(snapshot.resourceVersion) });
}
