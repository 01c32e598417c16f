// Milestones a carrier's message reports (an IFTSTA status, an EPCIS event), whatever its format:
// found on their execution reference through the organization's own mapping state, then recorded
// at the exchange as that organization (POST /execution-updates). The format reads the message;
// finding the movement and recording are the same for every format, so they live here.
//
// A movement is found by any reference the message names (the carrier's trip or order number, a
// consignment number) among those the gateway learnt for the organization from the exchange
// (gateway/follower.ts: the handover's destination reference, a link's trip or order reference,
// the consignment of the shipper's IFTMIN). None, or references naming two movements, quarantine
// the message: the gateway never guesses which movement a status is about.
import { PcxProblemError, type PcxClient } from '@pcx/sdk';
import type { Queryable } from '../core/db';
import type { MilestoneResult, ReportedMilestone } from './format';
import type { QuarantineReason } from './store';

export interface ResolvedMilestone extends ReportedMilestone {
  executionReferenceId: string;
}

/** The execution references of an organization that any of these reference values names. */
async function referencesNamed(db: Queryable, organizationId: string, values: readonly string[]): Promise<string[]> {
  if (!values.length) return [];
  const r = await db.query<{ resource_id: string }>(
    `select distinct resource_id from gateway_mapping
      where organization_id = $1 and resource_kind = 'execution-reference' and value = any($2::text[]) order by resource_id`,
    [organizationId, [...new Set(values)]],
  );
  return r.rows.map((row) => row.resource_id);
}

const named = (m: ReportedMilestone) => m.references.map((r) => `${r.type} ${r.value}`).join(', ') || 'none';

/** Finds each milestone's execution reference; reasons for every one that names none or several. */
export async function resolveMilestones(db: Queryable, organizationId: string, milestones: readonly ReportedMilestone[]): Promise<{ resolved: ResolvedMilestone[]; reasons: QuarantineReason[] }> {
  const resolved: ResolvedMilestone[] = [];
  const reasons: QuarantineReason[] = [];
  for (const milestone of milestones) {
    const ids = await referencesNamed(db, organizationId, milestone.references.map((r) => r.value));
    if (ids.length === 1) {
      resolved.push({ ...milestone, executionReferenceId: ids[0] });
    } else if (ids.length === 0) {
      reasons.push({
        code: 'UNKNOWN_REFERENCE',
        message: `no movement of ${organizationId} known by its references (${named(milestone)}): the gateway knows a movement by the executing system's reference on its handover or link, or by the consignment of the shipper's transport instruction`,
        position: milestone.source,
      });
    } else {
      reasons.push({ code: 'AMBIGUOUS_REFERENCE', message: `its references (${named(milestone)}) name ${ids.length} movements: ${ids.join(', ')}`, position: milestone.source });
    }
  }
  return { resolved, reasons };
}

/**
 * Records the milestones at the exchange, each under an Idempotency-Key of its own (`key`); a
 * refusal of one (the reference completed, a conflicting key) is that milestone's answer, not the
 * message's. Anything else (the broker unreachable) throws, for the workflow to retry.
 */
export async function recordMilestones(milestones: readonly ResolvedMilestone[], client: PcxClient, key: (step: string) => string): Promise<MilestoneResult[]> {
  const results: MilestoneResult[] = [];
  for (const [i, m] of milestones.entries()) {
    const body = {
      executionReferenceId: m.executionReferenceId,
      milestone: m.milestone,
      occurredAt: m.occurredAt,
      deduplicationKey: m.deduplicationKey,
      ...(m.reason ? { reason: m.reason.slice(0, 500) } : {}),
      ...(m.unLocode ? { position: { kind: 'unlocode', code: m.unLocode } } : {}),
    };
    try {
      const answer = await client.request<{ id: string }>('POST', '/execution-updates', { body, idempotencyKey: key(`milestone-${i}`) });
      results.push({ executionReferenceId: m.executionReferenceId, updateId: answer.data.id });
    } catch (err) {
      if (!(err instanceof PcxProblemError) || err.status >= 500 || err.status === 429 || err.code === 'IDEMPOTENCY_IN_PROGRESS') throw err;
      results.push({ executionReferenceId: m.executionReferenceId, problem: { status: err.status, code: err.code, detail: err.problem.detail ?? err.message } });
    }
  }
  return results;
}
