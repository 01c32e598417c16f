// Read model of a listing (CapacityOffer, LoadRequest): one row shape for both, with the columns
// the lists filter on. The areas' bounding boxes are computed here, once per write.
import type { Queryable } from '../core/db';
import { boundingBox, type Area } from '../core/areas';
import type { Listing } from '../workflows/listing';

export interface ListingColumns {
  window?: { start: string; end: string };
  origin?: unknown;
  destination?: unknown;
}

export async function projectListing(tx: Queryable, table: string, doc: Listing, columns: ListingColumns): Promise<number | undefined> {
  const box = (area: unknown) => (area ? boundingBox(area as Area) : null);
  const result = await tx.query<{ previous_version: number | null }>(
    `with previous as (select resource_version from ${table} where id = $1)
     insert into ${table}
       (id, resource_version, owner_organization_id, status, visibility_mode, visibility_organization_ids, visibility_groups,
        window_start, window_end, origin_box, destination_box, created_at, updated_at, doc)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     on conflict (id) do update set
       resource_version = excluded.resource_version, status = excluded.status, visibility_mode = excluded.visibility_mode,
       visibility_organization_ids = excluded.visibility_organization_ids, visibility_groups = excluded.visibility_groups,
       window_start = excluded.window_start, window_end = excluded.window_end, origin_box = excluded.origin_box,
       destination_box = excluded.destination_box, updated_at = excluded.updated_at, doc = excluded.doc
     where ${table}.resource_version <= excluded.resource_version
     returning (select resource_version from previous) as previous_version`,
    [
      doc.id,
      doc.resourceVersion,
      doc.ownerOrganizationId,
      doc.status,
      doc.visibility?.mode ?? null,
      doc.visibility?.organizationIds ?? [],
      doc.visibility?.groups ?? [],
      columns.window?.start ?? null,
      columns.window?.end ?? null,
      box(columns.origin),
      box(columns.destination),
      doc.createdAt,
      doc.updatedAt,
      JSON.stringify(doc),
    ],
  );
  return result.rows[0]?.previous_version ?? undefined;
}
