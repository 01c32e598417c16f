// Persists one transition: the read model row and the outbox events, in one transaction.
// Idempotent: a retried activity neither moves a row to an older resourceVersion nor writes an
// event twice (event ids come from the workflow).
import { CloudEvent } from 'cloudevents';
import type { Db, Queryable } from '../core/db';
import type { Envelope } from '../domain/machine';
import type { TransitionRecord } from '../domain/activities';
import { partnersInForce, projectPartnerRelationship } from './partner-relationship';
import { projectExecutionReference } from './execution-reference';
import { projectCapacityOffer } from './capacity-offer';
import { projectLoadRequest } from './load-request';
import { outboxWriteLag } from '../core/metrics';
import { visibleTo } from './sharing';
import { RESOURCES } from '../domain/registry';
import type { Resource } from '../domain/resource';

export interface ProjectionSettings {
  schemaBase: string;
  eventSource: string;
}


/** Upserts a resource's read-model row and returns the resourceVersion the row had before, if any. */
export type { Projector } from './projection-document';
import { projectDocument, type Projector } from './projection-document';

/**
 * Kinds whose read model has columns of its own (its file in activities/). Every other kind is
 * projected by projectDocument into a table of the standard shape (read-model/database.ts).
 */
export const PROJECTORS: Record<string, Projector> = {
  'partner-relationship': projectPartnerRelationship,
  'capacity-offer': projectCapacityOffer,
  'load-request': projectLoadRequest,
  'execution-reference': projectExecutionReference,
};


/**
 * The partners a published listing is shared with right now: an active relationship granting the
 * read scope, and the listing's visibility. A listing that was never published has no partners.
 */
async function partnersOf(tx: Queryable, resource: Resource<any, any>, snapshot: any): Promise<string[]> {
  if (!resource.partnerStatuses || !snapshot.publishedAt) return [];
  const partners = await partnersInForce(tx, snapshot.ownerOrganizationId, resource.scopes.read);
  return partners.filter((p) => visibleTo(snapshot.visibility, p.groups, p.organizationId)).map((p) => p.organizationId);
}

/**
 * @param resources the kinds this worker projects: the registry, or in tests the registry plus
 * test-only kinds.
 */
export function createTransitionWriter(db: Db, settings: ProjectionSettings, resources: readonly Resource<any, any>[] = RESOURCES) {
  const byKind = new Map(resources.map((r) => [r.kind, { resource: r, project: PROJECTORS[r.kind] ?? projectDocument(r) }]));
  return {
    async writeTransition(record: TransitionRecord): Promise<void> {
      const known = byKind.get(record.kind);
      if (!known) throw new Error(`no projection for ${record.kind}`);
      const { resource, project } = known;
      const document = (resource.document?.(record.snapshot) ?? record.snapshot) as Envelope;
      await db.transaction(async (tx) => {
        const previous = await project(tx, record.snapshot);
        // A failed command whose local activity timed out but committed late can leave this very
        // version behind, with other event ids. The projectors overwrite such a row (`<=`) and
        // here its events go: the transition the workflow accepted wins.
        // (A record without events rewrites an unchanged snapshot and removes nothing.)
        if (previous === record.snapshot.resourceVersion && record.events.length > 0) {
          await tx.query('delete from events where resource_id = $1 and resource_version >= $2 and not (id = any($3::uuid[]))', [
            record.snapshot.id,
            record.snapshot.resourceVersion,
            record.events.map((e) => e.id),
          ]);
        }
        const partners = record.events.some((e) => e.shareWithPartners) ? await partnersOf(tx, resource, record.snapshot) : [];
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
      });
      const written = Date.now();
      for (const draft of record.events) outboxWriteLag.observe({ kind: record.kind }, Math.max(0, (written - Date.parse(draft.time)) / 1000));
    },
  };
}
