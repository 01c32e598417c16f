// Reconciliation after downtime or a missed event: the gateway reads the organization's feed from
// its cursor to its end, then checks its mapping state against the authoritative resources (GET):
// every resource a message became is read, references the exchange holds and the mapping lacks
// are added, a resource the organization can no longer read is reported (never deleted: the
// mapping is the history of what the gateway did), and every movement the organization takes part
// in is learnt again and told what it missed. The report says what was checked and repaired.
// Run at every start and on request (POST /reconcile, the organization's own token).
import { PcxProblemError, type PcxClient } from '@pcx/sdk';
import type { Db } from '../core/db';
import type { ServedOrganization } from './config';
import type { Follower } from './follower';
import { recordMappings, type Mapping } from './store';

export interface ReconcileReport {
  organizationId: string;
  at: string;
  feedEventsApplied: number;
  checked: { resources: number; movements: number };
  repaired: { mappingsAdded: number; noticesWritten: number };
  /** Resources the mapping names that the organization can no longer read (404): kept, reported. */
  missing: Array<{ resourceKind: string; resourceId: string }>;
}

const COLLECTIONS: Readonly<Record<string, string>> = { 'load-request': '/load-requests/{id}', 'capacity-offer': '/capacity-offers/{id}' };

export async function reconcile(db: Db, org: ServedOrganization, client: PcxClient, follower: Follower): Promise<ReconcileReport> {
  const report: ReconcileReport = { organizationId: org.organizationId, at: new Date().toISOString(), feedEventsApplied: await follower.catchUp(), checked: { resources: 0, movements: 0 }, repaired: { mappingsAdded: 0, noticesWritten: 0 }, missing: [] };

  // What the organization's messages became, read back.
  const made = await db.query<{ resource_kind: string; resource_id: string; n: string }>(
    `select resource_kind, resource_id, count(*) as n from gateway_mapping
      where organization_id = $1 and resource_kind = any($2::text[]) group by resource_kind, resource_id order by resource_id`,
    [org.organizationId, Object.keys(COLLECTIONS)],
  );
  for (const row of made.rows) {
    report.checked.resources++;
    try {
      const resource = (await client.request<{ externalReferences?: Array<{ system: string; type: string; value: string }> }>('GET', COLLECTIONS[row.resource_kind], { path: { id: row.resource_id } })).data;
      const refs: Mapping[] = (resource.externalReferences ?? []).map((r) => ({ ...r, resourceKind: row.resource_kind, resourceId: row.resource_id }));
      const before = Number(row.n);
      await recordMappings(db, org.organizationId, `reconcile-${row.resource_id}`, refs);
      const after = await db.query<{ n: string }>(`select count(*) as n from gateway_mapping where organization_id = $1 and resource_id = $2 and resource_kind = $3`, [org.organizationId, row.resource_id, row.resource_kind]);
      report.repaired.mappingsAdded += Number(after.rows[0].n) - before;
    } catch (err) {
      if (err instanceof PcxProblemError && err.status === 404) report.missing.push({ resourceKind: row.resource_kind, resourceId: row.resource_id });
      else throw err;
    }
  }

  // Every movement the organization takes part in, learnt again and told what it missed.
  for await (const reference of client.references.list()) {
    report.checked.movements++;
    const done = await follower.movement(org, (reference as { id: string }).id);
    report.repaired.mappingsAdded += done.mappingsAdded;
    report.repaired.noticesWritten += done.noticesWritten;
  }
  return report;
}
