// Persists one transition: the read model row and the outbox events, in one transaction.
// Idempotent: a retried activity neither moves a row to an older resourceVersion nor writes an
// event twice (event ids come from the workflow).
import { CloudEvent } from 'cloudevents';
import type { Db, Queryable } from '../core/db';
import type { Envelope, EventDraft } from '../workflows/machine';
import { projectPartnerRelationship } from './partner-relationship';
import { projectCapacityOffer } from './capacity-offer';
import { projectLoadRequest } from './load-request';
import { resourcePath } from '../core/resources';
import { inForceSql, SHARING, visibleTo } from '../core/sharing';

export interface ProjectionSettings {
  schemaBase: string;
  eventSource: string;
}

export interface TransitionRecord {
  kind: string;
  snapshot: Envelope;
  events: Array<EventDraft & { id: string; time: string }>;
  correlationId: string;
  causationId: string;
}

/** Each projector upserts the row and returns the resourceVersion the row had before, if any. */
const projectors: Record<string, (tx: Queryable, snapshot: any) => Promise<number | undefined>> = {
  'partner-relationship': projectPartnerRelationship,
  'capacity-offer': projectCapacityOffer,
  'load-request': projectLoadRequest,
};

/**
 * The partners a published listing is shared with right now: an active relationship granting the
 * read scope, and the listing's visibility. A listing that was never published has no partners.
 */
async function partnersOf(tx: Queryable, kind: string, snapshot: any): Promise<string[]> {
  const sharing = SHARING[kind];
  if (!sharing || !snapshot.publishedAt) return [];
  const { rows } = await tx.query<{ org: string; groups: string[] | null }>(
    `select case when r.requesting_organization_id = $1 then r.accepting_organization_id else r.requesting_organization_id end as org,
            r.doc->'visibilityPolicy'->'groups' as groups
       from partner_relationships r
      where ${inForceSql('r')} and (r.requesting_organization_id = $1 or r.accepting_organization_id = $1)
        and r.doc->'scopes' ? $2`,
    [snapshot.ownerOrganizationId, sharing.readScope],
  );
  return rows.filter((r) => visibleTo(snapshot.visibility, r.groups ?? [], r.org)).map((r) => r.org);
}

export function createProjectionActivities(db: Db, settings: ProjectionSettings) {
  return {
    async persistTransition(record: TransitionRecord): Promise<void> {
      const project = projectors[record.kind];
      if (!project) throw new Error(`no projection for ${record.kind}`);
      await db.transaction(async (tx) => {
        const previous = await project(tx, record.snapshot);
        // A failed command whose local activity timed out but committed late can leave this very
        // version behind, with other event ids. The projectors overwrite such a row (`<=`) and
        // here its events go: the transition the workflow accepted wins.
        if (previous === record.snapshot.resourceVersion) {
          await tx.query('delete from events where resource_id = $1 and resource_version >= $2 and not (id = any($3::uuid[]))', [
            record.snapshot.id,
            record.snapshot.resourceVersion,
            record.events.map((e) => e.id),
          ]);
        }
        const partners = record.events.some((e) => e.shareWithPartners) ? await partnersOf(tx, record.kind, record.snapshot) : [];
        for (const draft of record.events) {
          const audience = [...new Set([...draft.audience, ...(draft.shareWithPartners ? partners : [])])];
          const event = new CloudEvent({
            id: draft.id,
            source: settings.eventSource,
            type: draft.type,
            subject: resourcePath(record.kind, record.snapshot.id),
            time: draft.time,
            dataschema: `${settings.schemaBase}/v0/${record.kind}`,
            datacontenttype: 'application/json',
            data: record.snapshot,
            organizationid: record.snapshot.ownerOrganizationId,
            resourceversion: record.snapshot.resourceVersion,
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
              draft.shareWithPartners ? SHARING[record.kind].readScope : null,
              JSON.stringify(event.toJSON()),
            ],
          );
        }
      });
    },
  };
}
