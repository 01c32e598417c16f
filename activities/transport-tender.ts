// Read-model queries of TransportTender and TransportCommitment (standard table shape). A draft
// tender is listed to its issuer only: its participants are empty until it is issued.
import type { Queryable } from '../core/db';
import { transportCommitment, type TransportCommitment } from '../domain/transport-commitment';
import { transportTender, type TransportTender } from '../domain/transport-tender';
import { listParticipating, type ParticipantListFilter } from './projection-document';

export const listTenders = (db: Queryable, organizationId: string, filter: ParticipantListFilter & { proposalId?: string }) =>
  listParticipating<TransportTender>(db, transportTender, organizationId, filter, { link: { field: 'originatingProposalId', value: filter.proposalId }, owners: true });

export const listCommitments = (db: Queryable, organizationId: string, filter: ParticipantListFilter & { tenderId?: string }) =>
  listParticipating<TransportCommitment>(db, transportCommitment, organizationId, filter, { link: { field: 'tenderId', value: filter.tenderId } });
