// The specification's twelve authorization gates as one explicit, ordered pipeline.
//
//   1 token validity and broker audience      authenticate (middleware, every protected route)
//   2 active connector or user registration   authenticate
//   3 active organization                     authenticate
//   6 granted client scope                    authorize: checked before ownership (see below)
//   4 resource ownership or participation     authorize: policy.load + policy.role
//   5 active partner relationship             authorize: for partners of the owner only
//   7 bilateral relationship policy           authorize: the relationship's scopes
//   8 resource visibility policy              authorize: the resource's visibility
//   9 field disclosure phase                  views (domain/views.ts) project per audience
//  10 actor role for decisions                entity workflow validator (domain/machine.ts)
//  11 lifecycle preconditions                 entity workflow validator
//  12 resource version and expiry             entity workflow validator (version first, so a
//                                             race loser always sees 409; docs/decisions.md)
//
// The specification lists ownership (4) before scope (6) but also says "scope is checked before
// ownership"; we check scope first, so a token without the scope learns nothing about which
// resources exist (docs/decisions.md, "Gate order"). Each gate either passes or throws; no gate
// short-circuits a later one: an owner skips 5, 7 and 8 only because they concern partners.
import type { MiddlewareHandler } from 'hono';
import { Problem } from '../domain/problems';
import { parseScopeClaim } from '../domain/scopes';
import type { TokenClaims } from '../core/auth';
import { randomUUID } from 'node:crypto';
import { EntityUnavailable } from '../core/entities';
import { userScopes, type User } from '../core/registry';
import { BROKER } from '../domain/machine';
import { user as userResource } from '../domain/user';
import { relationshipInForce, type RelationshipInForce } from '../read-model/partner-relationship';
import type { AppEnv, Principal, Services } from './context';
import { notFound, type Ctx } from './http';
import { purgedRecordFor } from '../read-model/purged-records';
import { isUuid } from '../domain/ids';
import { clientCertificate } from './client-certificate';
import { certificateThumbprint } from '../core/certificate-binding';
import { DPOP_ALGORITHMS, dpopChallenge, normalizedUrl, ProofRefused, verifyDpopProof } from '../core/dpop';
import { rememberAssertion } from '../read-model/client-assertions';

/** Gates 1-3. Runs before anything else on protected routes, so a wrong audience is a 401 first. */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const services = c.get('services');
  // Gate 1: a token signed by the configured key set, for this broker's audience: a bearer token,
  // or a DPoP-bound one with its proof (RFC 9449 section 7).
  const header = c.req.header('authorization') ?? '';
  const m = /^(Bearer|DPoP) ([A-Za-z0-9_.~+/-]+=*)$/i.exec(header.trim());
  if (!m) throw new Problem('UNAUTHENTICATED', 'send an OAuth 2.0 access token in the Authorization header (Bearer, or DPoP with a DPoP proof)', {}, { 'www-authenticate': `Bearer, DPoP algs="${DPOP_ALGORITHMS.join(' ')}"` });
  const scheme = m[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  const claims = await services.verifyToken(m[2]);
  // Revoked by its connector (RFC 7009, api/token-lifecycle.ts): refused on every replica.
  if (typeof claims.jti === 'string' && services.oauth.revocations.has(claims.jti)) {
    throw new Problem('INVALID_TOKEN', 'the token was revoked: get a new one', {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
  }
  // A certificate-bound token (RFC 8705 section 3) counts only with its certificate.
  const boundTo = claims.cnf?.['x5t#S256'];
  if (boundTo !== undefined) {
    const certificate = clientCertificate(c);
    if (!certificate || certificateThumbprint(certificate) !== boundTo) {
      throw new Problem('INVALID_TOKEN', 'the token is bound to a client certificate (RFC 8705): send it over the mutual-TLS address with that certificate', {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
    }
  }
  await checkDpopBinding(c, scheme, m[2], claims);
  const principal = claims.kind === 'user' ? await userPrincipal(services, claims) : connectorPrincipal(services, claims);
  organizationMayAct(services, principal.organizationId, c.req.method, c.req.path);
  c.set('principal', principal);
  await next();
};

/**
 * RFC 9449 section 7: a DPoP-bound token (cnf.jkt) is presented as `Authorization: DPoP` with a
 * proof of its key for this request (htm, htu, ath, a jti used once, the nonce where the broker
 * asks for one); a bearer token is not presented as DPoP. Answers carry the next nonce.
 */
async function checkDpopBinding(c: Ctx, scheme: 'Bearer' | 'DPoP', token: string, claims: TokenClaims): Promise<void> {
  const { config, oauth: state, db } = c.get('services');
  const jkt = claims.cnf?.jkt;
  const nonce = config.auth.dpop.nonce ? state.nonces.current() : undefined;
  const refused = (error: string, description: string, code: 'INVALID_TOKEN' | 'DPOP_PROOF_REFUSED' = 'DPOP_PROOF_REFUSED') =>
    new Problem(code, description, {}, { 'www-authenticate': dpopChallenge(error, description), ...(nonce ? { 'dpop-nonce': nonce } : {}) });
  if (jkt === undefined) {
    if (scheme === 'DPoP') throw refused('invalid_token', 'the token is not bound to a DPoP key: send it as Authorization: Bearer', 'INVALID_TOKEN');
    return;
  }
  if (scheme !== 'DPoP') throw refused('invalid_token', 'the token is bound to a DPoP key (RFC 9449): send it as Authorization: DPoP with a DPoP proof', 'INVALID_TOKEN');
  const proof = c.req.header('dpop');
  if (!proof) throw refused('invalid_dpop_proof', 'send a DPoP proof header with the DPoP-bound token');
  if (proof.includes(',')) throw refused('invalid_dpop_proof', 'send exactly one DPoP header');
  try {
    const path = new URL(c.req.url).pathname;
    const verified = await verifyDpopProof(proof, {
      method: c.req.method,
      urls: [`${config.publicBaseUrl}${path}`, ...(config.mtls ? [`${config.mtls.baseUrl}${path}`] : [])].map(normalizedUrl),
      accessToken: token,
      ...(config.auth.dpop.nonce ? { nonce: (value: unknown) => state.nonces.valid(value) } : {}),
      skewSeconds: config.auth.clockSkewSeconds,
    });
    if (verified.jkt !== jkt) throw new ProofRefused('invalid_dpop_proof', "the DPoP proof is signed by another key than the one the token is bound to");
    if (!(await rememberAssertion(db, `dpop:${verified.jkt}`, verified.jti, verified.rememberUntil))) throw new ProofRefused('invalid_dpop_proof', 'the DPoP proof was used before (its jti): make a new proof for every request');
  } catch (err) {
    if (err instanceof ProofRefused) throw refused(err.kind, err.message);
    throw err;
  }
  if (nonce) c.header('dpop-nonce', nonce);
}

/** Gates 2-3 for a connector: registered, active, of this environment, bound to org_id; its organization active. */
export function connectorPrincipal(services: Services, claims: TokenClaims): Principal {
  // Gate 2: the client is a registered, active connector of this environment, bound to org_id.
  const connector = services.registry.connector(claims.sub);
  if (!connector || connector.status !== 'active' || connector.environment !== services.config.registry.environment) {
    throw new Problem('CONNECTOR_INACTIVE', 'the client is not an active connector of this broker environment');
  }
  if (claims.org_id !== connector.organizationId) {
    throw new Problem('INVALID_TOKEN', 'the token org_id does not match the organization the connector is bound to');
  }
  // A managed connector's token is good while the credential it was issued to is (revoked or
  // expired: refused at once, whatever the token's own expiry).
  if (connector.managed && typeof claims.cred === 'string' && !connector.managed.credentialValid(claims.cred)) {
    throw new Problem('CREDENTIAL_INVALID', 'the credential this token was issued to was revoked or has expired: get a token with a valid one');
  }
  const organization = activeOrganization(services, connector.organizationId, 'connector');
  // The token cannot grant more than the registry allows the connector (tokens outlive edits).
  const scopes = new Set([...parseScopeClaim(claims.scope)].filter((s) => connector.scopes.includes(s)));
  return {
    organizationId: connector.organizationId,
    clientId: connector.clientId,
    scopes,
    operator: organization.role === 'operator' && scopes.has('exchange:admin'),
    tokenId: tokenIdOf(claims),
    expiresAt: expiryOf(claims),
    actorRoles: connector.actorRoles,
  };
}

/**
 * Gates 2-3 for an interactive user: a registered, active user bound to org_id, the token issued
 * to the configured console client; the scopes are what the token carries and the user's roles
 * allow, checked on every request (a role taken away or a user disabled takes effect at once).
 */
async function userPrincipal(services: Services, claims: TokenClaims): Promise<Principal> {
  const user = registeredUser(services, claims);
  // An invited user's first signed-in request accepts the invitation (the identity provider proved who it is).
  if (user.status === 'invited') await acceptInvitation(services, user);
  const organization = activeOrganization(services, user.organizationId, 'user');
  const allowed = userScopes(user);
  const scopes = new Set([...parseScopeClaim(claims.scope)].filter((s) => allowed.includes(s)));
  return {
    organizationId: user.organizationId,
    clientId: claims.client_id!,
    userId: user.userId,
    scopes,
    // A user with the operator role acts as the protocol operator only in the operator's organization.
    operator: organization.role === 'operator' && scopes.has('exchange:admin'),
    tokenId: tokenIdOf(claims),
    expiresAt: expiryOf(claims),
    actorRoles: user.roles,
  };
}

/** Gate 2 for a user's token, without effects (introspection asks it too): a registered user, active or invited, bound to org_id, the token the console's. */
export function registeredUser(services: Services, claims: TokenClaims): User {
  const user = services.registry.user(claims.sub);
  if (!user || (user.status !== 'active' && user.status !== 'invited')) throw new Problem('USER_INACTIVE', 'the user is not an active user of this broker');
  if (claims.client_id !== services.config.auth.users!.clientId) throw new Problem('INVALID_TOKEN', 'the token was not issued to the console client this broker accepts');
  if (claims.org_id !== user.organizationId) throw new Problem('INVALID_TOKEN', 'the token org_id does not match the organization the user belongs to');
  return user;
}

/** Gate 3's first part for introspection: the organization of the token's subject exists and has not ended. */
export function organizationActive(services: Services, organizationId: string): boolean {
  const organization = services.registry.organization(organizationId);
  return organization !== undefined && organization.status !== 'inactive';
}

/** The invitation of a managed user accepted by its own first request; refused if it has ended meanwhile. */
async function acceptInvitation(services: Services, user: User): Promise<void> {
  let answer;
  try {
    answer = await services.entities.send(userResource, user.managed!.id, {
      name: 'accept',
      commandId: randomUUID(),
      // The broker accepts for the user whose token it just verified (a broker command needs no If-Match).
      actor: BROKER,
      payload: {},
      correlationId: `accept:${user.userId}`,
    });
  } catch (err) {
    if (err instanceof EntityUnavailable) throw Problem.unavailable();
    throw err;
  }
  // Accepted by this request, or by a simultaneous one a moment before.
  const accepted = answer.ok || ('refusal' in answer && (await services.registry.refresh(), services.registry.user(user.userId)?.status === 'active'));
  if (!accepted) throw new Problem('USER_INACTIVE', 'the invitation has ended: ask your organization\'s admin for a new one');
  await services.registry.refresh();
}

/** Gate 3, first part: the organization exists and has not ended. */
function activeOrganization(services: Services, organizationId: string, who: 'connector' | 'user') {
  const organization = services.registry.organization(organizationId);
  if (!organization || organization.status === 'inactive') throw new Problem('ORGANIZATION_INACTIVE', `the organization of this ${who} is not active`);
  return organization;
}

/** Where an organization manages itself: its record, its connectors and their keys; and reads its own feed (its verification arrives there). */
const SELF_MANAGEMENT = /^\/(organizations|connectors|users)(\/|$)/;
const OWN_FEED = /^\/events\/?$/;

/**
 * Gate 3, second part (docs/decisions.md, "What gate 3 lets an organization do"): an active
 * organization does what its scopes allow; a pending one (not verified yet) only manages itself,
 * so that it can prepare its connectors before the operator verifies it; a suspended one reads,
 * and manages itself (it can still revoke a key), but issues no command.
 */
function organizationMayAct(services: Services, organizationId: string, method: string, path: string): void {
  const status = services.registry.organization(organizationId)?.status;
  if (status === 'active' || SELF_MANAGEMENT.test(path) || (OWN_FEED.test(path) && method === 'GET')) return;
  if (status === 'pending') throw new Problem('ORGANIZATION_UNVERIFIED', 'the organization is not verified yet (or its adherence period has not begun): it may manage its record and connectors and read its feed, nothing else');
  if (status === 'suspended' && method !== 'GET' && method !== 'HEAD') throw new Problem('ORGANIZATION_SUSPENDED', 'the organization is suspended: it may read, and manage its record and connectors, but issue no command');
}

const expiryOf = (claims: TokenClaims) => (typeof claims.exp === 'number' ? claims.exp * 1000 : undefined);
const tokenIdOf = (claims: TokenClaims) => (typeof claims.jti === 'string' ? claims.jti : `${claims.sub}:${claims.iat ?? 0}`);

/**
 * How the caller stands to a resource (gate 4): its owner, one of its participants (the same
 * `participants` gate 9 reads), a counterpart of an accepted match with it (a listing), a partner
 * of its owner (gates 5, 7 and 8 decide), a protocol operator holding the admin scope, or nobody
 * (404). Gate 9's audience (domain/views.ts) is decided from the same facts.
 */
export type Role = 'owner' | 'participant' | 'counterpart' | 'partner' | 'operator' | 'none';

export interface AccessPolicy<R> {
  /** Gate 6: the exact scope (or every one of the scopes) the operation needs. */
  scope: string | readonly string[];
  /** Gate 6 besides `scope`: at least one of these (reads open to writers and reviewers alike). */
  anyScope?: readonly string[];
  /** Gate 4: loads the resource; undefined means it does not exist. */
  load?: (c: Ctx) => Promise<R | undefined>;
  /** Gate 4: the caller's standing; `partner` sends the caller through gates 5, 7 and 8. */
  role?: (resource: R, principal: Principal) => Role;
  /** Gates 5, 7, 8 for callers whose role is `partner`. */
  partner?: {
    ownerOf: (resource: R) => string;
    /** Gate 7: the scope the relationship must grant to share this resource. */
    relationshipScope: string;
    /** Gate 8: whether the resource's own visibility includes this partner. */
    visible: (resource: R, relationship: RelationshipInForce, organizationId: string) => boolean;
  };
}

export interface Access<R> {
  principal: Principal;
  resource: R;
}

export function requireScope(principal: Principal, scope: string) {
  // Gate 6: exact match in a flat set; no scope implies another.
  if (!principal.scopes.has(scope)) throw new Problem('INSUFFICIENT_SCOPE', `this operation needs the scope ${scope}`, { requiredScope: scope });
}

/**
 * A record the caller could read that the retention purge removed: 410 RECORD_PURGED naming its
 * tombstone (api/retention.ts); anything else, or for anyone else: 404.
 */
async function purgedOrNotFound(c: Ctx, principal: Principal): Promise<Problem> {
  const id = c.req.param('id');
  if (!id || !isUuid(id)) return notFound();
  const tombstone = await purgedRecordFor(c.get('services').db, id, principal);
  if (!tombstone) return notFound();
  return new Problem('RECORD_PURGED', `the ${tombstone.resourceKind} was purged on ${tombstone.purgedAt}, ${tombstone.period} after it became ${tombstone.finalStatus} (retention policy ${tombstone.retentionPolicyRef})`, {
    purgedAt: tombstone.purgedAt,
    tombstone: `/purged-records/${tombstone.id}`,
  });
}

export async function authorize<R>(c: Ctx, policy: AccessPolicy<R>): Promise<Access<R>> {
  const principal = c.get('principal');
  for (const scope of typeof policy.scope === 'string' ? [policy.scope] : policy.scope) requireScope(principal, scope);
  if (policy.anyScope && !policy.anyScope.some((s) => principal.scopes.has(s))) {
    throw new Problem('INSUFFICIENT_SCOPE', `this operation needs one of the scopes ${policy.anyScope.join(', ')}`, { requiredScopes: policy.anyScope });
  }
  if (!policy.load || !policy.role) return { principal, resource: undefined as R };
  // Gate 4.
  const resource = await policy.load(c);
  if (resource === undefined) throw await purgedOrNotFound(c, principal);
  const role = policy.role(resource, principal);
  if (role === 'none') throw notFound();
  if (role !== 'partner') return { principal, resource };
  if (!policy.partner) throw notFound();
  // Gate 5: an active relationship between the owner and the caller, in force now.
  const relationship = await relationshipInForce(c.get('services').db, policy.partner.ownerOf(resource), principal.organizationId);
  if (!relationship) throw notFound();
  // Gate 7: the relationship grants the sharing scope.
  if (!relationship.scopes.includes(policy.partner.relationshipScope)) throw notFound();
  // Gate 8: the resource's own visibility includes the caller.
  if (!policy.partner.visible(resource, relationship, principal.organizationId)) throw notFound();
  return { principal, resource };
}
