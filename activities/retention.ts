// The retention purge and personal data erasure (issue 34 part 4; docs/retention.md). The
// retention workflow (workflows/retention.ts) calls `purgeDue` on its clock: every record whose
// final status is older than its policy's period (domain/retention.ts; the kinds and their links
// from their definitions' `retention`) is removed from the read model with its events, leaving a
// tombstone and an event `pcx.purged-record.recorded.v1` to those who could read it
// (read-model/retention.ts); its Temporal histories are deleted, so that neither Temporal nor a
// rebuild from it (read-model/rebuild.ts) keeps it longer. Contact details in handovers and removed
// users' names are erased after the policy's personalData period (read-model/erasures.ts).
import type { Db } from '../core/db';
import type { Entities } from '../core/entities';
import type { PersonalData } from '../core/personal-data';
import { resourceOf } from '../domain/registry';
import { dueAt, oldestDue, policyOf, type RetentionPolicies } from '../domain/retention';
import { erase, forgetting, handoversWithContacts, HANDOVER_CONTACTS, removedUsersWithNames, USER_NAME, type ErasureKind } from '../read-model/erasures';
import type { ProjectionSettings } from '../read-model/projection';
import { dueCandidates, markHistoriesDeleted, purgedKind, purgedKinds, purgeRecord, tombstonesWithHistories } from '../read-model/retention';

/** How many records one call purges at most: the workflow calls again at once while there are more. */
const BATCH = 200;
/** How many candidate rows one query reads while looking for due ones. */
const SCAN_PAGE = 500;

export interface PurgeResult {
  purged: number;
  erased: number;
  /** More were due than one call purges. */
  more: boolean;
}

export function createRetentionActivities(db: Db, entities: Entities, settings: ProjectionSettings & { retention?: RetentionPolicies; personalData?: PersonalData }) {
  const policies = settings.retention;
  const forget = forgetting(entities, settings.personalData);

  /** Deletes the Temporal histories of purged records that still have them (this purge's, or one a crash interrupted). */
  async function deletePurgedHistories(): Promise<void> {
    for (const r of await tombstonesWithHistories(db, BATCH)) {
      const { deleted, running } = await entities.deleteHistories(resourceOf(r.resource_kind).workflowId(r.id));
      if (running) continue; // a final record's workflow is closing: the next round takes it
      await markHistoriesDeleted(db, r.id, deleted);
    }
  }

  /** Purges the due records of one kind, up to `budget`; how many, and whether more may be due. */
  async function purgeKind(policies: RetentionPolicies, kind: string, now: string, budget: number): Promise<{ purged: number; more: boolean }> {
    // Only rows final before the shortest period of any policy can be due: the index on status and
    // time bounds the scan. Page on past the rows that are not due (a longer policy's, a held
    // relationship's): a page of them must not hide due rows behind it, round after round.
    const oldest = oldestDue(policies, purgedKind(kind).period, now);
    let purged = 0;
    let after: { at: Date; id: string } | undefined;
    for (;;) {
      const rows = await dueCandidates(db, kind, policies, { now, oldest, after, limit: SCAN_PAGE });
      for (const { id } of rows) {
        if (purged >= budget) return { purged, more: true };
        if (!(await purgeRecord(db, settings, policies, kind, id, now))) continue;
        // A purged record's personal data goes with its key (core/personal-data.ts).
        forget.destroyKey(kind, id);
        purged++;
      }
      if (rows.length < SCAN_PAGE) return { purged, more: false };
      after = rows[rows.length - 1];
    }
  }

  /** Erases what `what` takes from the records `due` lists, where their policy's personalData period has passed. */
  async function eraseDue(policies: RetentionPolicies, what: ErasureKind, due: Array<{ id: string; final_at: Date; policy_ref?: string | null }>, now: string, why: (period: string) => string): Promise<number> {
    let erased = 0;
    for (const r of due) {
      const policy = policyOf(policies, r.policy_ref);
      const at = dueAt(policy, 'personalData', new Date(r.final_at).toISOString());
      if (!at || Date.parse(at) > Date.parse(now)) continue;
      const outcome = await erase(db, settings, forget, what, r.id, { reason: `retention policy ${policy.ref}: ${why(policy.periods.personalData!)}`, at: now, policy: policy.ref });
      if (outcome.erased) erased++;
    }
    return erased;
  }

  return {
    /** Purges what is due at `now` (the workflow's clock), at most a batch, and erases the personal data that is due. */
    async purgeDue({ now }: { now: string }): Promise<PurgeResult> {
      if (!policies) return { purged: 0, erased: 0, more: false };
      await deletePurgedHistories();
      let purged = 0;
      for (const kind of purgedKinds()) {
        const round = await purgeKind(policies, kind, now, BATCH - purged);
        purged += round.purged;
        if (round.more) return { purged, erased: 0, more: true };
      }
      await deletePurgedHistories();
      const oldest = oldestDue(policies, 'personalData', now);
      // A user belongs to no relationship: the default policy is theirs.
      const contacts = await eraseDue(policies, HANDOVER_CONTACTS, await handoversWithContacts(db, oldest, BATCH), now, (period) => `contact details are kept ${period} after the handover`);
      const names = await eraseDue(policies, USER_NAME, await removedUsersWithNames(db, oldest, BATCH), now, (period) => `a removed user's name is kept ${period}`);
      return { purged, erased: contacts + names, more: false };
    },
  };
}
