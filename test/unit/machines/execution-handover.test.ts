// Every transition row and refusal of the ExecutionHandover machine (docs/decisions.md,
// "ExecutionHandover and acknowledgement"), in-process: the create by the commitment's issuing
// organization, the redelivery rule, every acknowledgement outcome from every status, content
// deduplication, finality, and the field classification.
import {
  executionHandover,
  MAX_ACKNOWLEDGEMENTS,
  redeliver,
  type AcknowledgementPayload,
  type CommitmentFacts,
  type ExecutionHandover,
  type HandoverContext,
  type HandoverStatus,
} from '../../../domain/execution-handover';
import { referenceIdOf } from '../../../domain/execution-reference';
import { RefusalError } from '../../../domain/machine';
import { apply, command, connector, HOUR, later, next, NOW, operator, refusal, system } from './harness';

const R = executionHandover;
const ISSUER = 'org-issuer';
const EXECUTOR = 'org-executor';
const OUTSIDER = 'org-outsider';
const REF = { system: 'exec-tms', type: 'trip', value: 'T-1' };

const commitment = (over: Partial<CommitmentFacts> = {}): CommitmentFacts => ({
  id: 'commitment-1',
  status: 'active',
  commitmentVersion: 1,
  tenderId: 'tender-1',
  issuingOrganizationId: ISSUER,
  executingOrganizationId: EXECUTOR,
  movementScope: 'fullTransport',
  stops: [
    { sequence: 1, role: 'pickup', timeWindow: { start: later(24 * HOUR), end: later(28 * HOUR) } },
    { sequence: 2, role: 'delivery', timeWindow: { start: later(36 * HOUR), end: later(48 * HOUR) } },
  ],
  ...over,
});

const stop = (sequence: number, role: string, start: number, end: number) => ({
  sequence,
  role,
  location: { name: `site ${sequence}`, address: { lines: [`Kai ${sequence}`], city: 'Hamburg', countryCode: 'DE' } },
  timeWindow: { start: later(start * HOUR), end: later(end * HOUR) },
  contacts: [{ role: role as 'pickup', name: 'Gate', phone: '+4940123456' }],
});
const pkg = (stops = [stop(1, 'pickup', 25, 26), stop(2, 'delivery', 36, 48)]) => ({ stops, cargo: { description: 'six pallets' } });
const payload = (over: Record<string, unknown> = {}) => ({ commitmentId: 'commitment-1', package: pkg(), sourceExternalReferences: [{ system: 'issuer-tms', type: 'order', value: 'O-1' }], ...over });
const digest = (value = 'a'.repeat(64)) => ({ algorithm: 'SHA-256' as const, canonicalization: 'RFC 8785' as const, fields: ['commitmentId', 'package', 'sourceExternalReferences'], value });
const context = (over: Partial<HandoverContext> = {}): HandoverContext => ({ commitment: commitment(), packageDigest: digest(), ...over });
const create = (org = ISSUER, p: Record<string, unknown> = payload(), ctx: HandoverContext = context()) => command('create', connector(org), p, { context: ctx });
const ack = (outcome: string, extra: Partial<AcknowledgementPayload> = {}, org = EXECUTOR) => command('acknowledge', connector(org), { outcome, ...extra });

const offered = (): ExecutionHandover => next(R, undefined, create()).state;
/** The payload of each outcome that the machine accepts. */
const valid: Record<string, Partial<AcknowledgementPayload>> = {
  imported: { destinationExternalReference: REF },
  linked: { destinationExternalReference: { ...REF, value: 'T-existing' } },
  rejected: { reason: 'the consignee address is not served', reasonCode: 'ADDRESS_NOT_SERVED' },
  quarantined: { reason: 'hazmat data needs review' },
};
const reach = (status: HandoverStatus): ExecutionHandover => (status === 'offered' ? offered() : next(R, offered(), ack(status, valid[status])).state);

describe('create (POST /execution-handovers)', () => {
  test('by the issuing organization of an active commitment: offered, owned by the issuer, linked to the commitment; event offered to both', () => {
    const t = next(R, undefined, create());
    expect(t.state).toMatchObject({
      status: 'offered',
      resourceVersion: 1,
      ownerOrganizationId: ISSUER,
      commitmentId: 'commitment-1',
      commitmentVersion: 1,
      tenderId: 'tender-1',
      issuingOrganizationId: ISSUER,
      executingOrganizationId: EXECUTOR,
      movementScope: 'fullTransport',
      schemaVersion: 'v0',
      package: pkg(),
      sourceExternalReferences: [{ system: 'issuer-tms', type: 'order', value: 'O-1' }],
      packageDigest: digest(),
      offeredAt: NOW,
      acknowledgements: [],
    });
    expect(t.state.destinationExternalReference).toBeUndefined();
    expect(t.events).toEqual([{ type: 'pcx.execution-handover.offered.v1', audience: [ISSUER, EXECUTOR] }]);
    // A direct tender's commitment has no match, so no execution reference to tell.
    expect(t.state.executionReferenceId).toBeUndefined();
    expect(t.effects).toEqual([]);
    expect(R.machine.deadline()).toBeUndefined();
    expect(R.participants!(t.state)).toEqual([ISSUER, EXECUTOR]);
  });

  test('from a match: the match\'s execution reference learns the handover and the issuer\'s records, then the executor\'s record on import or link', () => {
    const proposalId = '01a1fd30-05ff-70e9-bbcd-a29491e72bb4';
    const referenceId = referenceIdOf(proposalId);
    const t = next(R, undefined, create(ISSUER, payload(), context({ commitment: commitment({ originatingProposalId: proposalId }) })));
    expect(t.state.executionReferenceId).toBe(referenceId);
    expect(t.effects).toEqual([
      { flow: 'handoverToReferenceFlow', input: { referenceId, handoverId: t.state.id, sourceExternalReferences: [{ system: 'issuer-tms', type: 'order', value: 'O-1' }] } },
    ]);
    expect(next(R, t.state, ack('quarantined', valid.quarantined)).effects).toEqual([]);
    expect(next(R, t.state, ack('rejected', valid.rejected)).effects).toEqual([]);
    for (const outcome of ['imported', 'linked']) {
      expect(next(R, t.state, ack(outcome, valid[outcome])).effects).toEqual([
        { flow: 'handoverToReferenceFlow', input: { referenceId, destinationExternalReferences: [valid[outcome].destinationExternalReference] } },
      ]);
    }
  });

  test('an exact slot inside the agreed window, or the agreed window itself, fits', () => {
    expect(next(R, undefined, create(ISSUER, payload({ package: pkg([stop(1, 'pickup', 24, 28), stop(2, 'delivery', 40, 41)]) }))).state.status).toBe('offered');
    // The stops may come in any order; they are matched by sequence.
    expect(next(R, undefined, create(ISSUER, payload({ package: pkg([stop(2, 'delivery', 36, 48), stop(1, 'pickup', 24, 28)]) }))).state.status).toBe('offered');
  });

  test.each<[string, () => ReturnType<typeof command>, string]>([
    ['the executing organization', () => create(EXECUTOR), 'ACTOR_NOT_PERMITTED'],
    ['a third organization', () => create(OUTSIDER), 'RESOURCE_NOT_FOUND'],
    ['the broker', () => command('create', system, payload(), { context: context() }), 'ACTOR_NOT_PERMITTED'],
    ['an operator', () => command('create', operator, payload(), { context: context() }), 'ACTOR_NOT_PERMITTED'],
    ['a commitment the API could not find', () => create(ISSUER, payload(), context({ commitment: undefined })), 'RESOURCE_NOT_FOUND'],
    ['facts of another commitment', () => create(ISSUER, payload({ commitmentId: 'commitment-2' })), 'RESOURCE_NOT_FOUND'],
    ['a superseded commitment', () => create(ISSUER, payload(), context({ commitment: commitment({ status: 'superseded' }) })), 'INVALID_STATE_TRANSITION'],
    ['a cancelled commitment', () => create(ISSUER, payload(), context({ commitment: commitment({ status: 'cancelled' }) })), 'INVALID_STATE_TRANSITION'],
    ['no package digest', () => create(ISSUER, payload(), context({ packageDigest: undefined })), 'VALIDATION_FAILED'],
    ['no source reference', () => create(ISSUER, payload({ sourceExternalReferences: [] })), 'VALIDATION_FAILED'],
  ])('refused: %s', (_name, cmd, code) => {
    expect(refusal(R, undefined, cmd())).toBe(code);
  });

  test('a commitment that is not active answers its status', () => {
    const outcome = apply(R, undefined, create(ISSUER, payload(), context({ commitment: commitment({ status: 'cancelled' }) })));
    expect(outcome).toMatchObject({ ok: false, code: 'INVALID_STATE_TRANSITION', extensions: { currentState: 'cancelled' } });
  });

  test.each<[string, ReturnType<typeof stop>[], string[]]>([
    ['an agreed stop missing', [stop(1, 'pickup', 25, 26)], ['/package/stops']],
    ['a stop the commitment lacks', [stop(1, 'pickup', 25, 26), stop(2, 'delivery', 36, 48), stop(3, 'delivery', 40, 41)], ['/package/stops/2/sequence']],
    ['a stop twice', [stop(1, 'pickup', 25, 26), stop(1, 'pickup', 25, 26), stop(2, 'delivery', 36, 48)], ['/package/stops/1/sequence']],
    ['another role than agreed', [stop(1, 'delivery', 25, 26), stop(2, 'delivery', 36, 48)], ['/package/stops/0/role']],
    ['a window starting before the agreed one', [stop(1, 'pickup', 23, 26), stop(2, 'delivery', 36, 48)], ['/package/stops/0/timeWindow']],
    ['a window ending after the agreed one', [stop(1, 'pickup', 25, 26), stop(2, 'delivery', 40, 49)], ['/package/stops/1/timeWindow']],
    ['a window ending before it starts', [stop(1, 'pickup', 26, 25), stop(2, 'delivery', 36, 48)], ['/package/stops/0/timeWindow/end']],
  ])('the package must fit the commitment: %s', (_name, stops, pointers) => {
    const outcome = apply(R, undefined, create(ISSUER, payload({ package: pkg(stops) })));
    if (outcome.ok) throw new Error('accepted');
    expect(outcome.code).toBe('VALIDATION_FAILED');
    expect((outcome.extensions!.errors as Array<{ pointer: string }>).map((e) => e.pointer)).toEqual(pointers);
  });
});

describe('redelivery (a repeated POST for the same commitment)', () => {
  const redelivery = (org: string, value: string) => {
    try {
      return { ok: true as const, state: redeliver(offered(), command('create', connector(org), payload(), { context: context({ packageDigest: digest(value) }) })) };
    } catch (err) {
      if (err instanceof RefusalError) return { ok: false as const, ...err.refusal };
      throw err;
    }
  };

  test('the same delivery (equal digest) is the existing handover, unchanged', () => {
    expect(redelivery(ISSUER, 'a'.repeat(64))).toEqual({ ok: true, state: offered() });
  });

  test.each<[string, string, string, string]>([
    ['another package', ISSUER, 'b'.repeat(64), 'HANDOVER_CONFLICT'],
    ['by the executing organization', EXECUTOR, 'a'.repeat(64), 'ACTOR_NOT_PERMITTED'],
    ['by a third organization', OUTSIDER, 'a'.repeat(64), 'RESOURCE_NOT_FOUND'],
  ])('refused: %s', (_name, org, value, code) => {
    expect(redelivery(org, value)).toMatchObject({ ok: false, code });
  });

  test('the conflict names the existing handover and its status', () => {
    expect(redelivery(ISSUER, 'b'.repeat(64))).toMatchObject({ extensions: { handoverId: offered().id, currentState: 'offered', packageDigest: 'a'.repeat(64) } });
  });
});

describe('acknowledge (POST /execution-handovers/{id}/acknowledgements)', () => {
  // [from, outcome, next status, final]
  test.each<[HandoverStatus, string, HandoverStatus]>([
    ['offered', 'imported', 'imported'],
    ['offered', 'linked', 'linked'],
    ['offered', 'rejected', 'rejected'],
    ['offered', 'quarantined', 'quarantined'],
    ['quarantined', 'imported', 'imported'],
    ['quarantined', 'linked', 'linked'],
    ['quarantined', 'rejected', 'rejected'],
  ])('%s + %s -> %s: recorded, versioned, event acknowledged to both', (from, outcome, to) => {
    const before = reach(from);
    const t = next(R, before, ack(outcome, valid[outcome]), later(HOUR));
    expect(t.state.status).toBe(to);
    expect(t.state.resourceVersion).toBe(before.resourceVersion + 1);
    expect(t.state.acknowledgements).toHaveLength(before.acknowledgements.length + 1);
    expect(t.state.acknowledgements.at(-1)).toEqual({
      id: expect.any(String),
      outcome,
      ...valid[outcome],
      acknowledgedAt: later(HOUR),
      acknowledgedBy: { organizationId: EXECUTOR, clientId: `client-of-${EXECUTOR}` },
      observedHandoverVersion: before.resourceVersion,
    });
    expect(t.events).toEqual([{ type: 'pcx.execution-handover.acknowledged.v1', audience: [ISSUER, EXECUTOR] }]);
    // Only a successful acknowledgement sets the destination reference; only a final one acknowledgedAt.
    expect(t.state.destinationExternalReference).toEqual(outcome === 'imported' || outcome === 'linked' ? valid[outcome].destinationExternalReference : undefined);
    expect(t.state.acknowledgedAt).toBe(to === 'quarantined' ? undefined : later(HOUR));
    expect((R.terminalStatuses as readonly string[]).includes(to)).toBe(to !== 'quarantined');
    // The package and the commitment link never change.
    expect(t.state.package).toEqual(before.package);
    expect(t.state.commitmentId).toBe(before.commitmentId);
  });

  test('quarantined + another quarantine (a new reason): recorded, still quarantined', () => {
    const q = reach('quarantined');
    const t = next(R, q, ack('quarantined', { reason: 'the UN number is unknown' }), later(HOUR));
    expect(t.state).toMatchObject({ status: 'quarantined', quarantinedAt: later(HOUR), resourceVersion: q.resourceVersion + 1 });
    expect(t.state.acknowledgements.map((a) => a.reason)).toEqual(['hazmat data needs review', 'the UN number is unknown']);
  });

  test.each<HandoverStatus>(['quarantined', 'imported', 'linked', 'rejected'])('in %s, a repeat of a recorded acknowledgement changes nothing (duplicate delivery)', (status) => {
    const h = reach(status);
    expect(next(R, h, ack(status, valid[status]))).toEqual({ state: h, events: [] });
  });

  test('after a final acknowledgement, a repeat of an earlier quarantine is a duplicate too', () => {
    const imported = next(R, reach('quarantined'), ack('imported', valid.imported)).state;
    expect(next(R, imported, ack('quarantined', valid.quarantined))).toEqual({ state: imported, events: [] });
  });

  test.each<[HandoverStatus, string, Partial<AcknowledgementPayload>]>([
    ['imported', 'rejected', valid.rejected],
    ['imported', 'linked', valid.linked],
    ['imported', 'imported', { destinationExternalReference: { ...REF, value: 'T-2' } }],
    ['imported', 'quarantined', valid.quarantined],
    ['linked', 'imported', valid.imported],
    ['rejected', 'imported', valid.imported],
    ['rejected', 'rejected', { reason: 'another reason' }],
    ['rejected', 'quarantined', valid.quarantined],
  ])('%s is final: a different %s is ACKNOWLEDGEMENT_CONFLICT with the final acknowledgement', (status, outcome, extra) => {
    const h = reach(status);
    const outcomeOf = apply(R, h, ack(outcome, extra));
    expect(outcomeOf).toMatchObject({ ok: false, code: 'ACKNOWLEDGEMENT_CONFLICT', extensions: { currentState: status, acknowledgement: h.acknowledgements.at(-1) } });
  });

  test.each<[string, () => ReturnType<typeof command>, string]>([
    ['by the issuing organization', () => ack('imported', valid.imported, ISSUER), 'ACTOR_NOT_PERMITTED'],
    ['by a third organization', () => ack('imported', valid.imported, OUTSIDER), 'ACTOR_NOT_PERMITTED'],
    ['by the broker', () => command('acknowledge', system, { outcome: 'imported', ...valid.imported }), 'ACTOR_NOT_PERMITTED'],
    ['imported without the destination reference', () => ack('imported', { reason: 'x' }), 'VALIDATION_FAILED'],
    ['linked without the destination reference', () => ack('linked'), 'VALIDATION_FAILED'],
    ['rejected without a reason', () => ack('rejected', { destinationExternalReference: REF }), 'VALIDATION_FAILED'],
    ['quarantined with a blank reason', () => ack('quarantined', { reason: '  ' }), 'VALIDATION_FAILED'],
    ['an unknown outcome', () => ack('received', { reason: 'x' }), 'VALIDATION_FAILED'],
  ])('refused: %s', (_name, cmd, code) => {
    expect(refusal(R, offered(), cmd())).toBe(code);
  });

  test('the refusal names the missing field', () => {
    expect(apply(R, offered(), ack('imported'))).toMatchObject({ extensions: { errors: [{ pointer: '/destinationExternalReference' }] } });
    expect(apply(R, offered(), ack('rejected'))).toMatchObject({ extensions: { errors: [{ pointer: '/reason' }] } });
  });

  test(`at most ${MAX_ACKNOWLEDGEMENTS} acknowledgements are recorded`, () => {
    let h = reach('offered');
    for (let i = 0; i < MAX_ACKNOWLEDGEMENTS; i++) h = next(R, h, ack('quarantined', { reason: `attempt ${i}` })).state;
    expect(refusal(R, h, ack('quarantined', { reason: 'one more' }))).toBe('INVALID_STATE_TRANSITION');
    // A final acknowledgement is refused too; a duplicate is still answered.
    expect(refusal(R, h, ack('imported', valid.imported))).toBe('INVALID_STATE_TRANSITION');
    expect(next(R, h, ack('quarantined', { reason: 'attempt 0' })).state).toBe(h);
  });

  test('a command the machine does not know is refused', () => {
    expect(refusal(R, offered(), command('withdraw', connector(ISSUER), { reason: 'x' }))).toBe('INVALID_STATE_TRANSITION');
  });
});

describe('the definition', () => {
  test('final statuses are terminal; an ended workflow answers ACKNOWLEDGEMENT_CONFLICT', () => {
    expect([...R.terminalStatuses].sort()).toEqual(['imported', 'linked', 'rejected']);
    expect(R.statuses).toEqual(['offered', 'quarantined', 'imported', 'linked', 'rejected']);
    expect(R.machine.ended(reach('imported'))).toMatchObject({ code: 'ACKNOWLEDGEMENT_CONFLICT', extensions: { currentState: 'imported' } });
    expect(R.machine.brokerCommands).toEqual([]);
  });

  test('every field a handover can hold is classified, shared by the two organizations', () => {
    const full = next(R, reach('quarantined'), ack('imported', valid.imported)).state;
    for (const field of Object.keys(full)) expect({ field, cls: R.fields[field] }).toEqual({ field, cls: 'shared' });
    expect(Object.keys(full)).toEqual(expect.arrayContaining(['destinationExternalReference', 'quarantinedAt', 'acknowledgedAt']));
  });

  test('search attributes: the issuer as owner, the executor as partner', () => {
    expect(R.searchAttributes(offered())).toEqual({ owner: ISSUER, partner: EXECUTOR, status: 'offered' });
  });
});

test('a package offered after its pickup window closed is WINDOW_PASSED; a repeated delivery of one offered in time is still answered', () => {
  const closed = later(26 * HOUR + 1);
  expect(apply(R, undefined, create(), closed)).toMatchObject({ ok: false, code: 'WINDOW_PASSED', extensions: { errors: [{ pointer: '/package/stops/0/timeWindow/end', message: 'has passed' }] } });
  expect(next(R, undefined, create(), later(25 * HOUR)).state.status).toBe('offered');
  expect(redeliver(offered(), create()).id).toBe(offered().id);
});
