// Milestones a carrier's message reports (an IFTSTA status, an EPCIS event), whatever its format:
// found on their execution reference through the organization's own mapping state, then recorded
// at the exchange as that organization (POST /execution-updates). The format reads the message;
// finding the movement and recording are the same for every format, so they live here.
//
// A movement is found by any reference the message names (the carrier's trip or order number, a
// consignment number) among those the gateway learnt for the organization from the exchange
// (gateway/follower.ts: the handover's destination reference, a link's trip or order reference,
// the consignment of the shipper's IFTMIN). None, or references naming two movements, quarantine
// the message: the gateway never guesses which movement a status is about. So does a status dated
// in the future (TIME_IN_FUTURE); one dated before its movement is sent, and the exchange's refusal
// is that milestone's answer (the gateway does not know when the movement began).
import { PcxProblemError, type CommandBody, type components, type CreateBody, type operations, type PcxClient } from '@pcx/sdk';
import type { Queryable } from '../core/db';
import type { MilestoneResult, ReportedMilestone } from './format';
import type { QuarantineReason } from './store';

export interface ResolvedMilestone extends ReportedMilestone {
  executionReferenceId: string;
}

/** The body of POST /execution-updates: a collection's create it is not, so it is named by its operation. */
type MilestoneBody = operations['recordExecutionUpdate']['requestBody']['content']['application/json'];
type OutcomeBody = CreateBody<'execution-outcomes'>;
type CorrectionBody = CommandBody<'execution-outcomes', 'corrections'>;

/**
 * The execution references of an organization that any of these reference values names. Values
 * compare as systems write the same number differently: spaces around it and letter case do not
 * count (`ab-4711 ` names the movement known as `AB-4711`).
 */
async function referencesNamed(db: Queryable, organizationId: string, values: readonly string[]): Promise<string[]> {
  const keys = [...new Set(values.map((v) => v.trim().toLowerCase()).filter(Boolean))];
  if (!keys.length) return [];
  const r = await db.query<{ resource_id: string }>(
    `select distinct resource_id from gateway_mapping
      where organization_id = $1 and resource_kind = 'execution-reference' and lower(btrim(value)) = any($2::text[]) order by resource_id`,
    [organizationId, keys],
  );
  return r.rows.map((row) => row.resource_id);
}

const named = (m: ReportedMilestone) => m.references.map((r) => `${r.type} ${r.value}`).join(', ') || 'none';

/** How far a reported time may lie ahead of now: the exchange's clock skew (CLOCK_SKEW_MINUTES, domain/execution-reference.ts). */
export const CLOCK_SKEW_MINUTES = 5;

/**
 * A milestone dated more than the skew after the gateway's clock: the exchange would refuse it
 * (a reported time is a fact), and a time in the future is almost always the sender's zone or
 * clock gone wrong, so the whole message is held for a corrected one (docs/adapters.md).
 */
export function inTheFuture(milestone: ReportedMilestone, now: Date): QuarantineReason | undefined {
  const latest = now.getTime() + CLOCK_SKEW_MINUTES * 60_000;
  if (!(Date.parse(milestone.occurredAt) > latest)) return undefined;
  return {
    code: 'TIME_IN_FUTURE',
    message: `it reports ${milestone.milestone} at ${milestone.occurredAt}, after the gateway's now (${now.toISOString()}) by more than ${CLOCK_SKEW_MINUTES} minutes (at the latest ${new Date(latest).toISOString()}): the exchange records what has happened; check the sender's clock and time zone`,
    position: milestone.source,
  };
}

/** Finds each milestone's execution reference; reasons for every one dated in the future, or that names no movement or several. */
export async function resolveMilestones(db: Queryable, organizationId: string, milestones: readonly ReportedMilestone[], now = new Date()): Promise<{ resolved: ResolvedMilestone[]; reasons: QuarantineReason[] }> {
  const resolved: ResolvedMilestone[] = [];
  const reasons: QuarantineReason[] = [];
  for (const milestone of milestones) {
    const future = inTheFuture(milestone, now);
    if (future) {
      reasons.push(future);
      continue;
    }
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
 * A coordinate as the exchange keeps a milestone's position: a circle of 1 km around it, the centre
 * rounded to two decimals (about a kilometre): a coarse position, never an exact location.
 */
export function coarse(point: { lon: number; lat: number }): components['schemas']['LogisticsArea'] {
  const round = (v: number) => Math.round(v * 100) / 100;
  return { kind: 'circle', center: [round(point.lon), round(point.lat)], radiusKm: 1 };
}

/** An answer of the exchange that is final for this request (retrying would get it again). */
const refusal = (err: unknown): err is PcxProblemError => err instanceof PcxProblemError && err.status < 500 && err.status !== 429 && err.code !== 'IDEMPOTENCY_IN_PROGRESS';

/** The milestones that end a movement, and the outcome each reports (organizations with reportOutcomes). */
const FINAL: Partial<Record<ReportedMilestone['milestone'], 'completed' | 'failed'>> = { delivered: 'completed', failed: 'failed' };
const STARTED = new Set(['atPickup', 'pickedUp', 'inTransit']);

/**
 * The outcome a final milestone reports (delivered: completed; failed: failed), recorded once (its
 * deduplication key is the milestone's). A completed outcome needs its actual time range: from the
 * first pickup milestone the reference holds to the delivery; without a pickup milestone the
 * gateway reports none (it never invents a start) and says so in the message's result.
 */
async function reportOutcome(m: ResolvedMilestone, client: PcxClient, key: string): Promise<MilestoneResult['outcome']> {
  const status = FINAL[m.milestone];
  if (!status) return undefined;
  const updates = (await client.request<{ items: Array<{ milestone: string; occurredAt: string }> }>('GET', '/execution-references/{id}/updates', { path: { id: m.executionReferenceId } })).data.items;
  const start = updates.filter((u) => STARTED.has(u.milestone)).map((u) => u.occurredAt).sort()[0];
  if (status === 'completed' && (!start || start > m.occurredAt)) return { reported: false, why: 'no pickup milestone before the delivery: the actual time range would have no start' };
  const body: OutcomeBody = {
    executionReferenceId: m.executionReferenceId,
    status,
    deduplicationKey: `${m.deduplicationKey.slice(0, 180)}:outcome`,
    schemaVersion: 'v0',
    ...(start ? { actualTimeRange: { start, end: m.occurredAt } } : {}),
    ...(status === 'failed' ? { operationalDeviations: [{ code: 'DELIVERY_FAILED', ...(m.reason ? { description: m.reason.slice(0, 500) } : {}), at: m.occurredAt }] } : {}),
  };
  try {
    const answer = await client.request<{ id: string }>('POST', '/execution-outcomes', { body, idempotencyKey: key });
    return { reported: true, outcomeId: answer.data.id, status };
  } catch (err) {
    if (!refusal(err)) throw err;
    return { reported: false, why: `the exchange refused it (${err.status} ${err.code})` };
  }
}

/**
 * The correction a correcting report makes (ReportedMilestone.correction): the head of the
 * movement's outcome chain corrected to the report's status, with its reason; a completed one ends
 * at the report's time. Without an outcome to correct, nothing is done and the answer says so.
 */
async function correctOutcome(m: ResolvedMilestone, client: PcxClient, key: string): Promise<MilestoneResult['correction']> {
  const correction = m.correction!;
  type Outcome = { id: string; resourceVersion: number; supersededByOutcomeId?: string | null; actualTimeRange?: { start: string; end: string } };
  const chain = (await client.request<{ items: Outcome[] }>('GET', '/execution-outcomes', { query: { executionReferenceId: m.executionReferenceId } })).data.items;
  const head = chain.find((o) => !o.supersededByOutcomeId);
  if (!head) return { corrected: false, why: 'no outcome of the movement was recorded to correct' };
  const start = head.actualTimeRange?.start;
  const body: CorrectionBody = {
    status: correction.status,
    deduplicationKey: `${m.deduplicationKey.slice(0, 180)}:correction`,
    schemaVersion: 'v0',
    observedOutcomeVersion: head.resourceVersion,
    correctionReason: correction.reason.slice(0, 1000),
    correctionReasonCode: correction.reasonCode,
    ...(correction.status === 'completed' && start && start <= m.occurredAt ? { actualTimeRange: { start, end: m.occurredAt } } : {}),
  };
  try {
    const answer = await client.request<{ id: string }>('POST', '/execution-outcomes/{id}/corrections', { path: { id: head.id }, body, idempotencyKey: key });
    return { corrected: true, outcomeId: answer.data.id, status: correction.status };
  } catch (err) {
    if (!refusal(err)) throw err;
    return { corrected: false, why: `the exchange refused it (${err.status} ${err.code}: ${err.problem.detail ?? err.message})` };
  }
}

/** A reported milestone as the exchange records it on its execution reference. */
function milestoneBodyOf(m: ResolvedMilestone): MilestoneBody {
  return {
    executionReferenceId: m.executionReferenceId,
    milestone: m.milestone,
    occurredAt: m.occurredAt,
    deduplicationKey: m.deduplicationKey,
    ...(m.reason ? { reason: m.reason.slice(0, 500) } : {}),
    ...(m.estimatedTimes ? { estimatedTimes: m.estimatedTimes } : {}),
    ...(m.unLocode ? { position: { kind: 'unlocode', code: m.unLocode } } : m.position ? { position: coarse(m.position) } : {}),
  };
}

/**
 * Records the milestones at the exchange, each under an Idempotency-Key of its own (`key`); a
 * refusal of one (the reference completed, a conflicting key) is that milestone's answer, not the
 * message's. Anything else (the broker unreachable) throws, for the workflow to retry.
 */
export async function recordMilestones(milestones: readonly ResolvedMilestone[], client: PcxClient, key: (step: string) => string, options: { reportOutcomes: boolean }): Promise<MilestoneResult[]> {
  const results: MilestoneResult[] = [];
  for (const [i, m] of milestones.entries()) {
    const correction = m.correction ? await correctOutcome(m, client, key(`correction-${i}`)) : undefined;
    if (m.correction?.only) {
      results.push({ executionReferenceId: m.executionReferenceId, ...(correction ? { correction } : {}) });
      continue;
    }
    try {
      const answer = await client.request<{ id: string }>('POST', '/execution-updates', { body: milestoneBodyOf(m), idempotencyKey: key(`milestone-${i}`) });
      // A correcting report's final status corrects the outcome (above) rather than reporting a second one.
      const outcome = options.reportOutcomes && !correction?.corrected ? await reportOutcome(m, client, key(`outcome-${i}`)) : undefined;
      results.push({ executionReferenceId: m.executionReferenceId, updateId: answer.data.id, ...(outcome ? { outcome } : {}), ...(correction ? { correction } : {}) });
    } catch (err) {
      if (!refusal(err)) throw err;
      results.push({ executionReferenceId: m.executionReferenceId, problem: { status: err.status, code: err.code, detail: err.problem.detail ?? err.message } });
    }
  }
  return results;
}
