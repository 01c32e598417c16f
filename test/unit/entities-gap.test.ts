// A sender whose answered transition does not follow the read model's row fills the gap from the
// workflow's Query (core/entities.ts). A Temporal that fails that Query (it does at once while the
// workflow's task is being retried under load) must not turn an answered command into a broker
// error: the Query is asked again, and past the deadline the outcome is unknown to the sender
// (EntityUnavailable, a 503), its intent left for the sweep. A workflow failure path, so Temporal is
// a fake here; the real one is test/command-sweep.test.ts's.
import { Entities, EntityUnavailable, type TransitionStore } from '../../core/entities';
import { executionReference } from '../../domain/execution-reference';
import type { TransitionRecord } from '../../domain/transition';

const transition = (version: number): TransitionRecord => ({
  kind: executionReference.kind,
  snapshot: { id: 'r', resourceVersion: version, status: 'created' } as any,
  events: [],
  correlationId: 'c',
  causationId: `command-${version}`,
});

/** A Temporal whose Update answers version 3 and whose Query fails `failures` times, then lists version 2. */
function fakeClient(failures: number) {
  let queries = 0;
  const handle = {
    workflowId: 'execution-reference/r',
    executeUpdate: async () => ({ snapshot: transition(3).snapshot, transition: transition(3) }),
    query: async () => {
      queries++;
      if (queries <= failures) throw Object.assign(new Error('Failed to query Workflow'), { code: 9 });
      return { transitions: [transition(2), transition(3)], known: true };
    },
  };
  const client = { workflow: { getHandle: () => handle }, withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() };
  return { client: client as any, queries: () => queries };
}

/** A read model at version 1: a write starting past 2 is a gap. */
function storeAtVersion1() {
  const written: number[][] = [];
  const forgotten: string[] = [];
  const store: TransitionStore = {
    intend: async () => undefined,
    write: async (transitions, _commandId, whole) => {
      if (!whole && transitions[0].snapshot.resourceVersion !== 2) return { gapAfter: 1 };
      written.push(transitions.map((t) => t.snapshot.resourceVersion));
      return { version: transitions[transitions.length - 1].snapshot.resourceVersion };
    },
    forget: async (commandId) => void forgotten.push(commandId),
    due: async () => [],
  };
  return { store, written, forgotten };
}

const command = { name: 'recordUpdate', commandId: 'command-3', actor: { kind: 'connector' as const, organizationId: 'org-a', clientId: 'c' }, payload: {}, correlationId: 'c' };

test('a Query that fails while the task is retried is asked again: the gap and the answer are written, in order', async () => {
  const { client, queries } = fakeClient(2);
  const { store, written } = storeAtVersion1();
  const answer = await new Entities(client, { taskQueue: 'q', settings: {} as any }, store, 5_000).send(executionReference, 'r', command);
  expect(answer).toMatchObject({ ok: true, snapshot: { resourceVersion: 3 } });
  expect(queries()).toBe(3);
  expect(written).toEqual([[2, 3]]);
});

test('a Query that keeps failing past the deadline: the outcome is unknown (a 503 to the caller), the intent kept for the sweep', async () => {
  const { client } = fakeClient(Infinity);
  const { store, written, forgotten } = storeAtVersion1();
  const sent = new Entities(client, { taskQueue: 'q', settings: {} as any }, store, 1_200).send(executionReference, 'r', command);
  await expect(sent).rejects.toBeInstanceOf(EntityUnavailable);
  expect(written).toEqual([]);
  expect(forgotten).toEqual([]);
});
