// The writer of answered transitions (core/entities.ts writeAnswer over read-model/transition-store.ts)
// under random interleavings: senders whose answers arrive in any order, senders that die before
// they write or in the middle of their transaction, the workflow's own flush at any moment, and
// at the end the sweep of what the dead left. Whatever happens, the read model converges to
// history: the row at the last version, every event once, in version order per subject in the
// feed's order, and nothing of a transition that did not happen. On PGlite in this process (the
// same SQL as PostgreSQL; PostgreSQL's own concurrency is proven by test/execution.test.ts's
// twenty concurrent corrections).
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../core/db';
import { writeAnswer, type TransitionStore } from '../../core/entities';
import type { TransitionRecord } from '../../domain/transition';
import { openReadModel } from '../../read-model/database';
import { createTransitionStore } from '../../read-model/transition-store';
import { createTransitionWriter } from '../../read-model/projection';
import { RESOURCES } from '../../domain/registry';
import { testCounter } from '../fixtures/flow-resources';

let dir: string;
let db: Db;
let store: TransitionStore;
let writer: ReturnType<typeof createTransitionWriter>;
const SETTINGS = { schemaBase: 'https://schemas.test', eventSource: 'https://test/events' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pcx-writer-'));
  db = await openReadModel({ dataDir: dir }, [...RESOURCES, testCounter]);
  store = createTransitionStore(db, SETTINGS, [...RESOURCES, testCounter]);
  writer = createTransitionWriter(db, SETTINGS, [...RESOURCES, testCounter]);
}, 60000);

afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

let sequence = 0;
const uuid = (n: number) => `0190a6f0-${String(n).padStart(4, '0')}-7000-8000-${String(sequence).padStart(12, '0')}`;

/** The history of one counter: versions 1..n, each with its event. */
function history(n: number): TransitionRecord[] {
  sequence++;
  const id = uuid(0);
  return Array.from({ length: n }, (_, i) => {
    const version = i + 1;
    const at = new Date(Date.UTC(2026, 10, 28, 9, 0, version)).toISOString();
    return {
      kind: 'test-counter',
      snapshot: { id, resourceVersion: version, ownerOrganizationId: 'org-test', createdAt: at, updatedAt: at, status: 'live', count: i, appliedBy: [] },
      events: [{ id: uuid(version), time: at, type: 'pcx.test-counter.changed.v1', audience: ['org-test'] }],
      correlationId: 'writer-test',
      causationId: `command-${sequence}-${version}`,
    };
  });
}

type Fate = 'writes' | 'dies-before' | 'dies-in-transaction';
interface Plan {
  /** The order in which the senders' turns come (indexes of versions). */
  order: number[];
  fates: Fate[];
  /** After which turn the workflow flushes (none: -1). */
  flushAfter: number;
}

const plans = fc.integer({ min: 1, max: 7 }).chain((n) =>
  fc.record({
    order: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
    fates: fc.array(fc.constantFrom<Fate>('writes', 'writes', 'dies-before', 'dies-in-transaction'), { minLength: n, maxLength: n }),
    flushAfter: fc.integer({ min: -1, max: n - 1 }),
  }),
);

async function play(records: TransitionRecord[], plan: Plan) {
  // The workflow's list of unwritten transitions: all of them until it flushes.
  let unwritten = [...records];
  const flush = async () => {
    await store.write(unwritten, 'flush', true);
    unwritten = [];
  };
  const dead: TransitionRecord[] = [];
  for (const [turn, index] of plan.order.entries()) {
    const transition = records[index];
    const fate = plan.fates[index];
    await store.intend({ commandId: transition.causationId, workflowId: `test-counter/${transition.snapshot.id}`, kind: 'test-counter' }, 3);
    if (fate === 'writes') await writeAnswer(store, transition, transition.causationId, async () => unwritten);
    else if (fate === 'dies-before') dead.push(transition);
    else {
      // Killed after its rows and events were written, before the commit: all of it is rolled back.
      const killed = writer.writeTransitions([...unwritten.filter((t) => t.snapshot.resourceVersion < transition.snapshot.resourceVersion), transition], {
        whole: true,
        after: async () => {
          throw new Error('killed in the transaction');
        },
      });
      await expect(killed).rejects.toThrow('killed');
      dead.push(transition);
    }
    if (turn === plan.flushAfter) await flush();
  }
  // The sweep: Temporal answers again what the dead were answered; it is written as theirs would have been.
  for (const transition of dead) await writeAnswer(store, transition, transition.causationId, async () => unwritten);
}

test('the read model converges to history under any order of answers, dead senders and flushes', async () => {
  await fc.assert(
    fc.asyncProperty(plans, async (plan) => {
      const records = history(plan.order.length);
      const id = records[0].snapshot.id;
      await play(records, plan);
      const row = (await db.query<{ resource_version: number }>('select resource_version from test_counters where id = $1', [id])).rows[0];
      expect(row.resource_version).toBe(records.length);
      const events = await db.query<{ id: string; resource_version: number }>('select id, resource_version from events where resource_id = $1 order by tx_id, seq', [id]);
      // Every event once, in version order in the feed's order, none that history lacks.
      expect(events.rows.map((e) => e.resource_version)).toEqual(records.map((r) => r.snapshot.resourceVersion));
      expect(events.rows.map((e) => e.id)).toEqual(records.map((r) => r.events[0].id));
      // Every intent of a sender that wrote is cleared with its write; the dead's with the sweep's.
      const intents = await db.query('select command_id from command_intents where command_id = any($1)', [records.map((r) => r.causationId)]);
      expect(intents.rows).toEqual([]);
    }),
    { numRuns: 60 },
  );
}, 120000);

test('a transition ahead of the row is not written alone: the gap is reported, and the row never moves back', async () => {
  const records = history(3);
  const id = records[0].snapshot.id;
  expect(await store.write([records[2]], 'c3')).toEqual({ gapAfter: 0 });
  expect(await store.write([records[0], records[1], records[2]], 'c3', true)).toEqual({ version: 3 });
  // An older answer arriving late changes nothing.
  expect(await store.write([records[0]], 'c1')).toEqual({ version: 3 });
  const row = (await db.query<{ resource_version: number }>('select resource_version from test_counters where id = $1', [id])).rows[0];
  expect(row.resource_version).toBe(3);
  expect((await db.query('select 1 from events where resource_id = $1', [id])).rows).toHaveLength(3);
});

test('intents: due only after their grace, claimed by one sweeper at a time, cleared with the write of their answer', async () => {
  const records = history(2);
  const [first, second] = records;
  await store.intend({ commandId: first.causationId, workflowId: 'test-counter/x', kind: 'test-counter' }, 0);
  await store.intend({ commandId: second.causationId, workflowId: 'test-counter/x', kind: 'test-counter' }, 60);
  const due = (await store.due(100)).filter((i) => [first.causationId, second.causationId].includes(i.commandId));
  expect(due.map((i) => i.commandId)).toEqual([first.causationId]);
  expect(due[0].ageSeconds).toBeGreaterThanOrEqual(0);
  // Claimed: another sweeper does not get it during the lease.
  expect((await store.due(100)).map((i) => i.commandId)).not.toContain(first.causationId);
  // The write of the answer clears its intent; a write on someone else's behalf (undefined) clears none.
  await store.write([first], undefined, true);
  expect((await db.query('select 1 from command_intents where command_id = $1', [first.causationId])).rows).toHaveLength(1);
  await store.write([first], first.causationId);
  expect((await db.query('select 1 from command_intents where command_id = $1', [first.causationId])).rows).toHaveLength(0);
  await store.forget(second.causationId);
  expect((await db.query('select 1 from command_intents where command_id = $1', [second.causationId])).rows).toHaveLength(0);
});
