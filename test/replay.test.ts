// Replay: recorded histories of the entity workflows and their flows must replay without
// nondeterminism against the current workflow code. test/histories/ holds the histories the first
// release's code recorded (`*-first-release-*`: a relationship's lifecycle, a whole match, a
// tender to its execution reference), the one write path workflows/entity.ts describes: a change
// to workflow code that would break a run the release left running fails here. Such a change goes
// behind Temporal's patching (`patched`, later `deprecatePatch`), or, where no run may survive it,
// with a new data-folder format (core/data-folder.ts, DATA_FORMAT) and fixtures recorded anew
// beside these. This run's fresh histories are replayed too; the last test shows a change is caught.
//
// Record fixtures with RECORD_HISTORIES=matching,partner-relationship,execution (any of them) and
// RECORD_AS=<name> (files <kind>-<name>-...), on the postgres project:
//   RECORD_HISTORIES=matching RECORD_AS=second-release npx jest --selectProjects postgres --testPathPatterns test/replay.test.ts
// Never re-record the existing ones without a reason: they prove that running workflows upgrade.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { activeRelationship, Connector, freshOrgs, sleep, testEnv } from './helpers';
import { decide, get, market, waitFor, waitProposals } from './matching-fixtures';
import { acceptedMatch, issuedTender, tenderCommand } from './tenders.fixtures';
import { handoverBody } from './execution-handovers.fixtures';
import { iso, OFFERS } from './listing-fixtures';
import { testWorkflowCode } from './workflow-code';

const FIXTURES = join(__dirname, 'histories');
/** A replay is CPU work: on a busy machine (the suite's three processes, a browser) it took over the default 60 s. */
const REPLAY_TIMEOUT_MS = 240_000;
/** The kinds of fixtures this run records (RECORD_HISTORIES, comma-separated), and their name (RECORD_AS). */
const RECORD = new Set((process.env.RECORD_HISTORIES ?? '').split(',').filter(Boolean));
const RECORD_AS = process.env.RECORD_AS ? `${process.env.RECORD_AS}-` : '';

/** Writes this run's fresh histories as fixtures `<prefix>-<RECORD_AS><name>-<i>.json` when RECORD_HISTORIES names `prefix`. */
function record(prefix: string, fresh: Recorded[], name: (h: Recorded) => string) {
  if (!RECORD.has(prefix)) return;
  mkdirSync(FIXTURES, { recursive: true });
  fresh.forEach((h, i) => writeFileSync(join(FIXTURES, `${prefix}-${RECORD_AS}${name(h)}-${i}.json`), historyToJSON(h.history)));
}
/** The workflows as the worker runs them (the suite's bundle when there is one; replay has no sinks). */
function replayCode() {
  const { sinks: _sinks, ...code } = testWorkflowCode() as ReturnType<typeof testWorkflowCode> & { sinks?: unknown };
  return code;
}
// Keep replay workers quiet; the expected nondeterminism of the second test is asserted, not logged.
Runtime.install({ logger: new DefaultLogger('ERROR') });

async function replay(histories: Array<{ workflowId: string; history: any }>) {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(replayCode(), histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

type Recorded = { workflowId: string; history: any };

/** Every run of each workflow's chain, newest first (continue-as-new links them). */
async function histories(workflowIds: string[]): Promise<Recorded[]> {
  const connection = await Connection.connect({ address: testEnv().temporalAddress });
  const client = new Client({ connection });
  const out: Recorded[] = [];
  try {
    for (const workflowId of workflowIds) {
      let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
      const seen = new Set<string>();
      while (runId && !seen.has(runId)) {
        seen.add(runId);
        const history: any = await client.workflow.getHandle(workflowId, runId).fetchHistory();
        out.push({ workflowId: `${workflowId}@${runId}`, history });
        const first: any = history.events?.[0]?.workflowExecutionStartedEventAttributes;
        runId = first?.continuedExecutionRunId || undefined;
      }
    }
  } finally {
    await connection.close();
  }
  return out;
}

/**
 * The flows of `types` that the given resources' transitions started (their ids begin with the
 * resource's workflow id), once none of them runs any more: their histories are whole.
 */
async function endedFlows(owners: string[], types: string[]): Promise<string[]> {
  const connection = await Connection.connect({ address: testEnv().temporalAddress });
  try {
    const client = new Client({ connection });
    const mine = owners.map((o) => `WorkflowId STARTS_WITH "${o}"`).join(' OR ');
    await waitFor('the flows to end', async () => ((await client.workflow.count(`(${mine}) AND ExecutionStatus = "Running"`)).count === 0 ? true : undefined));
    const flows: string[] = [];
    const typed = types.map((t) => `'${t}'`).join(', ');
    for await (const wf of client.workflow.list({ query: `WorkflowType IN (${typed}) AND (${mine})` })) {
      if (owners.some((o) => wf.workflowId.startsWith(o))) flows.push(wf.workflowId);
    }
    return flows;
  } finally {
    await connection.close();
  }
}

/** The recorded fixtures whose file names start with `prefix`. */
function recorded(prefix = ''): Recorded[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json') && f.startsWith(prefix))
    .map((f) => ({ workflowId: f, history: historyFromJSON(JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'))) }));
}

// The fresh histories are made as the file starts, the three lifecycles at once (each on
// organizations of its own; they mostly wait on the broker: a timer, flows); each test below
// awaits its own and replays it. A lifecycle that fails fails its test.
type Lifecycle = Promise<{ workflowIds: string[]; flows: string[] }>;
let lifecycles: { relationship: Lifecycle; matching: Lifecycle; execution: Lifecycle };
beforeAll(() => {
  lifecycles = { relationship: relationshipLifecycle(), matching: matchingLifecycle(), execution: executionLifecycle() };
  for (const l of Object.values(lifecycles)) l.catch(() => undefined);
});

/** A relationship's lifecycle with every kind of step: create, commands, a refused command, a timer, continue-as-new. */
async function relationshipLifecycle(): Lifecycle {
  const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
  // Its end (a deadline, the last command of the history) after the commands below, also on a busy
  // machine: with 4 s, commands slowed by load met the end first, and the run never continued as new.
  const r = await activeRelationship(a, b, { effectiveUntil: new Date(Date.now() + 12_000).toISOString() });
  let v = 3;
  await a.command(`/partner-relationships/${r.id}/suspend`, v++, { reason: 'replay' });
  await a.command(`/partner-relationships/${r.id}/reactivate`, 99); // refused by the validator: not in history
  await a.command(`/partner-relationships/${r.id}/reactivate`, v++);
  await a.command(`/partner-relationships/${r.id}/suspend`, v++, { reason: 'replay again' });
  for (let i = 0; i < 120 && (await a.get(`/partner-relationships/${r.id}`)).body.status !== 'terminated'; i++) await sleep(250);
  return { workflowIds: [`partner-relationship/${r.id}`], flows: [] };
}

/** A whole match: publication, matching, reservation, proposal, decisions, acceptance flow. */
async function matchingLifecycle(): Lifecycle {
  const m = await market();
  const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
  const first = (await decide(m.shipper, proposal, 'accept')).body;
  expect((await decide(m.carrier, first, 'accept')).body.decisionState).toBe('COMMITTED');
  // The flows these resources' transitions started, once the supersede/release flows, if any, have ended.
  const owners = [`capacity-offer/${m.offer.id}/`, `load-request/${m.request.id}/`, `match-proposal/${proposal.id}/`];
  const flows = await endedFlows(owners, ['matchListingFlow', 'acceptProposalFlow', 'releaseProposalFlow', 'endProposalsFlow']);
  return { workflowIds: [`capacity-offer/${m.offer.id}`, `load-request/${m.request.id}`, `match-proposal/${proposal.id}`], flows };
}

/**
 * From an accepted match: a tender with both decisions, the commitment flow, the handover and its
 * import (the reference flow), milestones, a replayed milestone, an outcome and a correction.
 */
async function executionLifecycle(): Lifecycle {
  const m = await acceptedMatch();
  const { tender } = await issuedTender(m);
  const one = (await tenderCommand(m.carrier, tender, 'decisions', { decision: 'accept', revision: 1 })).body;
  const accepted = (await tenderCommand(m.shipper, one, 'decisions', { decision: 'accept', revision: 1 })).body;
  const commitment = await get(m.shipper, `/transport-commitments/${accepted.commitmentId}`);
  const handover = (await m.shipper.post('/execution-handovers', handoverBody(commitment))).body;
  await m.carrier.post(`/execution-handovers/${handover.id}/acknowledgements`, { outcome: 'imported', destinationExternalReference: { system: 'tms', type: 'trip', value: 'T-1' } });
  const referenceId = handover.executionReferenceId;
  const milestone = { executionReferenceId: referenceId, milestone: 'pickedUp', occurredAt: new Date().toISOString(), deduplicationKey: 'r-1' };
  await m.carrier.post('/execution-updates', milestone);
  await m.carrier.post('/execution-updates', milestone);
  const first = (await m.carrier.post('/execution-outcomes', { executionReferenceId: referenceId, status: 'inProgress', deduplicationKey: 'r-o', schemaVersion: 'v0' })).body;
  await m.shipper.post(`/execution-outcomes/${first.id}/corrections`, { observedOutcomeVersion: 1, deduplicationKey: 'r-c', status: 'disputed', schemaVersion: 'v0', correctionReason: 'replay' });
  // The flows, once the reference flows have ended.
  const flows = await endedFlows([`transport-tender/${tender.id}/`, `execution-handover/${handover.id}/`], ['commitTenderFlow', 'handoverToReferenceFlow']);
  return {
    workflowIds: [`transport-tender/${tender.id}`, `transport-commitment/${commitment.id}`, `execution-handover/${handover.id}`, `execution-reference/${referenceId}`],
    flows,
  };
}

test('recorded and fresh relationship histories replay without nondeterminism', async () => {
  const { workflowIds } = await lifecycles.relationship;
  const fresh = await histories(workflowIds);
  expect(fresh.length).toBeGreaterThanOrEqual(2); // the test broker continues-as-new after 6 commands
  record('partner-relationship', fresh, () => 'lifecycle');
  const old = recorded('partner-relationship-');
  expect(old.length).toBeGreaterThan(0);
  expect(await replay([...old, ...fresh])).toEqual([]);
}, REPLAY_TIMEOUT_MS);

test('recorded and fresh matching histories (offer, request, proposal, flows) replay without nondeterminism', async () => {
  const { workflowIds, flows } = await lifecycles.matching;
  expect(flows.length).toBeGreaterThanOrEqual(2); // the request's matching and the acceptance
  const fresh = await histories([...workflowIds, ...flows]);
  expect(fresh.length).toBeGreaterThanOrEqual(4);
  record('matching', fresh, (h) => h.workflowId.split('/')[0]);
  const old = recorded('matching-');
  expect(old.length).toBeGreaterThan(0);
  expect(await replay([...old, ...fresh])).toEqual([]);
}, REPLAY_TIMEOUT_MS);

test('recorded and fresh execution histories (tender, commitment, handover, reference, flows) replay without nondeterminism', async () => {
  const { workflowIds, flows } = await lifecycles.execution;
  expect(flows.length).toBeGreaterThanOrEqual(3); // the commitment, the handover, its import
  const fresh = await histories([...workflowIds, ...flows]);
  expect(fresh.length).toBeGreaterThanOrEqual(7);
  record('execution', fresh, (h) => h.workflowId.split('/')[0]);
  const old = recorded('execution-');
  expect(old.length).toBeGreaterThan(0);
  expect(await replay([...old, ...fresh])).toEqual([]);
}, REPLAY_TIMEOUT_MS);

test('search attributes are upserted when they change, not on every command; such a history replays', async () => {
  const [owner] = await Promise.all(freshOrgs(1).map((o) => Connector.of(o)));
  const created = await owner.post('/capacity-offers', OFFERS.body({ expiresAt: undefined }));
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  // Two changes that leave kind, owner, partner and status as they were, then one that changes the status.
  expect((await owner.patch(`/capacity-offers/${id}`, { expiresAt: iso(3600_000) }, { 'if-match': '"1"' })).status).toBe(200);
  expect((await owner.patch(`/capacity-offers/${id}`, { expiresAt: iso(7200_000) }, { 'if-match': '"2"' })).status).toBe(200);
  expect((await owner.command(`/capacity-offers/${id}/publish`, 3, {})).status).toBe(200);
  const fresh = await histories([`capacity-offer/${id}`]);
  const upserts = fresh.flatMap((h) => (h.history.events ?? []).map((e: any) => Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {})).filter((fields: string[]) => fields.length));
  // The create's and the publish's; the patch's marker once (Temporal records the patch a run uses as TemporalChangeVersion).
  expect(upserts.filter((fields) => fields.includes('PcxStatus'))).toHaveLength(2);
  expect(upserts.filter((fields) => !fields.includes('PcxStatus'))).toEqual([['TemporalChangeVersion']]);
  expect(await replay(fresh)).toEqual([]);
}, REPLAY_TIMEOUT_MS);

test('a changed workflow is caught: replaying against code with another command order fails', async () => {
  // Guard that the replay test can fail at all: the recorded relationship's first run (its create)
  // replayed against the entity workflow whose create now starts a flow (an activity scheduled
  // where the history answered the Update from the decision) must be nondeterministic.
  const first = recorded('partner-relationship-').find((h) => !h.history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId)!;
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath: require.resolve('./fixtures/broken-workflows') }, [first])) {
    if (result.error) failures.push(`${result.error.name}: ${result.error.message}`);
  }
  expect(failures).toEqual([expect.stringMatching(/DeterminismViolationError|[Nn]ondetermin/)]);
  // The same history against the real code replays.
  expect(await replay([first])).toEqual([]);
}, REPLAY_TIMEOUT_MS);
