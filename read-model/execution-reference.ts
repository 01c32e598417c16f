// Read model of ExecutionReference: its row (the standard shape; the document without its
// milestones and outcomes), its milestones (execution_updates) and its outcome chain
// (execution_outcomes), each upserted idempotently: a record never changes but for an outcome's
// supersededByOutcomeId and version, and no row moves to an older version.
import type { Queryable } from '../core/db';
import { executionReference, outcomeRecord, type ExecutionOutcome, type ExecutionReference, type ExecutionUpdate, type ReferenceContext } from '../domain/execution-reference';
import { matchProposal, type MatchProposal } from '../domain/match-proposal';
import { partnerRelationship, type PartnerRelationship } from '../domain/partner-relationship';
import { projectDocument } from './projection-document';
import { loadDocument } from './projection-document';
import { isUuid } from '../domain/ids';

const projectRow = projectDocument(executionReference);

export async function projectExecutionReference(tx: Queryable, r: ExecutionReference): Promise<number | undefined> {
  const previous = await projectRow(tx, r);
  for (const u of r.updates) {
    await tx.query(
      `insert into execution_updates (id, execution_reference_id, participants, occurred_at, recorded_at, doc)
       values ($1, $2, $3, $4, $5, $6) on conflict (id) do nothing`,
      [u.id, r.id, r.participatingOrganizationIds, u.occurredAt, u.recordedAt, JSON.stringify(u)],
    );
  }
  for (const o of r.outcomes) {
    await tx.query(
      `insert into execution_outcomes (id, execution_reference_id, participants, resource_version, head, submitted_at, doc)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (id) do update set resource_version = excluded.resource_version, head = excluded.head, doc = excluded.doc
       where execution_outcomes.resource_version <= excluded.resource_version`,
      [o.id, r.id, r.participatingOrganizationIds, o.resourceVersion, o.supersededByOutcomeId === null, o.submittedAt, JSON.stringify(outcomeRecord(o))],
    );
  }
  return previous;
}

/** The milestones of a reference in occurrence order (then recording order). */
export async function listUpdates(db: Queryable, referenceId: string): Promise<ExecutionUpdate[]> {
  const { rows } = await db.query<{ doc: ExecutionUpdate }>('select doc from execution_updates where execution_reference_id = $1 order by occurred_at, recorded_at, id', [referenceId]);
  return rows.map((r) => r.doc);
}

export interface StoredOutcome {
  doc: ExecutionOutcome;
  participants: string[];
}

export async function loadOutcome(db: Queryable, id: string): Promise<StoredOutcome | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await db.query<StoredOutcome>('select doc, participants from execution_outcomes where id = $1', [id]);
  return rows[0];
}

/**
 * The chain of a reference, head first, each record followed by the one it supersedes. Not by
 * time: records decided in one workflow task share their submittedAt (the workflow's clock stands
 * still within a task), so time cannot tell which one is the head.
 */
export async function listOutcomes(db: Queryable, referenceId: string): Promise<ExecutionOutcome[]> {
  const { rows } = await db.query<{ doc: ExecutionOutcome }>('select doc from execution_outcomes where execution_reference_id = $1 order by submitted_at desc, id desc', [referenceId]);
  return chainOrder(rows.map((r) => r.doc));
}

/** Records in chain order from the head along `supersedes`; any the links do not reach follow, newest first. */
export function chainOrder<T extends { id: string; supersedes: string | null; supersededByOutcomeId: string | null }>(records: T[]): T[] {
  const byId = new Map(records.map((o) => [o.id, o]));
  const ordered: T[] = [];
  const placed = new Set<string>();
  for (let o = records.find((r) => r.supersededByOutcomeId === null); o && !placed.has(o.id); o = o.supersedes ? byId.get(o.supersedes) : undefined) {
    ordered.push(o);
    placed.add(o.id);
  }
  return [...ordered, ...records.filter((o) => !placed.has(o.id))];
}

/** What creating the reference of an accepted proposal needs: the proposal's facts and the retention policy. */
export async function referenceFacts(db: Queryable, proposalId: string): Promise<ReferenceContext & { proposalDoc?: MatchProposal }> {
  const proposal = await loadDocument<MatchProposal>(db, matchProposal, proposalId);
  if (!proposal) return {};
  const relationship = await loadDocument<PartnerRelationship>(db, partnerRelationship, proposal.requiredDecisionPolicy.relationshipId);
  return {
    proposalDoc: proposal,
    proposal: {
      id: proposal.id,
      status: proposal.status,
      resourceVersion: proposal.resourceVersion,
      carrierOrganizationId: proposal.offerOwnerOrganizationId,
      shipperOrganizationId: proposal.requestOwnerOrganizationId,
    },
    ...(relationship?.retentionPolicyRef ? { retentionPolicyRef: relationship.retentionPolicyRef } : {}),
  };
}
