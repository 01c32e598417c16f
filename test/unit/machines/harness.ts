// Drives a resource's pure machine the way the entity workflow does (version first, then the
// machine), in-process: no Temporal, no database. A refusal comes back as its problem code.
import { RefusalError, type Actor, type Command, type Envelope, type Transition } from '../../../domain/machine';
import type { Resource } from '../../../domain/resource';
import { EVENTS } from '../../../domain/events';

export const NOW = '2030-01-01T12:00:00.000Z';
export const later = (ms: number) => new Date(Date.parse(NOW) + ms).toISOString();
export const HOUR = 3600_000;
export const DAY = 24 * HOUR;

export const connector = (organizationId: string): Actor => ({ kind: 'connector', organizationId, clientId: `client-of-${organizationId}` });
export const operator: Actor = { kind: 'operator', organizationId: 'org-operator', clientId: 'client-operator' };
export const system: Actor = { kind: 'system' };

let seq = 0;
export function command(name: string, actor: Actor, payload: unknown = {}, options: { context?: unknown; expectedVersion?: number } = {}): Command {
  return { name, commandId: `cmd-${++seq}`, actor, payload, correlationId: 'test', context: options.context, expectedVersion: options.expectedVersion };
}

export type Outcome<S> = { ok: true; transition: Transition<S> } | { ok: false; code: string; detail: string; extensions?: Record<string, unknown> };

/** A transition whose events are all in the catalogue (domain/events.ts), with the data schema it names. */
function catalogued<S>(resource: Resource<any, any>, transition: Transition<S>): Transition<S> {
  for (const event of transition.events) {
    const entry = EVENTS[event.type];
    if (!entry) throw new Error(`${resource.kind} emits ${event.type}, which domain/events.ts does not list`);
    const data = event.record?.schema ?? resource.kind;
    if (entry.kind !== resource.kind || entry.data !== data) throw new Error(`${event.type}: emitted about ${resource.kind} with data ${data}, catalogued as ${entry.kind} with ${entry.data}`);
  }
  return transition;
}

/** Applies a command to a state as workflows/entity.ts decides: system-only commands, then the handler. */
export function apply<S extends Envelope>(resource: Resource<S, any>, state: S | undefined, cmd: Command, now = NOW): Outcome<S> {
  try {
    if (cmd.name === 'create') return { ok: true, transition: catalogued(resource, resource.machine.create(cmd, '01a1fd30-05ff-70e9-bbcd-a29491e72bb4', now)) };
    if (!state) throw new Error('no state');
    if (resource.machine.brokerCommands.includes(cmd.name) && cmd.actor.kind !== 'system') {
      return { ok: false, code: 'ACTOR_NOT_PERMITTED', detail: 'reserved to the broker' };
    }
    const handler = resource.machine.commands[cmd.name];
    if (!handler) return { ok: false, code: 'INVALID_STATE_TRANSITION', detail: `unknown command ${cmd.name}` };
    return { ok: true, transition: catalogued(resource, handler(state, cmd, now)) };
  } catch (err) {
    if (err instanceof RefusalError) return { ok: false, ...err.refusal };
    throw err;
  }
}

/** The next state, or a test failure naming the refusal. */
export function next<S extends Envelope>(resource: Resource<S, any>, state: S | undefined, cmd: Command, now = NOW): Transition<S> {
  const outcome = apply(resource, state, cmd, now);
  if (!outcome.ok) throw new Error(`${cmd.name} refused: ${outcome.code} ${outcome.detail}`);
  expectOneEventPerSubject(outcome.transition, cmd.name);
  return outcome.transition;
}

/**
 * Delivery rule 2: a consumer drops an event at or below the version it applied, so one
 * transition emits at most one event per subject (the resource itself, or each record it adds).
 * Checked on every transition every machine test makes.
 */
function expectOneEventPerSubject(transition: Transition<any>, command: string) {
  const subjects = transition.events.map((e) => e.record?.subject ?? '(the resource)');
  const twice = subjects.filter((s, i) => subjects.indexOf(s) !== i);
  if (twice.length) throw new Error(`${command} emits two events about ${twice[0]}: ${transition.events.map((e) => e.type).join(', ')}`);
}

/** The refusal code, or a test failure when the command was accepted. */
export function refusal<S extends Envelope>(resource: Resource<S, any>, state: S | undefined, cmd: Command, now = NOW): string {
  const outcome = apply(resource, state, cmd, now);
  if (outcome.ok) throw new Error(`${cmd.name} was accepted in status ${state?.status}`);
  return outcome.code;
}
