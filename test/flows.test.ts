// The cross-resource flow mechanism (docs/architecture.md, "Cross-resource flows"), proven with
// two test-only resource kinds (test/fixtures/flow-resources.ts): a transition's effect on another
// resource survives a worker restart between the transition and the effect, and is applied
// exactly once even when the activity that sends it crashes after sending. Real Temporal, real
// read model (a schema of its own on PostgreSQL, an embedded PGlite on the pglite project), the
// real activities; the workers run in this process so the test can stop them at will.
import { existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { Entities } from '../core/entities';
import type { Db } from '../core/db';
import { openReadModel } from '../read-model/database';
import { createTransitionStore } from '../read-model/transition-store';
import { RESOURCES } from '../domain/registry';
import { effectWorkflowId, type EntityInput } from '../domain/resource';
import { snapshotQuery } from '../workflows/entity';
import type { Command, Envelope } from '../domain/machine';
import type { CommandAnswer } from '../domain/transition';
import { testCounter, testTrigger, type TestCounter, type TestTrigger } from './fixtures/flow-resources';
import { ENGINE, testEnv } from './helpers';

/** The test-only kinds: their standard tables are made from their definitions, as the registry's are. */
const TEST_KINDS = [testCounter, testTrigger];
import { adminQuery, schemaUrl } from './pg-admin';

let db: Db;
let schema: string | undefined;
let connection: Connection;
let client: Client;
/** The test workflows (fixtures/flow-workflows.ts), bundled once for every worker of the run. */
let workflowBundle: { code: string };
const workers: Array<{ worker: Worker; run: Promise<void> }> = [];

beforeAll(async () => {
  if (ENGINE === 'postgres') {
    schema = `pcx_flows_${process.pid}_${Date.now()}`;
    await adminQuery(`create schema ${schema}`);
    db = await openReadModel({ databaseUrl: schemaUrl(schema), dataDir: '' }, TEST_KINDS);
  } else {
    db = await openReadModel({ dataDir: mkdtempSync(join(tmpdir(), 'pcx-flows-')) }, TEST_KINDS);
  }
  connection = await Connection.connect({ address: testEnv().temporalAddress });
  client = new Client({ connection });
  workflowBundle = { code: await flowWorkflowsBundle() };
}, 60000);

/**
 * webpack once per run, not once per worker: the bundle is kept beside the shared stack's (its
 * folder is the run's own), so the second engine's run of this file finds it.
 */
async function flowWorkflowsBundle(): Promise<string> {
  const file = join(testEnv().root, 'flow-workflows-bundle.js');
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./fixtures/flow-workflows'), logger: quiet });
  writeFileSync(`${file}.tmp`, code);
  renameSync(`${file}.tmp`, file);
  return code;
}

afterAll(async () => {
  for (const w of workers) if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
  await Promise.allSettled(workers.map((w) => w.run));
  await connection?.close();
  await db?.close();
  if (schema) await adminQuery(`drop schema if exists ${schema} cascade`);
});

type SendCommand = ReturnType<typeof createActivities>['sendCommand'];

type StartFlows = ReturnType<typeof createActivities>['startFlows'];

async function startWorker(taskQueue: string, wrapSend?: (send: SendCommand) => SendCommand, wrapStart?: (start: StartFlows) => StartFlows) {
  const entities = new Entities(client, { taskQueue, settings: { continueAsNewAfterEvents: 10000, continueAsNewAfterCommands: 500 } }, createTransitionStore(db, { schemaBase: 'https://schemas.test', eventSource: 'https://test/events' }, [...RESOURCES, testCounter, testTrigger]));
  const activities = createActivities(db, { schemaBase: 'https://schemas.test', eventSource: 'https://test/events' }, entities, [testCounter, testTrigger]);
  if (wrapSend) activities.sendCommand = wrapSend(activities.sendCommand);
  if (wrapStart) activities.startFlows = wrapStart(activities.startFlows);
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address: testEnv().temporalAddress }),
    taskQueue,
    workflowBundle,
    activities,
  });
  const entry = { worker, run: worker.run() };
  workers.push(entry);
  return entry;
}

async function stop(entry: { worker: Worker; run: Promise<void> }) {
  entry.worker.shutdown();
  await entry.run;
}

const command = (name: string, payload: unknown = {}): Command => ({
  name,
  commandId: crypto.randomUUID(),
  actor: { kind: 'connector', organizationId: 'org-test', clientId: 'client-test' },
  expectedVersion: undefined,
  payload,
  correlationId: 'flows-test',
});

/** Creates through the raw Update, as no sender that writes would: the workflow writes it (with its first effect, or the gap is filled). */
async function create<S extends Envelope>(resource: typeof testCounter | typeof testTrigger, taskQueue: string, input: EntityInput, payload: unknown): Promise<S> {
  const id = crypto.randomUUID();
  const answer = await client.workflow.executeUpdateWithStart<any, CommandAnswer<S>, [Command]>(resource.updates.create.name, {
    args: [command('create', payload)],
    startWorkflowOperation: new WithStartWorkflowOperation(resource.workflowType, {
      workflowId: resource.workflowId(id),
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
    }),
  });
  return answer.snapshot;
}

test('an effect survives a worker restart between its transition and the effect, and is applied exactly once', async () => {
  const entities = `pcx-flows-${ENGINE}-${Date.now()}`;
  const flows = `${entities}-flows`;
  // Flows run on a queue of their own here, so the test can hold them back: no worker polls it yet.
  const input: EntityInput = { kind: '', settings: { continueAsNewAfterEvents: 10000, continueAsNewAfterCommands: 500, flowTaskQueue: flows } };
  const first = await startWorker(entities);

  const counter = await create<TestCounter>(testCounter, entities, { ...input, kind: 'test-counter' }, {});
  const trigger = await create<TestTrigger>(testTrigger, entities, { ...input, kind: 'test-trigger' }, { counterId: counter.id });
  const fire = command('fire');
  const fired = (await client.workflow.getHandle(testTrigger.workflowId(trigger.id)).executeUpdate(testTrigger.updates.fire, { args: [{ ...fire, expectedVersion: 1 }], updateId: fire.commandId })) as CommandAnswer<TestTrigger>;
  // A transition with effects is written by the workflow before they start: nothing left to its sender.
  expect(fired).toMatchObject({ snapshot: { fired: 1, resourceVersion: 2 }, transition: null });

  // The transition is persisted and its flow started; the effect has not happened yet.
  const flowId = effectWorkflowId(testTrigger.workflowId(trigger.id), fire.commandId, 0);
  expect((await client.workflow.getHandle(flowId).describe()).status.name).toBe('RUNNING');
  const counterHandle = client.workflow.getHandle(testCounter.workflowId(counter.id));
  expect(await counterHandle.query(snapshotQuery)).toMatchObject({ count: 0 });
  const row = async (id: string) => (await db.query('select resource_version, doc from test_triggers where id = $1 union all select resource_version, doc from test_counters where id = $1', [id])).rows[0];
  expect((await row(trigger.id)).doc.fired).toBe(1);

  // The worker goes away with the effect pending; a new one comes up. Its sendCommand crashes once
  // right after the command reached the counter, so the activity is retried with the same id.
  await stop(first);
  const crashedAfterSend = new Set<string>();
  await startWorker(entities);
  await startWorker(flows, (send) => async (order) => {
    const outcome = await send(order);
    if (!crashedAfterSend.has(order.commandId)) {
      crashedAfterSend.add(order.commandId);
      throw new Error('crash after the command was sent, before the activity reported');
    }
    return outcome;
  });

  expect(await client.workflow.getHandle(flowId).result()).toBe(1);
  expect(crashedAfterSend.size).toBe(1);
  const after = (await counterHandle.query(snapshotQuery)) as TestCounter;
  expect(after).toMatchObject({ count: 1, resourceVersion: 2 });
  expect(after.appliedBy).toEqual([`${flowId}:increment`]);
  expect((await row(counter.id)).doc).toMatchObject({ count: 1 });

  // A second transition starts a second flow: a second, distinct effect.
  const again = command('fire');
  await client.workflow.getHandle(testTrigger.workflowId(trigger.id)).executeUpdate(testTrigger.updates.fire, { args: [{ ...again, expectedVersion: 2 }], updateId: again.commandId });
  expect(await client.workflow.getHandle(effectWorkflowId(testTrigger.workflowId(trigger.id), again.commandId, 0)).result()).toBe(2);
  expect(((await counterHandle.query(snapshotQuery)) as TestCounter).appliedBy).toHaveLength(2);
}, 120000);

// A connector reads a resource as soon as the read model shows it and commands it at once. A
// transition with effects is written by the workflow (an activity) before its effects start and
// before the workflow takes its new state in: a command in that window must wait for it, not be
// refused against the old state (a decision on a proposal just created was answered 404 under
// load before this was fixed).
test('a command that arrives while the previous transition is being written is decided against the new state', async () => {
  const entities = `pcx-flows-gate-${ENGINE}-${Date.now()}`;
  const input: EntityInput = { kind: '', settings: { continueAsNewAfterEvents: 10000, continueAsNewAfterCommands: 500 } };
  let written!: () => void;
  const rowWritten = new Promise<void>((resolve) => (written = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // The transition is written by the activity that then starts its effects; held in between.
  const worker = await startWorker(entities, undefined, (start) => async (starts) => {
    if (starts.transitions?.some((t) => t.kind === 'test-trigger' && t.snapshot.resourceVersion === 2)) {
      await createTransitionStore(db, { schemaBase: 'https://schemas.test', eventSource: 'https://test/events' }, [...RESOURCES, testCounter, testTrigger]).write(starts.transitions, undefined, true);
      written();
      await held; // the row is written; the workflow does not know it yet
    }
    await start(starts);
  });
  try {
    const counter = await create<TestCounter>(testCounter, entities, { ...input, kind: 'test-counter' }, {});
    const trigger = await create<TestTrigger>(testTrigger, entities, { ...input, kind: 'test-trigger' }, { counterId: counter.id });
    const handle = client.workflow.getHandle(testTrigger.workflowId(trigger.id));
    const fire = command('fire');
    const firing = handle.executeUpdate(testTrigger.updates.fire, { args: [{ ...fire, expectedVersion: 1 }], updateId: fire.commandId });
    await rowWritten;
    const { rows } = await db.query<{ resource_version: number }>('select resource_version from test_triggers where id = $1', [trigger.id]);
    expect(rows[0].resource_version).toBe(2);
    const again = { ...command('fire'), expectedVersion: rows[0].resource_version };
    const firingAgain = handle.executeUpdate(testTrigger.updates.fire, { args: [again], updateId: again.commandId });
    await new Promise((resolve) => setTimeout(resolve, 500)); // the update reaches the workflow while it is held
    release();
    expect(await firing).toMatchObject({ snapshot: { resourceVersion: 2, fired: 1 } });
    expect(await firingAgain).toMatchObject({ snapshot: { resourceVersion: 3, fired: 2 } });
  } finally {
    release();
    await stop(worker);
  }
}, 60000);
