// Persists one transition: the read model row and the outbox events, in one transaction.
// Idempotent: a retried activity neither moves a row to an older resourceVersion nor writes an
// event twice (event ids come from the workflow).
import { CloudEvent } from 'cloudevents';
import type { Db, Queryable } from '../core/db';
import type { Envelope, EventDraft } from '../workflows/machine';
import { projectPartnerRelationship } from './partner-relationship';
import { resourcePath } from '../core/resources';

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

const projectors: Record<string, (tx: Queryable, snapshot: any) => Promise<boolean>> = {
  'partner-relationship': projectPartnerRelationship,
};

export function createProjectionActivities(db: Db, settings: ProjectionSettings) {
  return {
    async persistTransition(record: TransitionRecord): Promise<void> {
      const project = projectors[record.kind];
      if (!project) throw new Error(`no projection for ${record.kind}`);
      await db.transaction(async (tx) => {
        await project(tx, record.snapshot);
        for (const draft of record.events) {
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
            `insert into events (id, resource_kind, resource_id, resource_version, type, audience, cloudevent)
             values ($1, $2, $3, $4, $5, $6, $7) on conflict (id) do nothing`,
            [draft.id, record.kind, record.snapshot.id, record.snapshot.resourceVersion, draft.type, draft.audience, JSON.stringify(event.toJSON())],
          );
        }
      });
    },
  };
}
