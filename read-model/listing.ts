// Read model of a listing (CapacityOffer, LoadRequest): one row shape for both, with the columns
// the lists filter on. The areas' bounding boxes are computed here, once per write.
import type { Queryable } from '../core/db';
import { boundingBox, type Area, type Box } from '../core/areas';
import type { Listing } from '../domain/listing';
import type { Resource } from '../domain/resource';
import { nowParam, partnerVisibleSql } from './sharing';

export interface ListingColumns {
  window?: { start: string; end: string };
  origin?: unknown;
  destination?: unknown;
  /**
   * What the matching index searches (read-model/schema.sql, `*_match` GiST indexes): for an offer, the
   * reach of its origin and destination (their boxes grown by its maximum detour) and its
   * availability; for a request, its pickup and delivery boxes and its pickup window.
   */
  match?: { origin: Box; destination: Box; window: { start: string; end: string }; reversible?: boolean };
  /** Organizations that accepted a match with it: they keep reading it (domain/resource.ts). */
  counterparts?: string[];
}

/** A box as a PostgreSQL `box` literal. */
export const boxLiteral = (b: Box) => `((${b[0]},${b[1]}),(${b[2]},${b[3]}))`;

export async function projectListing(tx: Queryable, table: string, doc: Listing, columns: ListingColumns): Promise<number | undefined> {
  const box = (area: unknown) => (area ? boundingBox(area as Area) : null);
  const m = columns.match;
  const result = await tx.query<{ previous_version: number | null }>(
    `with previous as (select resource_version from ${table} where id = $1)
     insert into ${table}
       (id, resource_version, owner_organization_id, status, visibility_mode, visibility_organization_ids, visibility_groups,
        window_start, window_end, origin_box, destination_box, created_at, updated_at, doc,
        match_origin, match_destination, match_window, reversible, counterparts)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
        $15::box, $16::box, case when $17::timestamptz is null then null else tstzrange($17, $18, '[]') end, $19, $20)
     on conflict (id) do update set
       resource_version = excluded.resource_version, status = excluded.status, visibility_mode = excluded.visibility_mode,
       visibility_organization_ids = excluded.visibility_organization_ids, visibility_groups = excluded.visibility_groups,
       window_start = excluded.window_start, window_end = excluded.window_end, origin_box = excluded.origin_box,
       destination_box = excluded.destination_box, updated_at = excluded.updated_at, doc = excluded.doc,
       match_origin = excluded.match_origin, match_destination = excluded.match_destination, match_window = excluded.match_window,
       reversible = excluded.reversible, counterparts = excluded.counterparts
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
      m ? boxLiteral(m.origin) : null,
      m ? boxLiteral(m.destination) : null,
      m?.window.start ?? null,
      m?.window.end ?? null,
      m?.reversible ?? false,
      columns.counterparts ?? [],
    ],
  );
  return result.rows[0]?.previous_version ?? undefined;
}

// Read-model queries of listings. The API asks these, never inline SQL.

export interface ListingFilter {
  statuses?: string[];
  owner?: string;
  /** The occurrences of one recurring series (their seriesId). */
  series?: string;
  /** [minLon, minLat, maxLon, maxLat]: origin/pickup or destination/delivery box overlaps it. */
  box?: number[];
  /** The window overlaps [from, to). */
  from?: string;
  to?: string;
  after?: string;
  limit: number;
}

/**
 * The listings a viewer sees: its own, every one for an operator, and those partners share with
 * it (gates 5, 7, 8 in SQL: read-model/sharing.ts), in id order, one more than `limit`.
 */
export async function listListings(
  db: Queryable,
  resource: Resource<any, any>,
  viewer: { organizationId: string; operator: boolean },
  filter: ListingFilter,
): Promise<Listing[]> {
  const { rows } = await db.query<{ doc: Listing }>(
    `select x.doc from ${resource.table} x
      where (x.owner_organization_id = $1 or $2::boolean or $1 = any(x.counterparts)
             or (x.status = any($3::text[]) and ${partnerVisibleSql('x', '$1', '$4', '$12')}))
        and ($5::text[] is null or x.status = any($5::text[]))
        and ($6::text is null or x.owner_organization_id = $6)
        and ($7::float8[] is null
             or (x.origin_box[1] <= $7[3] and x.origin_box[3] >= $7[1] and x.origin_box[2] <= $7[4] and x.origin_box[4] >= $7[2])
             or (x.destination_box[1] <= $7[3] and x.destination_box[3] >= $7[1] and x.destination_box[2] <= $7[4] and x.destination_box[4] >= $7[2]))
        and ($8::timestamptz is null or x.window_end > $8)
        and ($9::timestamptz is null or x.window_start < $9)
        and ($10::uuid is null or x.id > $10::uuid)
        and ($13::text is null or x.doc->>'seriesId' = $13)
      order by x.id limit $11`,
    [
      viewer.organizationId,
      viewer.operator,
      resource.partnerStatuses ?? [],
      resource.scopes.read,
      filter.statuses ?? null,
      filter.owner ?? null,
      filter.box ?? null,
      filter.from ?? null,
      filter.to ?? null,
      filter.after ?? null,
      filter.limit + 1,
      nowParam(),
      filter.series ?? null,
    ],
  );
  return rows.map((r) => r.doc);
}
