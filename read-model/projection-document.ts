// The standard read model of a resource (its table made by read-model/database.ts): kept apart from
// projection.ts so that projectors with tables of their own can build on it.
import type { Queryable } from '../core/db';
import type { Resource } from '../domain/resource';
import { isUuid } from '../domain/ids';

/** Upserts a resource's read-model row and returns the resourceVersion the row had before, if any. */
export type Projector = (tx: Queryable, snapshot: any) => Promise<number | undefined>;

/**
 * The standard read model: id, version, owner, the participants that may read it besides the
 * owner (domain/resource.ts `participants`), status, times and the document. Never moves a
 * row to an older resourceVersion.
 */
export function projectDocument(resource: Resource<any, any>): Projector {
  return async (tx, doc) => {
    const result = await tx.query<{ previous_version: number | null }>(
      `with previous as (select resource_version from ${resource.table} where id = $1)
       insert into ${resource.table} (id, resource_version, owner_organization_id, participants, status, created_at, updated_at, doc)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (id) do update set
         resource_version = excluded.resource_version, participants = excluded.participants, status = excluded.status,
         updated_at = excluded.updated_at, doc = excluded.doc
       where ${resource.table}.resource_version <= excluded.resource_version
       returning (select resource_version from previous) as previous_version`,
      [doc.id, doc.resourceVersion, doc.ownerOrganizationId, resource.participants?.(doc) ?? [], doc.status, doc.createdAt, doc.updatedAt, JSON.stringify(resource.document?.(doc) ?? doc)],
    );
    return result.rows[0]?.previous_version ?? undefined;
  };
}


export interface ParticipantListFilter {
  statuses?: string[];
  /** Document fields that must equal a value: a link to another resource, the caller's role. */
  equal?: Array<{ field: string; value: string }>;
  /** Rows after this id (the page cursor). */
  after?: string;
  limit: number;
}

/**
 * The standard-shape rows an organization takes part in (its `participants`; with `owners`, also
 * those it owns, for resources whose drafts have no participants yet), in id order, one more than
 * `limit` to tell whether a next page exists. Each `equal` keeps the rows whose document field has
 * the value (a tender's proposal, a commitment's tender); fields are spelled in the SQL so that the
 * expression indexes of the standard tables apply.
 */
export async function listParticipating<T>(db: Queryable, resource: Resource<any, any>, organizationId: string, filter: ParticipantListFilter, options: { owners?: boolean; everyone?: boolean } = {}): Promise<T[]> {
  const equal = filter.equal ?? [];
  for (const { field } of equal) if (!/^[A-Za-z]+$/.test(field)) throw new Error(`not a document field: ${field}`);
  const params: unknown[] = [organizationId, filter.statuses ?? null, filter.after ?? null, filter.limit + 1, ...equal.map((e) => e.value)];
  const { rows } = await db.query<{ doc: T }>(
    `select doc from ${resource.table}
      where (${options.everyone ? 'true or ' : ''}participants @> array[$1]::text[]${options.owners ? ' or owner_organization_id = $1' : ''})
        and ($2::text[] is null or status = any($2::text[]))
        and ($3::uuid is null or id > $3::uuid)
        ${equal.map((e, n) => `and doc->>'${e.field}' = $${n + 5}`).join(' ')}
      order by id limit $4`,
    params,
  );
  return rows.map((r) => r.doc);
}

/** The read-model document of any resource, by id (every table has `id` and `doc`). */
export async function loadDocument<T = any>(db: Queryable, resource: Resource<any, any>, id: string): Promise<T | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await db.query<{ doc: T }>(`select doc from ${resource.table} where id = $1`, [id]);
  return rows[0]?.doc;
}

