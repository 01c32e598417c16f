// The intents of commands in flight (read-model/schema.sql, command_intents): written before an
// Update is sent, cleared with the write of its answer. What remains after its sender's grace is
// swept by any process (core/entities.ts, sweep): a sender that died between Temporal's answer
// and its own write loses nothing.
import type { Db, Queryable } from '../core/db';

export interface CommandIntent {
  commandId: string;
  workflowId: string;
  kind: string;
  /** Seconds since the intent was first written. */
  ageSeconds: number;
}

/** Records that `commandId` is about to be sent; a retry of the same command keeps the first time. */
export async function insertIntent(db: Queryable, intent: Omit<CommandIntent, 'ageSeconds'>, graceSeconds: number): Promise<void> {
  await db.query(
    `insert into command_intents (command_id, workflow_id, kind, sweep_after) values ($1, $2, $3, now() + make_interval(secs => $4))
     on conflict (command_id) do update set sweep_after = excluded.sweep_after`,
    [intent.commandId, intent.workflowId, intent.kind, graceSeconds],
  );
}

export async function deleteIntent(db: Queryable, commandId: string): Promise<void> {
  await db.query('delete from command_intents where command_id = $1', [commandId]);
}

/**
 * Intents past their grace, claimed for `leaseSeconds` (another sweeper skips them meanwhile; one
 * that dies mid-sweep leaves them to the next after the lease).
 */
export async function claimDueIntents(db: Db, limit: number, leaseSeconds: number): Promise<CommandIntent[]> {
  const { rows } = await db.query<{ command_id: string; workflow_id: string; kind: string; age: number }>(
    `update command_intents set sweep_after = now() + make_interval(secs => $2)
      where command_id in (select command_id from command_intents where sweep_after <= now() order by sweep_after limit $1 for update skip locked)
      returning command_id, workflow_id, kind, extract(epoch from now() - created_at)::float8 as age`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => ({ commandId: r.command_id, workflowId: r.workflow_id, kind: r.kind, ageSeconds: Number(r.age) }));
}

/** How many intents are waiting (readiness and metrics: a growing number means writes are failing). */
export async function countIntents(db: Queryable): Promise<{ pending: number; oldestSeconds: number }> {
  const { rows } = await db.query<{ pending: string; oldest: number | null }>(
    'select count(*)::text as pending, extract(epoch from now() - min(created_at))::float8 as oldest from command_intents',
  );
  return { pending: Number(rows[0]?.pending ?? 0), oldestSeconds: Math.round(Number(rows[0]?.oldest ?? 0)) };
}
