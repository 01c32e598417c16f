// The registry's managed records (organizations, connectors and users: domain/organization.ts,
// domain/connector.ts, domain/user.ts) as gates 2 and 3, the token endpoint and the webhook pump read them: kept in
// memory from the read model and refreshed every REFRESH_MS, so that a suspension, a revocation, a
// disable or an expiry written by any replica's command reaches every replica within a second. A
// refresh reads one cheap row per table (how many records, the sum of their versions: any
// transition changes it) and reloads a table only when that changed. What depends on time (a
// credential's expiry, an adherence period) is judged at the moment of the lookup, so it takes
// effect at its second even before its timer has fired.
import type { Db } from '../core/db';
import type { Connector as RegistryConnector, Organization as RegistryOrganization, User as RegistryUser } from '../core/registry';
import { credentialValid, type Connector } from '../domain/connector';
import { standingOf, type Organization } from '../domain/organization';
import { userStanding, type User } from '../domain/user';

export const REFRESH_MS = 250;

export interface ManagedRegistry {
  connector(clientId: string): RegistryConnector | undefined;
  organization(organizationId: string): RegistryOrganization | undefined;
  user(userId: string): RegistryUser | undefined;
  /** Reads the tables now where they changed (the token endpoint's and the poller's step). */
  refresh(): Promise<void>;
  stop(): void;
}

/** One table kept in memory by a key, reloaded when its mark (count and sum of versions) moves. */
function mirror<T>(db: Db, table: string, keyOf: (doc: T) => string) {
  let byKey = new Map<string, T>();
  let seen = '';
  return {
    get: (key: string) => byKey.get(key),
    async refresh() {
      const { rows } = await db.query<{ n: number; v: string | null }>(`select count(*)::int as n, sum(resource_version)::text as v from ${table}`);
      const mark = `${rows[0].n}:${rows[0].v ?? 0}`;
      if (mark === seen) return;
      const all = await db.query<{ doc: T }>(`select doc from ${table}`);
      byKey = new Map(all.rows.map((r) => [keyOf(r.doc), r.doc]));
      seen = mark;
    },
  };
}

/** Runs `refresh` every REFRESH_MS (one at a time: a slow one is not overtaken); the timer does not keep the process alive. */
export function everyFewMoments(refresh: () => Promise<void>, options: { refreshMs?: number; onError?: (err: unknown) => void } = {}): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    refresh()
      .catch((err) => options.onError?.(err))
      .finally(() => (running = false));
  }, options.refreshMs ?? REFRESH_MS);
  timer.unref();
  return timer;
}

/**
 * `openName`: a user's name as stored is sealed under the user's key (core/personal-data.ts); the
 * registry serves it opened (the identity provider's `name` claim, the principal), or the userId
 * once erased.
 */
export async function managedRegistry(db: Db, options: { refreshMs?: number; onError?: (err: unknown) => void; openName?: (stored: string) => string | undefined } = {}): Promise<ManagedRegistry> {
  const connectors = mirror<Connector>(db, 'connectors', (d) => d.clientId);
  const organizations = mirror<Organization>(db, 'organizations', (d) => d.organizationId);
  const users = mirror<User>(db, 'users', (d) => d.userId);
  const refresh = async () => {
    await Promise.all([connectors.refresh(), organizations.refresh(), users.refresh()]);
  };
  await refresh();
  const timer = everyFewMoments(refresh, options);
  return {
    connector(clientId) {
      const doc = connectors.get(clientId);
      return doc ? asRegistryConnector(doc) : undefined;
    },
    organization(organizationId) {
      const doc = organizations.get(organizationId);
      return doc ? asRegistryOrganization(doc) : undefined;
    },
    user(userId) {
      const doc = users.get(userId);
      return doc ? { userId: doc.userId, organizationId: doc.organizationId, name: (doc.name !== undefined ? (options.openName ?? String)(doc.name) : undefined) ?? doc.userId, roles: doc.roles, status: userStanding(doc), managed: { id: doc.id } } : undefined;
    },
    refresh,
    stop: () => clearInterval(timer),
  };
}

/** A managed connector as the registry's: active only while its status is, its keys those valid now. */
function asRegistryConnector(doc: Connector): RegistryConnector {
  const now = Date.now();
  const valid = doc.credentials.filter((k) => credentialValid(k, now));
  return {
    clientId: doc.clientId,
    organizationId: doc.organizationId,
    name: doc.name,
    scopes: doc.scopes,
    environment: doc.environment,
    status: doc.status === 'active' ? 'active' : 'inactive',
    actorRoles: doc.actorRoles ?? [],
    // The keys as the assertion verifier reads them (a chain is the registration's, not the key's).
    ...(valid.some((k) => k.publicJwk) ? { jwks: { keys: valid.filter((k) => k.publicJwk).map((k) => publicKeyOnly(k.publicJwk!)) } } : {}),
    managed: {
      credentialValid: (id) => doc.credentials.some((k) => k.credentialId === id && credentialValid(k)),
      secrets: valid.filter((k) => k.kind === 'clientSecret').map((k) => ({ credentialId: k.credentialId, hint: k.secretHint ?? '' })),
      unusableKey: (kid) => {
        const k = doc.credentials.find((c) => c.credentialId === kid && c.kind === 'privateKeyJwt');
        if (!k || credentialValid(k, now)) return undefined;
        if (k.status === 'revoked') return `was revoked at ${k.revokedAt}`;
        return `expired at ${k.expiredAt ?? k.expiresAt}`;
      },
      registeredChains: Object.fromEntries(valid.filter((k) => k.publicJwk?.x5c).map((k) => [k.credentialId, k.publicJwk!.x5c!])),
      certificateSubjects: valid.filter((k) => k.kind === 'tlsClientAuth').map((k) => ({ credentialId: k.credentialId, subjectDn: k.tlsClientAuthSubjectDn! })),
      keySetUris: valid.filter((k) => k.kind === 'jwksUri').map((k) => ({ credentialId: k.credentialId, uri: k.jwksUri! })),
    },
    ...(doc.tokenPolicy ? { tokenPolicy: doc.tokenPolicy } : {}),
  };
}

function publicKeyOnly(jwk: Connector['credentials'][number]['publicJwk'] & object) {
  const { x5c: _chain, ...key } = jwk;
  return key;
}

/** A managed organization as the registry's: where it stands now (its adherence period counted). */
function asRegistryOrganization(doc: Organization): RegistryOrganization {
  const standing = standingOf(doc);
  return {
    organizationId: doc.organizationId,
    name: doc.name,
    status: standing === 'ended' ? 'inactive' : standing,
    role: doc.role,
    partneringPolicy: { grantedScopes: doc.partneringPolicy.grantedScopes },
    scopeCeiling: doc.scopeCeiling,
    managed: true,
  };
}
