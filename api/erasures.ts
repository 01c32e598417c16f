// The answer to an erasure request (docs/retention.md): a handover's contact persons, a removed
// user's name. Both erase now, on the caller's behalf (read-model/erasures.ts, as the retention
// purge does when they fall due), and answer the record as it is after it: 404 when it went
// meanwhile, 422 while it is not final yet.
import { eventSource } from '../core/config';
import type { Envelope } from '../domain/machine';
import { Problem } from '../domain/problems';
import type { Resource } from '../domain/resource';
import { viewOf } from '../domain/views';
import { erase, forgetting, type ErasureKind } from '../read-model/erasures';
import { loadDocument } from '../read-model/projection-document';
import type { Principal } from './context';
import { etagOf, notFound, type Ctx } from './http';

export async function answerErasure(c: Ctx, resource: Resource<any, any>, id: string, principal: Principal, reason: string, what: ErasureKind, notFinal: (status: string | undefined) => string): Promise<Response> {
  const { db, entities, config, personalData } = c.get('services');
  const by = { organizationId: principal.organizationId, clientId: principal.clientId, ...(principal.userId ? { userId: principal.userId } : {}) };
  const request = { reason, at: new Date().toISOString(), requestedBy: by, correlationId: c.get('correlationId') };
  const outcome = await erase(db, { schemaBase: config.schemaBase, eventSource: eventSource(config) }, forgetting(entities, personalData), what, id, request);
  if (!outcome.erased && outcome.reason === 'missing') throw notFound(resource.kind.replace(/-/g, ' '));
  if (!outcome.erased && outcome.reason === 'notFinal') throw new Problem('INVALID_STATE_TRANSITION', notFinal(outcome.status), { currentState: outcome.status });
  const snapshot = (outcome.doc ?? (await loadDocument<Envelope>(db, resource, id))) as Envelope;
  return c.json(viewOf(resource, snapshot, principal) as object, 200, { etag: etagOf(snapshot.resourceVersion) });
}
