// Connector: a machine client of one organization, managed by that organization's admin (a
// connector or user with `connectors:manage`) instead of a file and a restart (issue 29). It is
// bound to exactly one organization and one environment (specification, Authentication); its
// scopes stay within the organization's ceiling; its credentials are public keys for
// private_key_jwt (core/client-assertion.ts), each active until revoked or until the expiry an
// admin set when rolling it to a new key (the overlap in which both work). The entity's timer ends
// each overlap at its second. Gate 2 reads connectors from the read model (core/registry.ts).
//
// status    how it gets there
// active    created; or enabled again
// disabled  disable (its tokens are refused at once; enable brings it back)
// retired   retire: for good; its client id is never given again (terminal)
//
// A credential: active -> expired (its expiresAt passed) | revoked (revokeCredential). Its kinds:
// a public key (private_key_jwt, and self_signed_tls_client_auth with a certificate of that key),
// a generated client secret, a certificate subject under the operator's trust anchors
// (tls_client_auth, RFC 8705 section 2.1) or a key set the client publishes itself (jwks_uri, RFC
// 7591), fetched by the broker. Its token policy: the lifetime of its access tokens and of its
// assertions within the operator's limits, and whether its tokens are bound to a DPoP key (RFC 9449).
import { actorRef, bump, Command, Envelope, EventDraft, isBroker, Machine, OPERATOR_AUDIENCE, refuse, requiredReason, Transition, firstVersion } from './machine';
import { defineResource } from './resource';

export type ConnectorStatus = 'active' | 'disabled' | 'retired';
export type CredentialStatus = 'active' | 'expired' | 'revoked';

/** A public JWK as registered (never private members: the API refuses them). */
export interface PublicJwk {
  kty: 'EC' | 'RSA' | 'OKP';
  kid: string;
  alg?: string;
  use?: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
  /** Its certificate chain (RFC 7517), when registered with one (api/connectors.ts checks it). */
  x5c?: string[];
}

export type CredentialKind = 'privateKeyJwt' | 'clientSecret' | 'tlsClientAuth' | 'jwksUri';

export interface Credential {
  credentialId: string;
  /**
   * privateKeyJwt: a public key (its kid is the credential id); clientSecret: a secret the broker
   * generated and keeps only as a slow hash (core/client-secrets.ts); tlsClientAuth: the subject
   * of a certificate issued under the operator's trust anchors; jwksUri: where the client
   * publishes its keys.
   */
  kind: CredentialKind;
  publicJwk?: PublicJwk;
  /** tls_client_auth (RFC 8705 section 2.1.2): the certificate subject, as RFC 4514 writes it. */
  tlsClientAuthSubjectDn?: string;
  /** jwks_uri (RFC 7591): the HTTPS address of the client's key set. */
  jwksUri?: string;
  /** A client secret's last four characters, to tell secrets apart (never the secret). */
  secretHint?: string;
  status: CredentialStatus;
  createdAt: string;
  createdBy: { organizationId: string; clientId?: string; userId?: string };
  /** Set when rolled (the end of the overlap) or at creation: the credential stops working then. */
  expiresAt?: string;
  expiredAt?: string;
  revokedAt?: string;
  revocation?: { reason: string; organizationId: string; clientId?: string; userId?: string };
  /** The credential that replaced it (rollCredential). */
  replacedBy?: string;
}

/** The generated secrets' hashes by credential id (SecretCredential): workflow state only, never in a document. */
export type SecretHashes = Record<string, string>;

/** `hashes` with the hash of the material's generated secret, if it has one. */
function withSecretHash(hashes: SecretHashes | undefined, material: Material): { secretHashes?: SecretHashes } {
  const secret = material.clientSecret;
  if (!secret?.hash) return hashes ? { secretHashes: hashes } : {};
  return { secretHashes: { ...hashes, [secret.credentialId]: secret.hash } };
}

export interface Connector extends Envelope {
  status: ConnectorStatus;
  /** The OAuth client id: the `sub` of its tokens, unique in the exchange for good (the resource id derives from it). */
  clientId: string;
  organizationId: string;
  name: string;
  environment: string;
  scopes: string[];
  /** Actor roles for decision policies (gate 10), as in the connectors file. */
  actorRoles: string[];
  credentials: Credential[];
  /** How its tokens are issued; absent members take the operator's defaults. */
  tokenPolicy?: TokenPolicy;
  disabledAt?: string;
  retiredAt?: string;
  /** Why it was last disabled or retired, and by whom. */
  statusReason?: { reason: string; organizationId: string; clientId?: string; userId?: string; at: string };
  /** Workflow state only (SecretCredential): the generated secrets' hashes, which a rebuilt read model takes from here. */
  secretHashes?: SecretHashes;
}

/** A connector's token policy (docs/security.md, "Token lifecycle"). */
export interface TokenPolicy {
  /** Seconds its access tokens live (at most the operator's AUTH_MAX_TOKEN_LIFETIME_SECONDS). */
  accessTokenLifetimeSeconds?: number;
  /** Seconds its client assertions may live, exp - iat (at most AUTH_MAX_ASSERTION_LIFETIME_SECONDS). */
  assertionLifetimeSeconds?: number;
  /** RFC 9449 `dpop_bound_access_tokens`: every token request carries a DPoP proof, every token is bound to its key. */
  dpopBoundAccessTokens?: boolean;
}

export const KIND = 'connector';

/** At most this many credentials are active at once (a key and its successor, and a spare). */
export const MAX_ACTIVE_CREDENTIALS = 5;
/** The longest overlap a roll may leave the old credential working. */
export const MAX_OVERLAP_DAYS = 90;

/** What the API looked up for the machine: the organization's scope ceiling, the broker's environment and the operator's token limits. */
export interface ConnectorContext {
  scopeCeiling: readonly string[];
  environment: string;
  /** The operator's limits on a token policy (absent in commands recorded before token policies). */
  tokenLimits?: { maxAccessTokenLifetimeSeconds: number; maxAssertionLifetimeSeconds: number };
}

export interface CreatePayload {
  clientId: string;
  /** Only the protocol operator names an organization: the first connector of one it registered (its admin's). */
  organizationId?: string;
  name: string;
  scopes: string[];
  actorRoles?: string[];
  /** The first credential, optional (a connector may get its key later). */
  publicJwk?: PublicJwk;
  /** Or a generated client secret: its id and hint, which the API sets (the secret never reaches the workflow). */
  clientSecret?: SecretCredential;
  /** Or a certificate subject (tls_client_auth), its credential id the API's. */
  tlsClientAuth?: NamedCredential;
  /** Or a key set's address (jwks_uri), its credential id the API's. */
  jwksUri?: NamedCredential;
  tokenPolicy?: TokenPolicy;
  /** Set by the API for a key with a certificate chain: the leaf's end, past which the credential cannot live. */
  certificateNotAfter?: string;
  expiresAt?: string;
  /** The development seed's (the broker only, seed.ts): every key and the secret of a connectors file entry, at once. */
  seedCredentials?: Material[];
}

/**
 * A generated client secret as the machine knows it: an id, a hint and the secret's slow hash
 * (core/client-secrets.ts; never the secret). The hash stays in the workflow's state
 * (`secretHashes`), sealed in Temporal by the payload codec, so that a read model rebuilt from
 * Temporal finds it; the read model's document, the views and the events never carry it
 * (`document` below; read-model/client-secrets.ts keeps it where the token endpoint reads it).
 */
export interface SecretCredential {
  credentialId: string;
  hint: string;
  hash?: string;
}

/** A credential named by a value the API checked (a certificate subject, a key set's address): its id and that value. */
export interface NamedCredential {
  credentialId: string;
  value: string;
}

/** A credential's material: a public key, a generated secret, a certificate subject or a key set's address. */
type Material = { publicJwk?: PublicJwk; clientSecret?: SecretCredential; tlsClientAuth?: NamedCredential; jwksUri?: NamedCredential; certificateNotAfter?: string };

const CLIENT_ID = /^[a-z0-9][a-z0-9._-]{2,63}$/;
const ROLE = /^[a-z][a-zA-Z0-9-]{0,39}$/;

const event = (c: Connector, name: string): EventDraft => ({ type: `pcx.${KIND}.${name}.v1`, audience: [c.organizationId, OPERATOR_AUDIENCE] });

/** Only the organization's own admins (and the broker) manage its connectors. */
function requireOwner(c: Connector, command: Command): void {
  if (isBroker(command.actor)) return;
  if (command.actor.organizationId !== c.organizationId) refuse('ACTOR_NOT_PERMITTED', "only the connector's organization manages it");
}

function requireLive(c: Connector, command: string): void {
  if (c.status === 'retired') refuse('INVALID_STATE_TRANSITION', `a retired connector cannot ${command}`, { currentState: c.status });
}

function checkScopes(scopes: unknown, ceiling: readonly string[], pointer: string): string[] {
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string')) refuse('VALIDATION_FAILED', 'scopes must be an array of scopes', { errors: [{ pointer, message: 'must be an array of strings' }] });
  const above = (scopes as string[]).filter((s) => !ceiling.includes(s));
  if (above.length) refuse('SCOPE_ABOVE_CEILING', `above the organization's scope ceiling: ${above.join(', ')}`, { errors: [{ pointer, message: `not within the organization's ceiling: ${above.join(', ')}` }] });
  return [...new Set(scopes as string[])];
}

function checkRoles(roles: unknown): string[] {
  if (roles === undefined) return [];
  if (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string' || !ROLE.test(r))) refuse('VALIDATION_FAILED', 'actorRoles must be role names (a-z, digits, dashes)', { errors: [{ pointer: '/actorRoles', message: 'must be role names' }] });
  return [...new Set(roles as string[])];
}

/** An expiry the admin set: in the future, and at most MAX_OVERLAP_DAYS ahead when it ends an overlap. */
function checkExpiry(expiresAt: unknown, now: string, pointer: string, maxDays?: number): string | undefined {
  if (expiresAt === undefined) return undefined;
  if (typeof expiresAt !== 'string' || Number.isNaN(Date.parse(expiresAt))) refuse('VALIDATION_FAILED', `${pointer.slice(1)} must be a timestamp`, { errors: [{ pointer, message: 'must be a UTC timestamp' }] });
  const at = Date.parse(expiresAt as string);
  if (at <= Date.parse(now)) refuse('VALIDATION_FAILED', `${pointer.slice(1)} must lie in the future`, { errors: [{ pointer, message: 'must lie in the future' }] });
  if (maxDays !== undefined && at > Date.parse(now) + maxDays * 86_400_000) refuse('VALIDATION_FAILED', `an overlap ends within ${maxDays} days`, { errors: [{ pointer, message: `must lie within ${maxDays} days` }] });
  return new Date(at).toISOString().replace(/\.000Z$/, 'Z');
}

function credentialOf(command: Command, material: Material, now: string, expiresAt: string | undefined, c?: Pick<Connector, 'credentials'>, by = actorRef(command)): Credential {
  const { publicJwk, clientSecret, tlsClientAuth, jwksUri } = material;
  if ([publicJwk, clientSecret, tlsClientAuth, jwksUri].filter(Boolean).length !== 1) refuse('VALIDATION_FAILED', 'a credential is one of: a public key (publicJwk), a generated client secret (generateClientSecret), a certificate subject (tlsClientAuthSubjectDn) or a key set address (jwksUri)', { errors: [{ pointer: '/publicJwk', message: 'give exactly one kind of credential' }] });
  // The credential id is the key's kid (the header of every assertion it signs names it), or the id the API gave.
  const credentialId = publicJwk ? publicJwk.kid : (clientSecret ?? tlsClientAuth ?? jwksUri)!.credentialId;
  if (c?.credentials.some((k) => k.credentialId === credentialId)) refuse('CREDENTIAL_EXISTS', `the connector has a credential ${credentialId} already`);
  const kind = publicJwk
    ? { kind: 'privateKeyJwt' as const, publicJwk }
    : clientSecret
      ? { kind: 'clientSecret' as const, secretHint: clientSecret.hint }
      : tlsClientAuth
        ? { kind: 'tlsClientAuth' as const, tlsClientAuthSubjectDn: tlsClientAuth.value }
        : { kind: 'jwksUri' as const, jwksUri: jwksUri!.value };
  // A key with a certificate chain ends no later than its certificate (the API read its notAfter).
  const cap = material.certificateNotAfter;
  const until = cap && (!expiresAt || Date.parse(cap) < Date.parse(expiresAt)) ? cap : expiresAt;
  return { credentialId, ...kind, status: 'active', createdAt: now, createdBy: by, ...(until ? { expiresAt: until } : {}) };
}

/** A token policy within the operator's limits (whole seconds; an assertion lives 5 s at least, a token 60 s). */
function checkTokenPolicy(policy: unknown, limits: ConnectorContext['tokenLimits']): TokenPolicy | undefined {
  if (policy === undefined) return undefined;
  const bad = (member: string, message: string): never => refuse('VALIDATION_FAILED', `tokenPolicy.${member} ${message}`, { errors: [{ pointer: `/tokenPolicy/${member}`, message }] });
  if (!policy || typeof policy !== 'object' || Array.isArray(policy)) return bad('', 'must be an object');
  const p = policy as Record<string, unknown>;
  const out: TokenPolicy = {};
  const seconds = (member: 'accessTokenLifetimeSeconds' | 'assertionLifetimeSeconds', min: number, max: number | undefined) => {
    const v = p[member];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) bad(member, `must be a whole number of seconds, at least ${min}`);
    if (max !== undefined && (v as number) > max) bad(member, `may be at most ${max} s, the operator's limit`);
    out[member] = v as number;
  };
  seconds('accessTokenLifetimeSeconds', 60, limits?.maxAccessTokenLifetimeSeconds);
  seconds('assertionLifetimeSeconds', 5, limits?.maxAssertionLifetimeSeconds);
  if (p.dpopBoundAccessTokens !== undefined) {
    if (typeof p.dpopBoundAccessTokens !== 'boolean') bad('dpopBoundAccessTokens', 'must be true or false');
    out.dpopBoundAccessTokens = p.dpopBoundAccessTokens as boolean;
  }
  return out;
}

function mergedTokenPolicy(current: TokenPolicy | undefined, patch: unknown, limits: ConnectorContext['tokenLimits']): TokenPolicy {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return checkTokenPolicy(patch, limits)!;
  const merged: Record<string, unknown> = { ...(current ?? {}) };
  for (const [member, value] of Object.entries(patch)) {
    if (value === null) delete merged[member];
    else merged[member] = value;
  }
  const known = ['accessTokenLifetimeSeconds', 'assertionLifetimeSeconds', 'dpopBoundAccessTokens'];
  const unknown = Object.keys(merged).filter((m) => !known.includes(m));
  if (unknown.length) refuse('VALIDATION_FAILED', `tokenPolicy has no member ${unknown.join(', ')}`, { errors: [{ pointer: `/tokenPolicy/${unknown[0]}`, message: 'is not a member of a token policy' }] });
  return checkTokenPolicy(merged, limits)!;
}

function withRoom(c: Connector): void {
  if (c.credentials.filter((k) => k.status === 'active').length >= MAX_ACTIVE_CREDENTIALS) refuse('CREDENTIAL_LIMIT', `at most ${MAX_ACTIVE_CREDENTIALS} credentials are active at once: revoke one first`);
}

function activeCredential(c: Connector, credentialId: unknown): Credential {
  const credential = c.credentials.find((k) => k.credentialId === credentialId);
  if (!credential) refuse('RESOURCE_NOT_FOUND', `the connector has no credential ${String(credentialId)}`);
  if (credential.status !== 'active') refuse('INVALID_STATE_TRANSITION', `credential ${credential.credentialId} is ${credential.status}`, { currentState: credential.status });
  return credential;
}


export const connectorMachine = {
  kind: KIND,
  brokerCommands: ['expireCredentials'],

  create(command: Command<CreatePayload, ConnectorContext>, id: string, now: string): Transition<Connector> {
    const p = command.payload;
    const context = command.context!;
    if (!isBroker(command.actor) && !command.actor.organizationId) refuse('ACTOR_NOT_PERMITTED', 'a connector is created by an organization');
    if (typeof p.clientId !== 'string' || !CLIENT_ID.test(p.clientId)) refuse('VALIDATION_FAILED', 'clientId: 3 to 64 lower-case letters, digits, dots, dashes, underscores', { errors: [{ pointer: '/clientId', message: 'is not a client id' }] });
    // The operator may create an organization's first connector (with the public key its admin sent),
    // and the broker a connector of the development seed, for the organization the file names;
    // everyone else creates connectors of their own organization, whatever the body says.
    const seeded = isBroker(command.actor);
    if (seeded && typeof p.organizationId !== 'string') refuse('VALIDATION_FAILED', "the seed names the connector's organization");
    const organizationId = (command.actor.kind === 'operator' || seeded) && p.organizationId ? p.organizationId : command.actor.organizationId!;
    const credentials: Credential[] = [];
    if (seeded) {
      // Created on the organization's behalf: the organization is the one on record.
      for (const material of p.seedCredentials ?? []) credentials.push(credentialOf(command, material, now, undefined, { credentials }, { organizationId }));
    } else if (p.publicJwk || p.clientSecret || p.tlsClientAuth || p.jwksUri) {
      credentials.push(credentialOf(command, p, now, checkExpiry(p.expiresAt, now, '/expiresAt')));
    }
    const state: Connector = {
      ...firstVersion(id, organizationId, now),
      status: 'active',
      clientId: p.clientId,
      organizationId,
      name: typeof p.name === 'string' && p.name.trim() ? p.name : p.clientId,
      environment: context.environment,
      scopes: checkScopes(p.scopes, context.scopeCeiling, '/scopes'),
      actorRoles: checkRoles(p.actorRoles),
      credentials,
      ...(seeded ? {} : withSecretHash(undefined, p)),
    };
    const tokenPolicy = checkTokenPolicy(p.tokenPolicy, context.tokenLimits);
    if (tokenPolicy) state.tokenPolicy = tokenPolicy;
    return { state, events: [event(state, 'created')] };
  },

  commands: {
    // PATCH-like: its name, scopes (within the ceiling) and actor roles.
    update(c: Connector, command: Command<{ name?: string; scopes?: string[]; actorRoles?: string[]; tokenPolicy?: TokenPolicy }, ConnectorContext>, now: string): Transition<Connector> {
      requireOwner(c, command);
      requireLive(c, 'be changed');
      const p = command.payload ?? {};
      const changes: Partial<Connector> = {};
      if (p.name !== undefined) {
        if (typeof p.name !== 'string' || !p.name.trim()) refuse('VALIDATION_FAILED', 'name must not be empty', { errors: [{ pointer: '/name', message: 'must not be empty' }] });
        changes.name = p.name;
      }
      if (p.scopes !== undefined) changes.scopes = checkScopes(p.scopes, command.context!.scopeCeiling, '/scopes');
      if (p.actorRoles !== undefined) changes.actorRoles = checkRoles(p.actorRoles);
      // A merge: members given replace the connector's, a member given as null goes back to the default.
      if (p.tokenPolicy !== undefined) changes.tokenPolicy = mergedTokenPolicy(c.tokenPolicy, p.tokenPolicy, command.context!.tokenLimits);
      const next = bump(c, now, changes);
      return { state: next, events: [event(next, 'updated')] };
    },

    disable(c: Connector, command: Command<{ reason: string }>, now: string): Transition<Connector> {
      requireOwner(c, command);
      if (c.status !== 'active') refuse('INVALID_STATE_TRANSITION', `a ${c.status} connector cannot be disabled`, { currentState: c.status });
      const next = bump(c, now, { status: 'disabled', disabledAt: now, statusReason: { reason: requiredReason(command.payload), ...actorRef(command), at: now } });
      return { state: next, events: [event(next, 'disabled')] };
    },

    enable(c: Connector, command: Command<Record<string, never>>, now: string): Transition<Connector> {
      requireOwner(c, command);
      if (c.status !== 'disabled') refuse('INVALID_STATE_TRANSITION', `a ${c.status} connector cannot be enabled`, { currentState: c.status });
      const next = bump(c, now, { status: 'active' });
      return { state: next, events: [event(next, 'enabled')] };
    },

    retire(c: Connector, command: Command<{ reason: string }>, now: string): Transition<Connector> {
      requireOwner(c, command);
      requireLive(c, 'be retired');
      const reason = requiredReason(command.payload);
      const credentials = c.credentials.map((k) => (k.status === 'active' ? { ...k, status: 'revoked' as const, revokedAt: now, revocation: { reason: `connector retired: ${reason}`, ...actorRef(command) } } : k));
      const next = bump(c, now, { status: 'retired', retiredAt: now, credentials, statusReason: { reason, ...actorRef(command), at: now } });
      return { state: next, events: [event(next, 'retired')] };
    },

    // A new key beside the others (a second key, or a first one).
    addCredential(c: Connector, command: Command<Material & { expiresAt?: string }>, now: string): Transition<Connector> {
      requireOwner(c, command);
      requireLive(c, 'get a credential');
      withRoom(c);
      const credential = credentialOf(command, command.payload, now, checkExpiry(command.payload.expiresAt, now, '/expiresAt'), c);
      const next = bump(c, now, { credentials: [...c.credentials, credential], ...withSecretHash(c.secretHashes, command.payload) });
      return { state: next, events: [event(next, 'credential-added')] };
    },

    // A key replaced by a new one: both work until the old one's expiry (the overlap), then only the new.
    rollCredential(c: Connector, command: Command<Material & { credentialId: string; oldExpiresAt: string }>, now: string): Transition<Connector> {
      requireOwner(c, command);
      requireLive(c, 'roll a credential');
      const old = activeCredential(c, command.payload.credentialId);
      withRoom(c);
      const oldExpiresAt = checkExpiry(command.payload.oldExpiresAt, now, '/oldExpiresAt', MAX_OVERLAP_DAYS);
      if (!oldExpiresAt) refuse('VALIDATION_FAILED', 'oldExpiresAt is required: when the old credential stops working', { errors: [{ pointer: '/oldExpiresAt', message: 'is required' }] });
      const credential = credentialOf(command, command.payload, now, undefined, c);
      const credentials = c.credentials.map((k) => (k === old ? { ...k, expiresAt: old.expiresAt && old.expiresAt < oldExpiresAt ? old.expiresAt : oldExpiresAt, replacedBy: credential.credentialId } : k));
      const next = bump(c, now, { credentials: [...credentials, credential], ...withSecretHash(c.secretHashes, command.payload) });
      return { state: next, events: [event(next, 'credential-rolled')] };
    },

    // At once: its tokens are refused on the next request of any replica (gate 2).
    revokeCredential(c: Connector, command: Command<{ credentialId: string; reason: string }>, now: string): Transition<Connector> {
      requireOwner(c, command);
      const old = activeCredential(c, command.payload?.credentialId);
      const revocation = { reason: requiredReason(command.payload), ...actorRef(command) };
      const next = bump(c, now, { credentials: c.credentials.map((k) => (k === old ? { ...k, status: 'revoked' as const, revokedAt: now, revocation } : k)) });
      return { state: next, events: [event(next, 'credential-revoked')] };
    },

    // The timer: credentials whose expiry has come stop working.
    expireCredentials(c: Connector, _command: Command, now: string): Transition<Connector> {
      const due = (k: Credential) => k.status === 'active' && k.expiresAt !== undefined && Date.parse(k.expiresAt) <= Date.parse(now);
      if (!c.credentials.some(due)) return { state: c, events: [] };
      const next = bump(c, now, { credentials: c.credentials.map((k) => (due(k) ? { ...k, status: 'expired' as const, expiredAt: now } : k)) });
      return { state: next, events: [event(next, 'credential-expired')] };
    },
  },

  // The next active credential's expiry.
  deadline(c: Connector) {
    const next = c.credentials.filter((k) => k.status === 'active' && k.expiresAt).map((k) => k.expiresAt!).sort()[0];
    return next ? { at: next, command: 'expireCredentials' } : undefined;
  },
} satisfies Machine<Connector>;

/** Whether a credential signs for the connector at `now`: active, and its expiry (if any) not reached. */
export function credentialValid(k: Credential, now = Date.now()): boolean {
  return k.status === 'active' && (k.expiresAt === undefined || Date.parse(k.expiresAt) > now);
}

const FIELDS = [
  'id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'externalReferences', 'extensions', 'status',
  'clientId', 'organizationId', 'name', 'environment', 'scopes', 'actorRoles', 'credentials', 'tokenPolicy', 'disabledAt', 'retiredAt', 'statusReason',
];

export const connector = defineResource({
  kind: KIND,
  retention: { kept: 'the registry\'s record of a client: its keys and scopes are audited for as long as its organization is' },
  collection: 'connectors',
  workflowType: 'connectorWorkflow',
  table: 'connectors',
  indexedFields: ['clientId'],
  statuses: ['active', 'disabled', 'retired'],
  terminalStatuses: ['retired'],
  scopes: { read: 'connectors:manage', write: 'connectors:manage' },
  operatorFeed: true,
  // The organization's own admins see it whole; the operator sees every connector's envelope and what it may do.
  fields: Object.fromEntries(FIELDS.map((f) => [f, (['id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'status', 'clientId', 'organizationId', 'name', 'environment', 'scopes', 'disabledAt', 'retiredAt'].includes(f) ? 'envelope' : 'private') as 'envelope' | 'private'])),
  searchAttributes: (c) => ({ owner: c.organizationId, status: c.status }),
  // The secrets' hashes stay in the workflow: no document, view or event carries them.
  document: ({ secretHashes: _hashes, ...doc }) => doc,
  machine: connectorMachine,
  events: {
    'pcx.connector.created.v1': { emittedBy: 'create' },
    'pcx.connector.updated.v1': { emittedBy: 'update' },
    'pcx.connector.disabled.v1': { emittedBy: 'disable' },
    'pcx.connector.enabled.v1': { emittedBy: 'enable' },
    'pcx.connector.retired.v1': { emittedBy: 'retire' },
    'pcx.connector.credential-added.v1': { emittedBy: 'addCredential' },
    'pcx.connector.credential-rolled.v1': { emittedBy: 'rollCredential' },
    'pcx.connector.credential-revoked.v1': { emittedBy: 'revokeCredential' },
    'pcx.connector.credential-expired.v1': { emittedBy: 'the timer at a credential\u2019s expiry' },
  },
});
