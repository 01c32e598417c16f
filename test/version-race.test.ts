// Issue 34: "under heavy proposal churn a withdraw sent with the version a list had just shown was
// refused 'observed resourceVersion 24, current is 23', and a moment later the offer read as
// version 25". The list reads the read model, the refusal is the workflow's (workflows/entity.ts
// `decide`): the read model was ahead of the workflow. How: an offer under churn takes many
// commands (every proposal reserves capacity on it and releases it), so it continues as new
// often; before it does, it writes what is unwritten (an activity). Commands that reached the
// workflow in the very task in which that activity's result arrived were admitted by the run that
// was ending (its validator did not know it was ending). The first ran at once; the others waited
// for the mutex, a few microtasks behind the main loop, which meanwhile took the state for the
// next run and continued as new; they were still answered by the old run, with versions N+1...,
// and their senders wrote those into the read model (what the list showed). The next run started
// from an older version: it refused the list's version as "current is" one less, then gave that
// version, and the next, to the commands that followed ("a moment later 25").
// Fixed in 847676d (workflows/entity.ts, runEntity and Entity.validate): once a run has decided to
// continue as new its validator admits nothing (`closing`: the sender sends the command again, to
// the next run), and the loop waits for the handlers again after its flush.
//
// This test builds that task deterministically: the offer's run continues as new after five
// commands of churn, its flush is held while the workflow worker is stopped, then the flush
// completes and three more reservations are sent before a new workflow worker comes up, so all
// of them arrive in one workflow task. The read model must never be ahead of the workflow: a
// withdraw sent with the version the owner reads is accepted. (With both parts of that fix taken
// out it fails with the refusal: "observed resourceVersion 8, current is 7".) Its own task
// queue, workers and read model (a schema of its own on PostgreSQL, an embedded PGlite on the
// pglite project), the real activities and the real sender.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { Entities, type EntityAnswer } from '../core/entities';
import type { Db } from '../core/db';
import { openReadModel } from '../read-model/database';
import { createTransitionStore } from '../read-model/transition-store';
import { capacityOffer, type CapacityOffer } from '../domain/capacity-offer';
import { BROKER, type Command } from '../domain/machine';
import { snapshotQuery } from '../workflows/entity';
import { ENGINE, testEnv } from './helpers';
import { offerBody } from './listing-fixtures';
import { testWorkflowCode } from './workflow-code';
import { adminQuery, schemaUrl } from './pg-admin';

const SETTINGS = { schemaBase: 'https://schemas.test', eventSource: 'https://test/events' };
const ORG = 'org-version-race';

let db: Db;
let schema: string | undefined;
let connection: Connection;
let client: Client;
const workers: Array<{ worker: Worker; run: Promise<void> }> = [];

beforeAll(async () => {
  if (ENGINE === 'postgres') {
    schema = `pcx_version_race_${process.pid}_${Date.now()}`;
    await adminQuery(`create schema ${schema}`);
    db = await openReadModel({ databaseUrl: schemaUrl(schema), dataDir: '' });
  } else {
    db = await openReadModel({ dataDir: mkdtempSync(join(tmpdir(), 'pcx-version-race-')) });
  }
  connection = await Connection.connect({ address: testEnv().temporalAddress });
  client = new Client({ connection });
}, 60000);

afterAll(async () => {
  for (const w of workers) if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
  await Promise.allSettled(workers.map((w) => w.run));
  await connection?.close();
  await db?.close();
  if (schema) await adminQuery(`drop schema if exists ${schema} cascade`);
});

async function start(options: Partial<Parameters<typeof Worker.create>[0]> & { taskQueue: string }) {
  const worker = await Worker.create({ connection: await NativeConnection.connect({ address: testEnv().temporalAddress }), ...options });
  const entry = { worker, run: worker.run() };
  workers.push(entry);
  return entry;
}

async function stop(entry: { worker: Worker; run: Promise<void> }) {
  entry.worker.shutdown();
  await entry.run;
}

function snapshotOf<S>(answer: EntityAnswer<any>): S {
  if (!answer.ok) throw new Error(`refused: ${JSON.stringify('refusal' in answer ? answer.refusal : answer)}`);
  return answer.snapshot as S;
}

test('a command that reaches an offer in the task that continues it as new: the read model is never ahead of the workflow, the version it shows is accepted', async () => {
  const taskQueue = `pcx-version-race-${ENGINE}-${Date.now()}`;
  // Five commands per run: the fifth continues it as new.
  const placement = { taskQueue, settings: { continueAsNewAfterEvents: 10000, continueAsNewAfterCommands: 5 } };
  const entities = new Entities(client, placement, createTransitionStore(db, SETTINGS));
  const activities = createActivities(db, SETTINGS, entities);

  // The run's flush before it continues as new (the only persistTransitions here: effects are
  // written by startFlows) is held until the gate opens; an attempt held past its 3 s times out
  // and is tried again, held again.
  let flushing!: () => void;
  const flushStarted = new Promise<void>((resolve) => (flushing = resolve));
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const persistTransitions = activities.persistTransitions;
  activities.persistTransitions = async (batch) => {
    flushing();
    await gate;
    await persistTransitions(batch);
  };

  // Activities on a worker of their own, so the workflow worker can be stopped while they go on.
  // The offer's effects (matching after publish and after each release, the end of its open
  // proposals when it is withdrawn) run here too; this read model has no load request to match.
  const activityWorker = await start({ taskQueue, activities });
  const workflowWorker = () => start({ taskQueue, ...testWorkflowCode(), stickyQueueScheduleToStartTimeout: '1s' });
  let firstWorkflows: { worker: Worker; run: Promise<void> } | undefined = await workflowWorker();

  const id = randomUUID();
  const workflowId = capacityOffer.workflowId(id);
  const owner = { kind: 'connector' as const, organizationId: ORG, clientId: 'client-version-race' };
  const command = (name: string, payload: unknown, extra: Partial<Command> = {}): Command => ({ name, commandId: randomUUID(), actor: BROKER, payload, correlationId: 'version-race-test', ...extra });
  // What matching sends for each proposal it makes: a reservation on the offer.
  const reserve = () => command('partialMatch', { proposalId: randomUUID(), requestId: randomUUID(), organizationId: 'org-shipper-race', capacity: { weightKg: 1000, palletSpaces: 2 } });
  // The version the owner's list shows (the read model's row), and the workflow's own.
  const listed = async () => (await db.query<{ resource_version: number }>('select resource_version from capacity_offers where id = $1', [id])).rows[0]?.resource_version;
  const workflowVersion = async () => ((await client.workflow.getHandle(workflowId).query(snapshotQuery)) as CapacityOffer).resourceVersion;
  try {
    // v1 create, v2 publish, then proposal churn on the offer: v3 a reservation, v4 its release,
    // v5 another reservation. The fifth command continues the run as new: closing, then the
    // flush of v5 (held here).
    snapshotOf(await entities.create(capacityOffer, id, command('create', offerBody(), { actor: owner })));
    snapshotOf(await entities.send(capacityOffer, id, command('publish', {}, { actor: owner, expectedVersion: 1 })));
    const first = reserve();
    snapshotOf(await entities.send(capacityOffer, id, first));
    snapshotOf(await entities.send(capacityOffer, id, command('unmatch', { proposalId: (first.payload as { proposalId: string }).proposalId })));
    expect(snapshotOf<CapacityOffer>(await entities.send(capacityOffer, id, reserve())).resourceVersion).toBe(5);
    await flushStarted;

    // The workflow worker goes away; the flush completes; three more reservations of the churn are
    // sent. All of them and the flush's result wait for one workflow task.
    await stop(firstWorkflows);
    firstWorkflows = undefined;
    const completed = async () => ((await client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
    const before = await completed();
    open();
    for (let i = 0; (await completed()) === before; i++) {
      if (i > 200) throw new Error('the flush did not complete');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const churn: Array<Promise<EntityAnswer<any>>> = [];
    for (let i = 0; i < 3; i++) {
      churn.push(entities.send(capacityOffer, id, reserve()));
      await new Promise((resolve) => setTimeout(resolve, 300)); // each Update reaches the server, in this order
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await workflowWorker();

    // Each is answered once, with versions 6, 7 and 8 in some order; the read model shows what
    // the workflow holds, never a version ahead of it.
    const versions = (await Promise.all(churn)).map((a) => snapshotOf<CapacityOffer>(a).resourceVersion);
    expect(versions.sort()).toEqual([6, 7, 8]);
    expect(await listed()).toBe(8);

    // The owner withdraws with the version the list shows: accepted (its open proposals end with
    // it). Before the fix: refused, "observed resourceVersion 8, current is 7" (or 6).
    const withdrawn = await entities.send(capacityOffer, id, command('withdraw', { reason: 'sold' }, { actor: owner, expectedVersion: await listed() }));
    expect('refusal' in withdrawn ? withdrawn.refusal.detail : withdrawn).toMatchObject({ ok: true, snapshot: { status: 'withdrawn', resourceVersion: 9 } });
    expect(await listed()).toBe(9);
    expect(await workflowVersion()).toBe(9);
  } finally {
    open();
    if (firstWorkflows) await stop(firstWorkflows);
    await Promise.all(workers.filter((w) => w !== activityWorker && w.worker.getState() === 'RUNNING').map(stop));
    await stop(activityWorker);
  }
}, 90000);
