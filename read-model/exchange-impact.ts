// Read-model query of the exchange-impact report (GET /reports/exchange-impact): the versions of the
// commitments an organization takes part in that consumed the capacity of a match, with the offer's
// leg from the originating proposal's explanation. core/exchange-impact.ts computes the report.
import type { Queryable } from '../core/db';
import type { CommitmentFacts } from '../core/exchange-impact';
import type { TransportCommitment } from '../domain/transport-commitment';

/**
 * Every version of every commitment `organizationId` takes part in (as issuer or executor) whose
 * capacity came from an accepted proposal: all of them, since an amended match is dated by its
 * first version, however long ago.
 */
export async function matchedCommitments(db: Queryable, organizationId: string): Promise<CommitmentFacts[]> {
  const { rows } = await db.query<{ doc: TransportCommitment; offer_leg_km: number | string | null }>(
    `select c.doc, p.doc->'routeCompatibility'->>'offerDistanceKm' as offer_leg_km
       from transport_commitments c
       left join match_proposals p on p.id::text = c.doc->'capacity'->>'originatingProposalId'
      where c.participants @> array[$1]::text[]
        and c.doc->'capacity'->>'originatingProposalId' is not null`,
    [organizationId],
  );
  return rows.map(({ doc, offer_leg_km }) => ({
    id: doc.id,
    status: doc.status,
    commitmentVersion: doc.commitmentVersion,
    ...(doc.previousCommitmentId ? { previousCommitmentId: doc.previousCommitmentId } : {}),
    acceptedAt: doc.acceptedAt,
    terms: doc.acceptedRevision.terms as CommitmentFacts['terms'],
    ...(doc.capacity.allocation ? { allocation: doc.capacity.allocation } : {}),
    ...(offer_leg_km !== null && offer_leg_km !== undefined && Number.isFinite(Number(offer_leg_km)) ? { offerLegKm: Number(offer_leg_km) } : {}),
  }));
}
