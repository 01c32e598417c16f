// Every transition row and refusal of the Connector machine (domain/connector.ts), in-process:
// create within the scope ceiling, the owner-only commands, disable/enable/retire, keys added,
// rolled with a bounded overlap, revoked, expired by the timer, and the deadline that timer keeps.
import { connector as R, credentialValid, MAX_ACTIVE_CREDENTIALS, MAX_OVERLAP_DAYS, type Connector, type PublicJwk } from '../../../domain/connector';
import { command, connector, DAY, HOUR, later, next, NOW, refusal, system } from './harness';

const ORG = 'org-admin';
const OTHER = 'org-other';
const CEILING = { scopeCeiling: ['capacity:read', 'capacity:publish', 'connectors:manage'], environment: 'sandbox' };
const key = (kid: string): PublicJwk => ({ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid, alg: 'ES256' });
const create = (payload: Record<string, unknown> = {}) =>
  next(R, undefined, command('create', connector(ORG), { clientId: 'tms-1', name: 'TMS', scopes: ['capacity:read'], publicJwk: key('k1'), ...payload }, { context: CEILING })).state;
const by = (org: string, name: string, payload: unknown, context?: unknown) => command(name, connector(org), payload, context ? { context } : {});

test('create: the caller\u2019s organization, the environment, scopes within the ceiling, the first key active', () => {
  const c = create();
  expect(c).toEqual(expect.objectContaining({ status: 'active', organizationId: ORG, ownerOrganizationId: ORG, environment: 'sandbox', scopes: ['capacity:read'], clientId: 'tms-1' }));
  expect(c.credentials).toEqual([expect.objectContaining({ credentialId: 'k1', status: 'active', createdBy: expect.objectContaining({ organizationId: ORG }) })]);
  expect(refusal(R, undefined, command('create', connector(ORG), { clientId: 'x', scopes: [] }, { context: CEILING }))).toBe('VALIDATION_FAILED');
  expect(refusal(R, undefined, command('create', connector(ORG), { clientId: 'tms-2', scopes: ['exchange:admin'] }, { context: CEILING }))).toBe('SCOPE_ABOVE_CEILING');
  expect(refusal(R, undefined, command('create', connector(ORG), { clientId: 'tms-2', scopes: [], publicJwk: key('k'), expiresAt: later(-HOUR) }, { context: CEILING }))).toBe('VALIDATION_FAILED');
});

test('only the owner organization (or the broker) commands it', () => {
  const c = create();
  for (const [name, payload] of [['update', { name: 'x' }], ['disable', { reason: 'x' }], ['retire', { reason: 'x' }], ['addCredential', { publicJwk: key('k2') }], ['revokeCredential', { credentialId: 'k1', reason: 'x' }]] as const) {
    expect(refusal(R, c, by(OTHER, name, payload, CEILING))).toBe('ACTOR_NOT_PERMITTED');
  }
  expect(refusal(R, c, command('expireCredentials', connector(ORG)))).toBe('ACTOR_NOT_PERMITTED');
});

test('disable, enable, retire: retired is for good and revokes every key', () => {
  const c = create();
  expect(refusal(R, c, by(ORG, 'disable', {}))).toBe('VALIDATION_FAILED');
  const disabled = next(R, c, by(ORG, 'disable', { reason: 'audit' })).state;
  expect(disabled).toEqual(expect.objectContaining({ status: 'disabled', disabledAt: NOW, statusReason: expect.objectContaining({ reason: 'audit' }) }));
  expect(refusal(R, disabled, by(ORG, 'disable', { reason: 'again' }))).toBe('INVALID_STATE_TRANSITION');
  expect(refusal(R, c, by(ORG, 'enable', {}))).toBe('INVALID_STATE_TRANSITION');
  expect(next(R, disabled, by(ORG, 'enable', {})).state.status).toBe('active');
  const retired = next(R, disabled, by(ORG, 'retire', { reason: 'replaced' })).state;
  expect(retired.status).toBe('retired');
  expect(retired.credentials.every((k) => k.status === 'revoked')).toBe(true);
  expect(refusal(R, retired, by(ORG, 'addCredential', { publicJwk: key('k2') }))).toBe('INVALID_STATE_TRANSITION');
  expect(refusal(R, retired, by(ORG, 'update', { name: 'x' }, CEILING))).toBe('INVALID_STATE_TRANSITION');
});

test('keys: added up to the limit, a kid once; rolled with an overlap of at most 90 days; revoked; expired by the timer at the earliest expiry', () => {
  let c = create();
  expect(refusal(R, c, by(ORG, 'addCredential', { publicJwk: key('k1') }))).toBe('CREDENTIAL_EXISTS');
  for (let i = 2; i <= MAX_ACTIVE_CREDENTIALS; i++) c = next(R, c, by(ORG, 'addCredential', { publicJwk: key(`k${i}`) })).state;
  expect(refusal(R, c, by(ORG, 'addCredential', { publicJwk: key('k9') }))).toBe('CREDENTIAL_LIMIT');
  c = next(R, c, by(ORG, 'revokeCredential', { credentialId: 'k5', reason: 'spare' })).state;
  expect(c.credentials[4]).toEqual(expect.objectContaining({ status: 'revoked', revokedAt: NOW, revocation: expect.objectContaining({ reason: 'spare' }) }));
  expect(refusal(R, c, by(ORG, 'revokeCredential', { credentialId: 'k5', reason: 'again' }))).toBe('INVALID_STATE_TRANSITION');
  expect(refusal(R, c, by(ORG, 'revokeCredential', { credentialId: 'nope', reason: 'x' }))).toBe('RESOURCE_NOT_FOUND');

  expect(refusal(R, c, by(ORG, 'rollCredential', { credentialId: 'k1', publicJwk: key('k6'), oldExpiresAt: later((MAX_OVERLAP_DAYS + 1) * DAY) }))).toBe('VALIDATION_FAILED');
  expect(refusal(R, c, by(ORG, 'rollCredential', { credentialId: 'k1', publicJwk: key('k6') }))).toBe('VALIDATION_FAILED');
  const rolled = next(R, c, by(ORG, 'rollCredential', { credentialId: 'k1', publicJwk: key('k6'), oldExpiresAt: later(7 * DAY) }));
  expect(rolled.events.map((e) => e.type)).toEqual(['pcx.connector.credential-rolled.v1']);
  const k1 = rolled.state.credentials.find((k) => k.credentialId === 'k1')!;
  expect(k1).toEqual(expect.objectContaining({ status: 'active', expiresAt: later(7 * DAY).replace('.000Z', 'Z'), replacedBy: 'k6' }));
  expect(R.machine.deadline(rolled.state)).toEqual({ at: k1.expiresAt, command: 'expireCredentials' });
  // Valid until its second, not at it.
  expect(credentialValid(k1, Date.parse(later(7 * DAY)) - 1)).toBe(true);
  expect(credentialValid(k1, Date.parse(later(7 * DAY)))).toBe(false);
  // The timer: too early changes nothing; at the expiry it is expired, with its event.
  expect(next(R, rolled.state, command('expireCredentials', system), later(DAY)).events).toEqual([]);
  const expired = next(R, rolled.state, command('expireCredentials', system), later(7 * DAY));
  expect(expired.state.credentials.find((k) => k.credentialId === 'k1')).toEqual(expect.objectContaining({ status: 'expired' }));
  expect(expired.events.map((e) => e.type)).toEqual(['pcx.connector.credential-expired.v1']);
  // The organization's feed and the operator's.
  expect(expired.events[0].audience).toEqual([ORG, 'pcx:operator']);
  expect(R.machine.deadline(expired.state)).toBeUndefined();
});

test('update: name, scopes within the ceiling, roles', () => {
  const c = create();
  const updated = next(R, c, by(ORG, 'update', { scopes: ['capacity:publish'], actorRoles: ['planner'] }, CEILING)).state as Connector;
  expect(updated).toEqual(expect.objectContaining({ scopes: ['capacity:publish'], actorRoles: ['planner'], resourceVersion: 2 }));
  expect(refusal(R, c, by(ORG, 'update', { scopes: ['loads:read'] }, CEILING))).toBe('SCOPE_ABOVE_CEILING');
  expect(refusal(R, c, by(ORG, 'update', { actorRoles: ['Not A Role'] }, CEILING))).toBe('VALIDATION_FAILED');
});
