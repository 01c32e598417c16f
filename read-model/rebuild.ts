// The read model rebuilt from Temporal alone (issue 34 part 1; docs/decisions.md, "The read
// model rebuilt from Temporal"). Temporal is the system of record of every resource's lifecycle:
// each transition an entity decided is in its workflow's history, with its snapshot and its events
// (their ids made in the workflow), either as the answer of the Update that caused it or as the
// input of the activity through which the workflow wrote it. Collected from the histories of every
// run (continue-as-new chains and completed workflows included, while the namespace keeps them),
// they are written again in the order they happened, through the same transition writer as live
// writes: the rows, their versions and the outbox (the same event ids, each subject's events in
// order, the same audiences: a listing's partners are those in force at its transition's instant).
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { Db } from '../core/db';
import { transitionsInHistory } from '../core/history';
import type { TransitionRecord } from '../domain/transition';
import { RESOURCES } from '../domain/registry';
import type { Resource } from '../domain/resource';
import { createTransitionWriter, type ProjectionSettings } from './projection';

export interface RebuildScope {
  /** Only the resources these organizations own or take part in (the search attributes PcxOwnerOrganizationId, PcxPartnerOrganizationId); all without. */
  organizationIds?: readonly string[];
}

export interface RebuildReport {
  /** Workflow runs whose histories were read. */
  runs: number;
  resources: number;
  transitions: number;
  events: number;
  /** Resources whose history starts after version 1 (their earlier runs are past the namespace's retention): rebuilt from what is left. */
  incomplete: string[];
  seconds: number;
}

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** The visibility query of the entity workflows in scope. */
export function scopeQuery(scope: RebuildScope, resources: readonly Resource<any, any>[] = RESOURCES): string {
  const kinds = `PcxResourceKind IN (${resources.map((r) => quote(r.kind)).join(', ')})`;
  const orgs = scope.organizationIds?.length ? scope.organizationIds.map(quote).join(', ') : undefined;
  return orgs ? `${kinds} AND (PcxOwnerOrganizationId IN (${orgs}) OR PcxPartnerOrganizationId IN (${orgs}))` : kinds;
}

/** Every transition of the workflows in scope, once each (by resource and version). */
export async function collectTransitions(client: Client, scope: RebuildScope, resources: readonly Resource<any, any>[] = RESOURCES): Promise<{ transitions: TransitionRecord[]; runs: number }> {
  const byVersion = new Map<string, TransitionRecord>();
  let runs = 0;
  const executions: WorkflowExecutionInfo[] = [];
  for await (const execution of client.workflow.list({ query: scopeQuery(scope, resources) })) executions.push(execution);
  // A few histories at a time: each is one request, mostly small.
  const queue = [...executions];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let execution = queue.shift(); execution; execution = queue.shift()) {
        const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
        runs++;
        for (const record of await transitionsInHistory(history.events ?? [], client.options.loadedDataConverter.payloadCodecs)) {
          const key = `${record.kind}/${record.snapshot.id}/${record.snapshot.resourceVersion}`;
          if (!byVersion.has(key)) byVersion.set(key, record);
        }
      }
    }),
  );
  return { transitions: [...byVersion.values()], runs };
}

/**
 * The order transitions happened in: their instant (the snapshot's updatedAt, the workflow's
 * clock when it decided), then the version within a resource. Writing in this order gives each
 * listing event the partners that were in force when it happened.
 */
export function inOrderOfHappening(transitions: readonly TransitionRecord[]): TransitionRecord[] {
  const at = (t: TransitionRecord) => Date.parse(t.snapshot.updatedAt ?? t.snapshot.createdAt);
  return [...transitions].sort((a, b) => at(a) - at(b) || (a.snapshot.id === b.snapshot.id ? a.snapshot.resourceVersion - b.snapshot.resourceVersion : 0));
}

/** Whether the database holds no resource and no event yet (a rebuild writes into an empty one). */
export async function isEmpty(db: Db, resources: readonly Resource<any, any>[] = RESOURCES): Promise<boolean> {
  for (const table of ['events', ...resources.map((r) => r.table)]) {
    const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from ${table}`);
    if (rows[0].n > 0) return false;
  }
  return true;
}

/** Rebuilds the read model and the outbox of the resources in scope from Temporal into `db`. */
export async function rebuildReadModel(client: Client, db: Db, settings: ProjectionSettings, scope: RebuildScope = {}, resources: readonly Resource<any, any>[] = RESOURCES): Promise<RebuildReport> {
  const started = performance.now();
  const { transitions, runs } = await collectTransitions(client, scope, resources);
  const writer = createTransitionWriter(db, settings, resources);
  const first = new Map<string, number>();
  let events = 0;
  for (const record of inOrderOfHappening(transitions)) {
    // `whole`: what history holds is all there is; a resource whose first runs are gone starts where its history does.
    await writer.writeTransitions([record], { whole: true });
    events += record.events.length;
    const key = `${record.kind}/${record.snapshot.id}`;
    first.set(key, Math.min(first.get(key) ?? Infinity, record.snapshot.resourceVersion));
  }
  return {
    runs,
    resources: first.size,
    transitions: transitions.length,
    events,
    incomplete: [...first].filter(([, v]) => v > 1).map(([k]) => k),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * What the read model holds that Temporal does not, and that an in-place rebuild carries from the
 * database it replaces (scripts/rebuild-read-model.ts --in-place): credentials' hashes (also in
 * the connectors' workflow state, and the seed's from its files), revoked tokens and used client
 * assertions (a token revoked before stays revoked; an assertion is not replayed), keys' last
 * uses, the idempotency store (a retry after the rebuild gets its first answer), the purge's
 * tombstones (their records' histories are gone), holds and the operators' purge runs, and the webhook subscriptions with
 * their deliveries (their positions in the feed mapped by event id, below). Rate counters and
 * command intents are transient; the feed's histories start anew (a cursor from before answers
 * 410 FEED_HISTORY_CHANGED and resumes from the start: events keep their ids).
 */
export const CARRIED_TABLES = [
  'client_secret_hashes', 'revoked_tokens', 'client_assertion_jtis', 'credential_uses', 'idempotency_keys',
  'purged_records', 'retention_holds', 'retention_runs', 'webhook_subscriptions', 'webhook_deliveries',
] as const;

/**
 * The transparency log (read-model/transparency-log.ts): its leaves' salts and order are nowhere
 * else, and checkpoints signed over it are in participants' hands. Carried before the rebuild
 * writes a transition, so that the writer finds each record already logged (by its key) and the
 * rebuilt log is the old one, extended by any record it lacked, never a second log.
 */
export const LOG_TABLES = ['transparency_log_leaves', 'transparency_log_nodes', 'transparency_log_checkpoints'] as const;

/** Copies tables' rows from `from` into the rebuilt `into` (rows already there stay); the rows copied per table. */
export async function carryOver(from: Db, into: Db, tables: readonly string[] = CARRIED_TABLES): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const { rows } = await from.query<{ row: unknown }>(`select to_jsonb(t) as row from ${table} t`);
    for (const { row } of rows) {
      await into.query(`insert into ${table} select * from jsonb_populate_record(null::${table}, $1::jsonb) on conflict do nothing`, [JSON.stringify(row)]);
    }
    counts[table] = rows.length;
  }
  if (tables === CARRIED_TABLES) await mapFeedPositions(from, into);
  return counts;
}

/**
 * The feed's positions are transaction ids of the database that wrote the events: a subscription's
 * cursor and its deliveries' positions are moved to where the same events (by id) stand in the
 * rebuilt feed. A cursor after no event at all stays at the start.
 */
async function mapFeedPositions(from: Db, into: Db): Promise<void> {
  await into.query(`update webhook_deliveries d set event_tx = e.tx_id, event_seq = e.seq from events e where e.id = d.event_id`);
  const { rows: subscriptions } = await into.query<{ id: string; cursor_tx: string; cursor_seq: string }>(`select id, cursor_tx::text, cursor_seq::text from webhook_subscriptions`);
  for (const s of subscriptions) {
    const { rows: last } = await from.query<{ id: string }>(
      `select id from events where (tx_id, seq) <= ($1::text::xid8, $2::bigint) order by tx_id desc, seq desc limit 1`,
      [s.cursor_tx, s.cursor_seq],
    );
    const { rows: at } = last.length ? await into.query<{ tx: string; seq: string }>(`select tx_id::text as tx, seq::text from events where id = $1`, [last[0].id]) : { rows: [] };
    await into.query(`update webhook_subscriptions set cursor_tx = $2::text::xid8, cursor_seq = $3::bigint where id = $1`, [s.id, at[0]?.tx ?? '0', at[0]?.seq ?? '0']);
  }
}
