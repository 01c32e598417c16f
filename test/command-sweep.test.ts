// A command at the price of one Update (docs/decisions.md): the sender writes the answered
// transition itself, so a sender that dies between Temporal's answer and its write must lose
// nothing. Here the senders are this test process's own core/entities.ts, half of which "die" at
// that moment (their write fails), twenty at once on one execution reference: the live ones fill
// the gaps the dead leave (in version order, from the workflow's list of unwritten transitions),
// and the broker's sweep writes the rest from Temporal's record of the Updates within seconds,
// without any retry. The read model and the feed converge to history: every milestone once, the
// reference at the last version, the subject's versions in feed order. PostgreSQL: the test
// process writes into the read model, which on PGlite only the broker's process may open.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { Entities, EntityUnavailable, type TransitionStore } from '../core/entities';
import { openDb, type Db } from '../core/db';
import { executionReference } from '../domain/execution-reference';
import type { Command } from '../domain/machine';
import { testEnv, testTransitionStore } from './helpers';
import { decide, market, waitFor, waitProposals } from './matching-fixtures';
import { wholeFeed } from './feed';

let db: Db;
let connection: Connection;
beforeAll(async () => {
  const env = testEnv();
  db = await openDb({ databaseUrl: env.databaseUrl, dataDir: env.dataDir, poolSize: 4 });
  connection = await Connection.connect({ address: env.temporalAddress });
});
afterAll(async () => {
  await connection?.close();
  await db?.close();
});

test('twenty milestones at once on one reference, half their senders dead after the answer: all written within seconds, once each, in version order', async () => {
  const m = await market();
  const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
  await decide(m.carrier, (await decide(m.shipper, proposal, 'accept')).body, 'accept');
  const reference = await waitFor('the execution reference', async () => (await m.carrier.get(`/execution-references?proposal=${proposal.id}`)).body.items?.[0]);
  const start = reference.resourceVersion as number;

  const store = testTransitionStore(db);
  const dead = new Set<string>();
  const dying: TransitionStore = {
    ...store,
    write: (transitions, commandId, whole) => (commandId && dead.has(commandId) ? Promise.reject(new Error('the sender died before its write')) : store.write(transitions, commandId, whole)),
  };
  const entities = new Entities(new Client({ connection }), { taskQueue: testEnv().taskQueue, settings: { continueAsNewAfterEvents: 10000, continueAsNewAfterCommands: 500 } }, dying);
  const commands: Command[] = Array.from({ length: 20 }, (_, i) => ({
    name: 'recordUpdate',
    commandId: randomUUID(),
    actor: { kind: 'connector', organizationId: m.carrier.id, clientId: m.carrier.org.clientId },
    // A second apart in the last half minute: the broker refuses times ahead of its now or before the reference (beyond 5 minutes of skew).
    payload: { milestone: 'inTransit', occurredAt: new Date(Date.now() - (30 - i) * 1000).toISOString(), deduplicationKey: `sweep-${i}` },
    correlationId: 'command-sweep-test',
  }));
  commands.forEach((c, i) => i % 2 && dead.add(c.commandId));
  const sent = Date.now();
  const answers = await Promise.allSettled(commands.map((c) => entities.send(executionReference, reference.id, c)));
  // A live sender whose command found no answer within the deadline (twenty Updates on one
  // workflow on a saturated machine) does what a connector does with a 503: sends it again, with
  // the same id, and gets the one outcome. Any other refusal says why.
  const unanswered = answers.flatMap((a, i) => (a.status === 'rejected' && a.reason instanceof EntityUnavailable && !dead.has(commands[i].commandId) ? [i] : []));
  for (const i of unanswered) answers[i] = (await Promise.allSettled([entities.send(executionReference, reference.id, commands[i])]))[0];
  if (unanswered.length) console.log(`command sweep: ${unanswered.length} live sender(s) answered only when they sent again (the deadline passed under load)`);
  const outcome = (a: PromiseSettledResult<unknown>, i: number) => (a.status === 'rejected' && !dead.has(commands[i].commandId) ? `rejected: ${String(a.reason)}` : a.status);
  expect(answers.map(outcome)).toEqual(commands.map((c) => (dead.has(c.commandId) ? 'rejected' : 'fulfilled')));

  // No one retries: the sweep finishes what the dead senders left. The read model converges to
  // the workflow's state (other transitions of the reference may come in between: the version
  // history holds, not a count).
  const client = new Client({ connection });
  const history = async () => ((await client.workflow.getHandle(executionReference.workflowId(reference.id)).query('snapshot')) as any).resourceVersion as number;
  let seen = '';
  const written = await waitFor('every milestone in the read model', async () => {
    const r = (await m.carrier.get(`/execution-references/${reference.id}`)).body;
    seen = `row ${r.resourceVersion}, start ${start}, workflow ${await history()}`;
    return r.resourceVersion >= start + 20 && r.resourceVersion === (await history()) ? r : undefined;
  }, 20000).catch(async (err) => {
    // Diagnostics: each run of the reference's workflow, the version it started from and the versions its Updates answered.
    const lines: string[] = [];
    let runId: string | undefined = (await client.workflow.getHandle(executionReference.workflowId(reference.id)).describe()).runId;
    const decode = (p: any) => { try { return JSON.parse(Buffer.from(p?.payloads?.[0]?.data ?? []).toString()); } catch { return undefined; } };
    while (runId) {
      const h: any = await client.workflow.getHandle(executionReference.workflowId(reference.id), runId).fetchHistory();
      const first = h.events[0].workflowExecutionStartedEventAttributes;
      const input = decode(first.input);
      const answers = h.events.filter((e: any) => e.workflowExecutionUpdateCompletedEventAttributes).map((e: any) => { const o = decode(e.workflowExecutionUpdateCompletedEventAttributes.outcome?.success); return o?.snapshot?.resourceVersion ?? o?.resourceVersion ?? 'refused'; });
      const can = h.events.find((e: any) => e.workflowExecutionContinuedAsNewEventAttributes);
      const canInput = can ? decode(can.workflowExecutionContinuedAsNewEventAttributes.input)?.state?.resourceVersion : undefined;
      lines.push(`run ${runId.slice(-6)}: started at ${input?.state?.resourceVersion}, answered ${answers.join(',')}, continued at ${canInput}`);
      runId = first.continuedExecutionRunId || undefined;
    }
    throw new Error(`${err.message}: ${seen}\n${lines.join('\n')}`);
  });
  const seconds = (Date.now() - sent) / 1000;
  console.log(`command sweep: 10 of 20 senders dead after the answer; all written ${seconds.toFixed(1)} s after sending`);
  const updates = (await m.carrier.get(`/execution-references/${reference.id}/updates?limit=100`)).body.items as any[];
  expect(updates.map((u) => u.deduplicationKey).filter((k: string) => k.startsWith('sweep-')).sort()).toEqual(commands.map((_, i) => `sweep-${i}`).sort());
  // The feed: the reference's versions each once, strictly increasing in the feed's order, up to the row's.
  const versions = (await wholeFeed(m.carrier)).filter((e: any) => e.subject === `execution-references/${reference.id}`).map((e: any) => Number(e.resourceversion));
  expect(versions).toEqual([...versions].sort((a, b) => a - b));
  expect(new Set(versions).size).toBe(versions.length);
  expect(versions.at(-1)).toBe(written.resourceVersion);
  expect(versions.filter((v) => v > start)).toHaveLength(written.resourceVersion - start);
  // The dead senders' intents are settled by the sweep (Temporal answers their Updates again).
  await waitFor('no intent left behind', async () => {
    const { rows } = await db.query('select command_id from command_intents where command_id = any($1)', [commands.map((c) => c.commandId)]);
    return rows.length === 0 ? true : undefined;
  }, 20000);

  // A last command whose sender dies, with no one after it to fill the gap: only the sweep writes it.
  const last: Command = { ...commands[0], commandId: randomUUID(), payload: { milestone: 'delivered', occurredAt: new Date().toISOString(), deduplicationKey: 'sweep-last' } };
  dead.add(last.commandId);
  const lastSent = Date.now();
  await expect(entities.send(executionReference, reference.id, last)).rejects.toThrow('died');
  const before = written.resourceVersion;
  await waitFor('the last milestone, written by the sweep', async () => ((await m.carrier.get(`/execution-references/${reference.id}`)).body.resourceVersion > before ? true : undefined), 20000);
  expect(((await m.carrier.get(`/execution-references/${reference.id}/updates?limit=100`)).body.items as any[]).map((u) => u.deduplicationKey)).toContain('sweep-last');
  const sweptAfter = (Date.now() - lastSent) / 1000;
  console.log(`command sweep: a lone dead sender's transition written by the sweep ${sweptAfter.toFixed(1)} s after sending`);
}, 120000);
