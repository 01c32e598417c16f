// Retention holds on relationships (schema.sql retention_holds; api/partner-relationships.ts writes
// them, read-model/retention.ts reads them in the purge's queries: `heldSql`).
import type { Queryable } from '../core/db';

/** A hold an operator placed on a relationship: the purge keeps what is linked to it until it is lifted. */
export interface RetentionHold {
  relationshipId: string;
  reason: string;
  placedAt: string;
  placedBy: { organizationId: string; clientId?: string; userId?: string };
}

export async function holdOf(db: Queryable, relationshipId: string): Promise<RetentionHold | undefined> {
  const { rows } = await db.query<{ doc: RetentionHold }>('select doc from retention_holds where relationship_id = $1', [relationshipId]);
  return rows[0]?.doc;
}

/** Places the hold, or gives the one there a new reason (its first placement's time kept). */
export async function placeHold(db: Queryable, hold: RetentionHold): Promise<RetentionHold> {
  const { rows } = await db.query<{ doc: RetentionHold }>(
    `insert into retention_holds (relationship_id, placed_at, doc) values ($1, $2, $3)
     on conflict (relationship_id) do update set doc = jsonb_set(excluded.doc, '{placedAt}', retention_holds.doc->'placedAt')
     returning doc`,
    [hold.relationshipId, hold.placedAt, JSON.stringify(hold)],
  );
  return rows[0].doc;
}

/** Lifts the hold; whether there was one. */
export async function liftHold(db: Queryable, relationshipId: string): Promise<boolean> {
  const { rowCount } = await db.query('delete from retention_holds where relationship_id = $1', [relationshipId]);
  return (rowCount ?? 0) > 0;
}
