// The ListingSeries machine (domain/listing-series.ts), in-process: its transitions and refusals,
// its clock (the deadline: when the next occurrence becomes due) and what publishDue hands to the
// flow that publishes the occurrences, across pauses, revisions, skips and the end.
import { RefusalError, type Actor, type Command } from '../../../domain/machine';
import { isUuid } from '../../../domain/ids';
import { KEEP_PAST_DAYS, listingSeries, listingSeriesMachine as machine, occurrenceListingId, type ListingSeries, type PublishOccurrencesInput, type WithdrawOccurrencesInput } from '../../../domain/listing-series';
import type { Transition } from '../../../domain/machine';

const ID = '01a1fd30-05ff-70e9-bbcd-a29491e72bb4';
const OWNER = 'org-owner';
const owner: Actor = { kind: 'connector', organizationId: OWNER, clientId: 'client-owner' };
const other: Actor = { kind: 'connector', organizationId: 'org-other', clientId: 'client-other' };
const broker: Actor = { kind: 'broker' };

let seq = 0;
const cmd = (name: string, actor: Actor, payload: unknown = {}): Command => ({ name, commandId: `c${++seq}`, actor, payload, correlationId: 't' });

const terms = () => ({
  originArea: { kind: 'unlocode', code: 'DEHAM' },
  destinationArea: { kind: 'unlocode', code: 'NLRTM' },
  vehicleProfile: { bodyType: 'curtainsider' },
  availableCapacity: { weight: { value: 24, unitCode: 'TNE' } },
  visibility: { mode: 'open' },
});
// Hamburg to Rotterdam every Tuesday and Thursday, 08:00 to 18:00 Berlin time, listed a week ahead.
const create = (over: Record<string, unknown> = {}) => ({
  listingKind: 'capacityOffer',
  terms: terms(),
  recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU,TH', timeZone: 'Europe/Berlin', startDate: '2026-03-03' },
  template: { windows: { availabilityWindow: { time: '08:00', duration: 'PT10H' } }, expiresAt: { before: 'PT2H' } },
  horizon: 'P7D',
  ...over,
});
const NOW = '2026-03-01T10:00:00Z';

function run(state: ListingSeries | undefined, command: Command, now = NOW): Transition<ListingSeries> {
  if (command.name === 'create') return machine.create(command, ID, now);
  if (machine.brokerCommands.includes(command.name) && command.actor.kind !== 'broker') throw new RefusalError({ code: 'ACTOR_NOT_PERMITTED', detail: 'broker only' });
  return (machine.commands as Record<string, (s: ListingSeries, c: Command, n: string) => Transition<ListingSeries>>)[command.name](state as ListingSeries, command, now);
}
function refused(state: ListingSeries | undefined, command: Command, now = NOW): { code: string; errors?: Array<{ pointer: string }> } {
  try {
    run(state, command, now);
  } catch (err) {
    if (err instanceof RefusalError) return { code: err.refusal.code, errors: (err.refusal.extensions as any)?.errors };
    throw err;
  }
  throw new Error(`${command.name} was accepted`);
}
const created = (over: Record<string, unknown> = {}) => run(undefined, cmd('create', owner, create(over))).state;
const publishInput = (t: Transition<ListingSeries>) => t.effects?.[0]?.input as PublishOccurrencesInput;

describe('ListingSeries: create', () => {
  it('creates an active series with its first revision, owned by the connector', () => {
    const t = run(undefined, cmd('create', owner, create()));
    expect(t.state).toMatchObject({ id: ID, status: 'active', ownerOrganizationId: OWNER, listingKind: 'capacityOffer', horizon: 'P7D', occurrences: {}, skipped: [] });
    expect(t.state.calendar.revisions).toHaveLength(1);
    expect(t.state.revisions[0]).toMatchObject({ revision: 1, from: '2026-03-03', terms: terms() });
    expect(t.events.map((e) => e.type)).toEqual(['pcx.listing-series.created.v1']);
    expect(t.events[0].audience).toEqual([OWNER]);
  });

  it('refuses what no occurrence could be published with, with pointers', () => {
    const { availableCapacity: _c, ...noCapacity } = terms();
    expect(refused(undefined, cmd('create', owner, create({ terms: { ...noCapacity, availabilityWindow: { start: NOW, end: NOW }, expiresAt: NOW, color: 'red' } })))).toEqual({
      code: 'VALIDATION_FAILED',
      errors: expect.arrayContaining([
        expect.objectContaining({ pointer: '/terms/availabilityWindow' }),
        expect.objectContaining({ pointer: '/terms/expiresAt' }),
        expect.objectContaining({ pointer: '/terms/color' }),
        expect.objectContaining({ pointer: '/terms/availableCapacity' }),
      ]),
    });
    expect(refused(undefined, cmd('create', owner, create({ recurrence: { rrule: 'FREQ=HOURLY', timeZone: 'Europe/Berlin', startDate: '2026-03-03' } }))).errors?.[0].pointer).toMatch(/^\/recurrence/);
    expect(refused(undefined, cmd('create', owner, create({ template: { windows: { pickupWindow: { time: '08:00', duration: 'PT1H' } }, expiresAt: {} } }))).errors?.map((e) => e.pointer)).toEqual(
      expect.arrayContaining(['/template/windows/availabilityWindow', '/template/windows/pickupWindow']),
    );
    expect(refused(undefined, cmd('create', owner, create({ horizon: undefined }))).errors?.map((e) => e.pointer)).toEqual(['/horizon']);
    expect(refused(undefined, cmd('create', owner, create({ horizon: 'P120D' }))).errors?.map((e) => e.pointer)).toEqual(['/horizon']);
    expect(refused(undefined, cmd('create', owner, create({ listingKind: 'truck' }))).code).toBe('VALIDATION_FAILED');
    expect(refused(undefined, cmd('create', { kind: 'operator', organizationId: 'op' }, create())).code).toBe('ACTOR_NOT_PERMITTED');
  });

  it('takes a load request series with its two windows', () => {
    const state = created({
      listingKind: 'loadRequest',
      terms: { pickupArea: { kind: 'unlocode', code: 'DEHAM' }, deliveryArea: { kind: 'unlocode', code: 'NLRTM' }, requiredCapacity: { weight: { value: 10, unitCode: 'TNE' } }, vehicleRequirements: { bodyTypes: ['curtainsider'] }, goodsProfile: { category: 'general' }, visibility: { mode: 'open' } },
      template: { windows: { pickupWindow: { time: '06:00', duration: 'PT4H' }, deliveryWindow: { day: 1, time: '08:00', duration: 'PT4H' } }, expiresAt: { before: 'PT1H' } },
    });
    const t = run(state, cmd('publishDue', broker));
    const first = publishInput(t).occurrences[0];
    expect(publishInput(t).kind).toBe('load-request');
    expect(first.payload).toMatchObject({ pickupWindow: { start: '2026-03-03T05:00:00Z', end: '2026-03-03T09:00:00Z', timeZone: 'Europe/Berlin' }, deliveryWindow: { start: '2026-03-04T07:00:00Z' }, expiresAt: '2026-03-03T04:00:00Z' });
  });
});

describe('ListingSeries: the clock', () => {
  it('is due at once for the occurrences within the horizon, then at the next one less the horizon', () => {
    const state = created();
    // The first occurrence (Tuesday 3 March, 08:00 CET = 07:00Z) was due a week before it.
    expect(machine.deadline(state)).toEqual({ at: '2026-02-24T07:00:00Z', command: 'publishDue' });
    const t = run(state, cmd('publishDue', broker));
    const input = publishInput(t);
    expect(t.effects).toHaveLength(1);
    expect(t.effects?.[0].flow).toBe('publishOccurrencesFlow');
    expect(input).toMatchObject({ seriesId: ID, kind: 'capacity-offer', ownerOrganizationId: OWNER, actor: { kind: 'connector', organizationId: OWNER, clientId: 'client-owner' } });
    expect(input.occurrences.map((o) => o.key)).toEqual(['2026-03-03', '2026-03-05']);
    expect(input.occurrences[0]).toEqual({
      key: '2026-03-03',
      listingId: occurrenceListingId(ID, '2026-03-03'),
      payload: { ...terms(), availabilityWindow: { start: '2026-03-03T07:00:00Z', end: '2026-03-03T17:00:00Z', timeZone: 'Europe/Berlin' }, expiresAt: '2026-03-03T05:00:00Z' },
    });
    expect(t.events).toEqual([]);
    expect(t.state.resourceVersion).toBe(2);
    expect(Object.keys(t.state.occurrences)).toEqual(['2026-03-03', '2026-03-05']);
    expect(t.state.cursor).toBe('2026-03-05');
    // Next: Tuesday 10 March 07:00Z, due a week before.
    expect(machine.deadline(t.state)).toEqual({ at: '2026-03-03T07:00:00Z', command: 'publishDue' });
  });

  it('forgets occurrences and skipped dates that began more than KEEP_PAST_DAYS ago: a state that does not grow with the years', () => {
    let state = created();
    state = run(state, cmd('skip', owner, { key: '2026-03-12' })).state;
    // Week after week for three months, each publishDue at the deadline it asked for.
    for (let i = 0; i < 26; i++) {
      const due = machine.deadline(state)!;
      state = run(state, cmd('publishDue', broker), due.at).state;
    }
    const now = Date.parse(state.updatedAt);
    const kept = Object.values(state.occurrences).map((o) => Date.parse(o.startsAt));
    expect(Math.min(...kept)).toBeGreaterThanOrEqual(now - KEEP_PAST_DAYS * 86_400_000);
    expect(Object.keys(state.occurrences).length).toBeLessThanOrEqual(2 * (KEEP_PAST_DAYS / 7 + 2));
    expect(state.skipped).toEqual([]);
    // What it forgot lies behind the cursor: nothing is published twice, the clock goes on.
    const next = run(state, cmd('publishDue', broker), machine.deadline(state)!.at);
    expect(publishInput(next).occurrences.every((o) => o.key > '2026-05-01')).toBe(true);
  });

  it('publishes each occurrence once: a repeated publishDue changes nothing, the same state gives the same orders', () => {
    const state = created();
    const a = run(state, cmd('publishDue', broker));
    const b = run(state, cmd('publishDue', broker));
    expect(publishInput(b)).toEqual(publishInput(a));
    const again = run(a.state, cmd('publishDue', broker));
    expect(again.state).toBe(a.state);
    expect(again.effects ?? []).toEqual([]);
  });

  it('keeps 08:00 Berlin time across the change to summer time (29 March)', () => {
    let state = run(created(), cmd('publishDue', broker)).state;
    const keys: string[] = [];
    for (let i = 0; i < 12; i++) {
      const d = machine.deadline(state)!;
      const t = run(state, cmd('publishDue', broker), d.at);
      for (const o of publishInput(t).occurrences) keys.push(`${o.key} ${(o.payload.availabilityWindow as { start: string }).start}`);
      state = t.state;
    }
    expect(keys).toContain('2026-03-26 2026-03-26T07:00:00Z');
    expect(keys).toContain('2026-03-31 2026-03-31T06:00:00Z');
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('refuses publishDue from anyone but the broker', () => {
    expect(refused(created(), cmd('publishDue', owner)).code).toBe('ACTOR_NOT_PERMITTED');
  });
});

describe('ListingSeries: pause and resume', () => {
  it('has no clock while paused; on resume publishes what can still be published and passes the rest', () => {
    const published = run(created(), cmd('publishDue', broker)).state;
    const paused = run(published, cmd('pause', owner)).state;
    expect(paused).toMatchObject({ status: 'paused', pausedAt: NOW });
    expect(machine.deadline(paused)).toBeUndefined();
    expect(refused(paused, cmd('publishDue', broker)).code).toBe('INVALID_STATE_TRANSITION');
    expect(refused(paused, cmd('pause', owner)).code).toBe('INVALID_STATE_TRANSITION');
    // Resumed on Wednesday 11 March 10:00Z: 10 March is over; 12, 17 March are due (a week ahead).
    const at = '2026-03-11T10:00:00Z';
    const resumed = run(paused, cmd('resume', owner), at);
    expect(resumed.events.map((e) => e.type)).toEqual(['pcx.listing-series.resumed.v1']);
    expect(Date.parse(machine.deadline(resumed.state)!.at)).toBeLessThan(Date.parse(at));
    const t = run(resumed.state, cmd('publishDue', broker), at);
    expect(publishInput(t).occurrences.map((o) => o.key)).toEqual(['2026-03-12', '2026-03-17']);
    expect(t.state.cursor).toBe('2026-03-17');
    expect(t.state.occurrences['2026-03-10']).toBeUndefined();
    expect(machine.deadline(t.state)!.at).toBe('2026-03-12T07:00:00Z');
  });

  it('lets only the owner pause, resume, revise, skip and end', () => {
    const state = created();
    for (const name of ['pause', 'revise', 'skip', 'end']) expect(refused(state, cmd(name, other, { reason: 'x', key: '2026-03-10' })).code).toBe('ACTOR_NOT_PERMITTED');
  });
});

describe('ListingSeries: revisions and skipped dates', () => {
  it('applies a change from a date on; occurrences already published keep their revision', () => {
    const published = run(created(), cmd('publishDue', broker)).state; // 3 and 5 March
    const t = run(published, cmd('revise', owner, { from: '2026-03-05', template: { windows: { availabilityWindow: { time: '10:00', duration: 'PT8H' } }, expiresAt: { before: 'PT2H' } }, terms: { ...terms(), availableCapacity: { weight: { value: 12, unitCode: 'TNE' } } } }));
    expect(t.events.map((e) => e.type)).toEqual(['pcx.listing-series.revised.v1']);
    expect(t.state.calendar.revisions[1]).toMatchObject({ revision: 2, from: '2026-03-05', kept: ['2026-03-05'] });
    expect(t.state.revisions[1]).toMatchObject({ revision: 2, from: '2026-03-05' });
    expect(t.state.cursor).toBe('2026-03-04');
    // 5 March stays as published; 10 March follows the new times and terms.
    const d = machine.deadline(t.state)!;
    expect(d.at).toBe('2026-03-03T09:00:00Z');
    const p = publishInput(run(t.state, cmd('publishDue', broker), d.at));
    expect(p.occurrences.map((o) => o.key)).toEqual(['2026-03-10']);
    expect(p.occurrences[0].payload).toMatchObject({ availableCapacity: { weight: { value: 12 } }, availabilityWindow: { start: '2026-03-10T09:00:00Z' } });
  });

  it('refuses a change for the past and a template that is not the listing\'s', () => {
    const state = created();
    expect(refused(state, cmd('revise', owner, { from: '2026-02-27' })).errors?.map((e) => e.pointer)).toEqual(['/from']);
    expect(refused(state, cmd('revise', owner, { terms: { ...terms(), expiresAt: NOW } })).errors?.map((e) => e.pointer)).toEqual(['/terms/expiresAt']);
  });

  it('skips a date not yet published; refuses one published, and a day the series does not recur on', () => {
    const published = run(created(), cmd('publishDue', broker)).state;
    const t = run(published, cmd('skip', owner, { key: '2026-03-12', reason: 'holiday' }));
    expect(t.state.skipped).toEqual([{ key: '2026-03-12', reason: 'holiday', at: NOW }]);
    expect(t.events.map((e) => e.type)).toEqual(['pcx.listing-series.revised.v1']);
    expect(run(t.state, cmd('skip', owner, { key: '2026-03-12' })).state).toBe(t.state);
    const p = publishInput(run(t.state, cmd('publishDue', broker), '2026-03-06T10:00:00Z'));
    expect(p.occurrences.map((o) => o.key)).toEqual(['2026-03-10']);
    expect(refused(published, cmd('skip', owner, { key: '2026-03-05' })).code).toBe('INVALID_STATE_TRANSITION');
    expect(refused(published, cmd('skip', owner, { key: '2026-03-11' })).errors?.map((e) => e.pointer)).toEqual(['/key']);
  });
});

describe('ListingSeries: end', () => {
  it('needs a reason, ends for good and withdraws the occurrences that have not begun', () => {
    const published = run(created(), cmd('publishDue', broker)).state; // 3 and 5 March
    expect(refused(published, cmd('end', owner, {})).errors?.map((e) => e.pointer)).toEqual(['/reason']);
    // Tuesday 3 March 12:00Z: that day's occurrence is under way, Thursday's has not begun.
    const at = '2026-03-03T12:00:00Z';
    const t = run(published, cmd('end', owner, { reason: 'lane given up' }), at);
    expect(t.state).toMatchObject({ status: 'ended', endedAt: at, ending: { reason: 'lane given up', at } });
    expect(t.events.map((e) => e.type)).toEqual(['pcx.listing-series.ended.v1']);
    expect(t.effects?.map((e) => e.flow)).toEqual(['withdrawOccurrencesFlow']);
    expect(t.effects?.[0].input as WithdrawOccurrencesInput).toMatchObject({
      seriesId: ID,
      kind: 'capacity-offer',
      occurrences: [{ key: '2026-03-05', listingId: occurrenceListingId(ID, '2026-03-05') }],
      reasonCode: 'SERIES_ENDED',
    });
    expect(machine.deadline(t.state)).toBeUndefined();
    expect(listingSeries.terminalStatuses).toContain(t.state.status);
    for (const name of ['pause', 'resume', 'revise', 'skip', 'end']) expect(refused(t.state, cmd(name, owner, { reason: 'x' })).code).toBe('INVALID_STATE_TRANSITION');
  });

  it('starts no flow when nothing is ahead', () => {
    expect(run(created(), cmd('end', owner, { reason: 'never mind' })).effects).toEqual([]);
  });
});

describe('occurrenceListingId', () => {
  it('is a UUID, the same for the same series and key, different for another key or series', () => {
    const a = occurrenceListingId(ID, '2026-03-03');
    expect(isUuid(a)).toBe(true);
    expect(a[14]).toBe('8');
    expect(occurrenceListingId(ID, '2026-03-03')).toBe(a);
    expect(occurrenceListingId(ID, '2026-03-05')).not.toBe(a);
    expect(occurrenceListingId('01a1fd30-05ff-70e9-bbcd-b29491e72bb4', '2026-03-03')).not.toBe(a);
  });
});
