// Read-model queries of ExecutionHandover (standard table shape). A handover is listed to its two
// organizations only: the issuing organization (owner) and the executing one (participants hold both).
import type { Queryable } from '../core/db';
import { executionHandover, type ExecutionHandover } from '../domain/execution-handover';
import { listParticipating, type ParticipantListFilter } from './projection-document';

export const listHandovers = (db: Queryable, organizationId: string, filter: ParticipantListFilter & { commitmentId?: string }) =>
  listParticipating<ExecutionHandover>(db, executionHandover, organizationId, filter, { link: { field: 'commitmentId', value: filter.commitmentId } });
