// Read-model queries of TransportTender and TransportCommitment (standard table shape). A draft
// tender is listed to its issuer only: its participants are empty until it is issued.
import type { Queryable } from '../core/db';
import type { TransportCommitment } from '../workflows/transport-commitment';
import type { TransportTender } from '../workflows/transport-tender';

export async function listTenders(db: Queryable, organizationId: string, filter: { statuses?: string[]; proposalId?: string; after?: string; limit: number }): Promise<TransportTender[]> {
  const { rows } = await db.query<{ doc: TransportTender }>(
    `select doc from transport_tenders
      where (owner_organization_id = $1 or participants @> array[$1]::text[])
        and ($2::text[] is null or status = any($2::text[]))
        and ($3::text is null or doc->>'originatingProposalId' = $3)
        and ($4::uuid is null or id > $4::uuid)
      order by id limit $5`,
    [organizationId, filter.statuses ?? null, filter.proposalId ?? null, filter.after ?? null, filter.limit + 1],
  );
  return rows.map((r) => r.doc);
}

export async function listCommitments(db: Queryable, organizationId: string, filter: { statuses?: string[]; tenderId?: string; after?: string; limit: number }): Promise<TransportCommitment[]> {
  const { rows } = await db.query<{ doc: TransportCommitment }>(
    `select doc from transport_commitments
      where participants @> array[$1]::text[]
        and ($2::text[] is null or status = any($2::text[]))
        and ($3::text is null or doc->>'tenderId' = $3)
        and ($4::uuid is null or id > $4::uuid)
      order by id limit $5`,
    [organizationId, filter.statuses ?? null, filter.tenderId ?? null, filter.after ?? null, filter.limit + 1],
  );
  return rows.map((r) => r.doc);
}
