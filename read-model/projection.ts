// The one writer of the read model's resources: the transitions an entity workflow decided
// (workflows/entity.ts), each its row and its outbox events, written by whoever holds them (the
// command's sender, core/entities.ts; the workflow's own activities, activities/projection.ts; the
// sweep; the rebuild from Temporal's histories, read-model/rebuild.ts). Under a lock per resource
// and a fence on its version, in version order: a transition is written once whoever writes it and
// however often, a row never moves back, and an event is never written twice (its id comes from
// the workflow).
import { CloudEvent } from 'cloudevents';
import type { Db, Queryable } from '../core/db';
import type { Envelope } from '../domain/machine';
import type { TransitionRecord } from '../domain/activities';
import { partnersInForce, projectPartnerRelationship } from './partner-relationship';
import { projectExecutionReference } from './execution-reference';
import { projectCapacityOffer } from './capacity-offer';
import { projectLoadRequest } from './load-request';
import { projectConnector, projectUser } from './client-secrets';
import { outboxWriteLag } from '../core/metrics';
import { visibleTo } from './sharing';
import { RESOURCES } from '../domain/registry';
import type { Resource } from '../domain/resource';
import { projectDocument, type Projector } from './projection-document';
import { appendToLog } from './transparency-log';

export interface ProjectionSettings {
  schemaBase: string;
  eventSource: string;
}

/**
 * Kinds whose read model has columns of its own (its file in read-model/). Every other kind is
 * projected by projectDocument into a table of the standard shape (read-model/database.ts).
 */
export const PROJECTORS: Record<string, Projector> = {
  'partner-relationship': projectPartnerRelationship,
  'capacity-offer': projectCapacityOffer,
  'load-request': projectLoadRequest,
  'execution-reference': projectExecutionReference,
  connector: projectConnector,
  user: projectUser,
};

/**
 * The partners a published listing is shared with at `at`: an active relationship granting the
 * read scope, and the listing's visibility. A listing that was never published has no partners.
 */
async function partnersOf(tx: Queryable, resource: Resource<any, any>, snapshot: any, at: string): Promise<string[]> {
  if (!resource.partnerStatuses || !snapshot.publishedAt) return [];
  const partners = await partnersInForce(tx, snapshot.ownerOrganizationId, resource.scopes.read, at);
  return partners.filter((p) => visibleTo(snapshot.visibility, p.groups, p.organizationId)).map((p) => p.organizationId);
}

/** What writing a resource's transitions found: the version the row has now, or a gap before the first. */
export type TransitionsWritten = { written: number; version: number } | { gapAfter: number };

/**
 * @param resources the kinds this worker projects: the registry, or in tests the registry plus
 * test-only kinds.
 */
export function createTransitionWriter(db: Db, settings: ProjectionSettings, resources: readonly Resource<any, any>[] = RESOURCES) {
  const byKind = new Map(resources.map((r) => [r.kind, { resource: r, project: PROJECTORS[r.kind] ?? projectDocument(r) }]));
  const known = (kind: string) => {
    const found = byKind.get(kind);
    if (!found) throw new Error(`no projection for ${kind}`);
    return found;
  };

  /** One transition's row and events, inside the caller's transaction. */
  async function writeOne(tx: Queryable, record: TransitionRecord): Promise<void> {
    const { resource, project } = known(record.kind);
    const document = (resource.document?.(record.snapshot) ?? record.snapshot) as Envelope;
    await project(tx, record.snapshot);
    // Its append-only records into the transparency log, in this transaction: a record is never
    // written without its leaf (docs/transparency-log.md).
    if (resource.ledger) await appendToLog(tx, resource.ledger(record.snapshot), [...new Set([record.snapshot.ownerOrganizationId, ...(resource.participants?.(record.snapshot) ?? [])])]);
    // In force at the transition's instant (its events' time), not at the write's: the same
    // audience whenever the transition is written, a rebuild from Temporal included (read-model/rebuild.ts).
    const shared = record.events.find((e) => e.shareWithPartners);
    const partners = shared ? await partnersOf(tx, resource, record.snapshot, shared.time) : [];
    for (const draft of record.events) {
      const audience = [...new Set([...draft.audience, ...(draft.shareWithPartners ? partners : [])])];
      // An event about an append-only record names the record (EventDraft.record).
      const about = draft.record;
      const event = new CloudEvent({
        id: draft.id,
        source: settings.eventSource,
        type: draft.type,
        subject: about?.subject ?? `${resource.collection}/${record.snapshot.id}`,
        time: draft.time,
        dataschema: `${settings.schemaBase}/v0/${about?.schema ?? record.kind}`,
        datacontenttype: 'application/json',
        data: about?.data ?? document,
        organizationid: record.snapshot.ownerOrganizationId,
        resourceversion: about?.version ?? record.snapshot.resourceVersion,
        correlationid: record.correlationId,
        causationid: record.causationId,
      });
      await tx.query(
        `insert into events (id, resource_kind, resource_id, resource_version, type, owner_organization_id, audience, share_scope, cloudevent)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (id) do nothing`,
        [
          draft.id,
          record.kind,
          record.snapshot.id,
          record.snapshot.resourceVersion,
          draft.type,
          record.snapshot.ownerOrganizationId,
          audience,
          draft.shareWithPartners ? resource.scopes.read : null,
          JSON.stringify(event.toJSON()),
        ],
      );
    }
  }

  const observeLag = (records: TransitionRecord[]) => {
    const written = Date.now();
    for (const record of records) for (const draft of record.events) outboxWriteLag.observe({ kind: record.kind }, Math.max(0, (written - Date.parse(draft.time)) / 1000));
  };

  return {
    /**
     * Transitions of one resource (docs/decisions.md, "A command at the price of one Update"):
     * under a lock on the resource, those newer than its row are written in version order, each
     * row move and its events in this one transaction, so that the feed's order per subject never
     * regresses, whoever writes (the caller, another caller, the sweeper, the workflow's flush).
     * The row never moves back and no event is written twice. When the first record newer than
     * the row does not follow it (a transition answered to another caller that has not written
     * it yet), nothing is written and the gap is reported, unless `whole` says the list is all
     * there is (the workflow's own list of what is unwritten). `after` runs in the transaction
     * (the caller's intent is cleared with its write).
     */
    async writeTransitions(records: TransitionRecord[], options: { whole?: boolean; after?: (tx: Queryable) => Promise<void> } = {}): Promise<TransitionsWritten> {
      const sorted = [...records].sort((a, b) => a.snapshot.resourceVersion - b.snapshot.resourceVersion);
      if (sorted.length === 0) {
        if (options.after) await db.transaction((tx) => options.after!(tx));
        return { written: 0, version: 0 };
      }
      const { resource } = known(sorted[0].kind);
      const id = sorted[0].snapshot.id;
      const outcome = await db.transaction(async (tx): Promise<TransitionsWritten> => {
        await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`${resource.kind}/${id}`]);
        const { rows } = await tx.query<{ resource_version: number }>(`select resource_version from ${resource.table} where id = $1`, [id]);
        const current = rows[0]?.resource_version ?? 0;
        const missing = sorted.filter((r) => r.snapshot.resourceVersion > current);
        if (missing.length && missing[0].snapshot.resourceVersion > current + 1 && !options.whole) return { gapAfter: current };
        for (const record of missing) await writeOne(tx, record);
        await options.after?.(tx);
        return { written: missing.length, version: Math.max(current, ...missing.map((r) => r.snapshot.resourceVersion)) };
      });
      if ('written' in outcome && outcome.written) observeLag(sorted.filter((r) => r.snapshot.resourceVersion > outcome.version - outcome.written));
      return outcome;
    },
  };
}
