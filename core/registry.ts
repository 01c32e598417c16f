// Organizations and connectors known to the broker, loaded from configuration files at start.
// A connector (OAuth client) is bound to exactly one organization and one environment; the
// organization carries its partnering policy: the scopes it grants to partners.
//
// A connector's credential is not the broker's business in production: connectors obtain tokens
// from the external authorization server (AUTH_ISSUER, keys at AUTH_JWKS_URL) and authenticate to
// it with private_key_jwt or mutual TLS; the token's `sub` names the registry entry. Only the
// development authorization server (DEV_AUTH, dev/oauth.ts) checks a `clientSecret`, so the field
// is required when it is on, refused in production mode and otherwise dropped (docs/deployment.md,
// "Connector registration").
import { existsSync, readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import { checkPublicJwk } from './public-keys';
import type { TokenPolicy } from '../domain/connector';
import { RELATIONSHIP_SCOPES, SCOPES } from '../domain/scopes';

export interface Organization {
  organizationId: string;
  name: string;
  /**
   * Where it stands now (gate 3, api/gates.ts): `active`; `pending` (registered, not verified, or
   * before its adherence period); `suspended` by the operator; `inactive` (ended, or outside its
   * adherence period). The files know only active and inactive.
   */
  status: 'active' | 'pending' | 'suspended' | 'inactive';
  /** `operator`: the protocol operator, whose admin-scoped connectors may cancel any listing. */
  role: 'participant' | 'operator';
  partneringPolicy: { grantedScopes: string[] };
  /** The scopes its connectors may be given (a managed record's; the file's: every scope but exchange:admin, for the operator every one). */
  scopeCeiling?: string[];
  /** Its directory listing as the file gives it (imported with the seed; the record's is the operator's from then on). */
  directoryListing?: { listed: boolean; description?: string; country?: string };
  /** A record of the exchange (domain/organization.ts), not an entry of the file. */
  managed?: boolean;
}

export interface Connector {
  clientId: string;
  /** Only with the development authorization server; absent otherwise. */
  clientSecret?: string;
  /**
   * The public keys of its private_key_jwt credentials (RFC 7591's `jwks` client metadata): the
   * broker's token endpoint accepts a client assertion signed by one of them (core/client-assertion.ts).
   * For a managed connector, the keys of its credentials that are valid now.
   */
  jwks?: { keys: JWK[] };
  /**
   * A managed connector (domain/connector.ts), not one of the file: whether a credential is valid
   * now, and its generated client secrets valid now (their ids and hints; the hashes are in the
   * read model's secret store).
   */
  managed?: {
    credentialValid(credentialId: string): boolean;
    secrets: Array<{ credentialId: string; hint: string }>;
    /** Why a key it had may not sign now ("was revoked at ...", "expired at ..."), by kid; undefined for a valid or unknown one. */
    unusableKey(kid: string): string | undefined;
    /** The certificate chains its keys were registered with (x5c), by kid. */
    registeredChains: Record<string, string[]>;
    /** Its tls_client_auth certificate subjects valid now (RFC 4514), with their credential ids. */
    certificateSubjects: Array<{ credentialId: string; subjectDn: string }>;
    /** Its jwks_uri credentials valid now. */
    keySetUris: Array<{ credentialId: string; uri: string }>;
  };
  /** How its tokens are issued (a managed connector's token policy; the operator's defaults otherwise). */
  tokenPolicy?: TokenPolicy;
  organizationId: string;
  name: string;
  scopes: string[];
  environment: string;
  status: 'active' | 'inactive';
  /**
   * The actor roles of the connector (gate 10): a relationship's decision policy may let only
   * some roles decide on matches (`decisionPolicy.decidingRoles`). Free words such as `planner`,
   * `dispatcher`, `sales`; none by default.
   */
  actorRoles: string[];
}

/**
 * An interactive user (a planner at a console): one organization, roles that say what the user may
 * do, and a status that gate 2 checks at once (a disabled user's tokens stop working on the next
 * request). Registered like connectors; its identity is proven by the identity provider (the
 * development provider checks `password`, which exists only there, as a connector's clientSecret).
 */
export interface User {
  userId: string;
  organizationId: string;
  name: string;
  roles: UserRole[];
  /** `invited`: a managed user whose invitation is open; its first signed-in request accepts it (api/gates.ts). */
  status: 'active' | 'inactive' | 'invited';
  /** A record of the exchange (domain/user.ts), not an entry of the users file: its record id. */
  managed?: { id: string };
  /** Only with the development identity provider. */
  password?: string;
}

/**
 * planner: reads, posts the organization's trucks and loads, decides matches and tenders, issues tenders, hands
 * over and acknowledges execution packages, reports milestones and outcomes (a carrier without a TMS); viewer: reads only; admin: reads and
 * manages the organization (its record, connectors and their keys: connectors:manage); operator:
 * the protocol operator's (exchange:admin: registers, verifies, suspends and ends organizations),
 * which counts only for a user of the operator's organization (api/gates.ts). Roles add up.
 */
export type { UserRole } from '../domain/user';
import { USER_ROLES, type UserRole } from '../domain/user';

const READ_SCOPES = ['capacity:read', 'loads:read', 'matches:read', 'tenders:read', 'commitments:read', 'handovers:read', 'outcomes:review'];
export const ROLE_SCOPES: Record<UserRole, readonly string[]> = {
  viewer: READ_SCOPES,
  planner: [...READ_SCOPES, 'capacity:publish', 'loads:publish', 'matches:decide', 'tenders:publish', 'tenders:decide', 'handovers:write', 'handovers:acknowledge', 'execution:update', 'outcomes:write'],
  admin: [...READ_SCOPES, 'connectors:manage', 'relationships:manage'],
  operator: [...READ_SCOPES, 'connectors:manage', 'exchange:admin'],
};

/** The scopes a user's roles allow (the union). */
export function userScopes(user: Pick<User, 'roles'>): string[] {
  return [...new Set(user.roles.flatMap((r) => ROLE_SCOPES[r]))];
}

/**
 * What the loader does with `clientSecret`: `required` while the development authorization server
 * runs (it is the connector's password there), `refused` in production mode (a secret nothing reads
 * is only a liability), `ignored` otherwise (development against an external issuer: the demo
 * files stay usable, the secrets are dropped with a warning).
 */
export type ClientSecretPolicy = 'required' | 'refused' | 'ignored';

export function clientSecretPolicy(config: { mode: 'development' | 'production'; auth: { devServer: boolean } }): ClientSecretPolicy {
  if (config.auth.devServer) return 'required';
  return config.mode === 'production' ? 'refused' : 'ignored';
}

/** The registry the configuration names (organizations and connectors files). */
export function loadRegistry(config: {
  mode: 'development' | 'production';
  auth: { devServer: boolean };
  registry: { organizationsFile: string; connectorsFile: string; usersFile?: string; environment: string };
}): Registry {
  const registry = Registry.load(config.registry.organizationsFile, config.registry.connectorsFile, config.registry.environment, clientSecretPolicy(config));
  if (config.registry.usersFile) registry.loadUsers(config.registry.usersFile, clientSecretPolicy(config));
  return registry;
}

/** The managed records the registry overlays (read-model/managed-registry.ts). */
export interface ManagedSource {
  connector(clientId: string): Connector | undefined;
  user(userId: string): User | undefined;
  organization(organizationId: string): Organization | undefined;
  refresh(): Promise<void>;
}

export class Registry {
  private readonly organizations = new Map<string, Organization>();
  private readonly connectors = new Map<string, Connector>();
  private readonly users = new Map<string, User>();
  /** Things the loader accepted but an operator should hear about (logged at start). */
  readonly warnings: string[] = [];

  constructor(organizations: Organization[], connectors: Connector[]) {
    for (const o of organizations) this.organizations.set(o.organizationId, o);
    for (const c of connectors) this.connectors.set(c.clientId, c);
  }

  /**
   * An organization: its record (domain/organization.ts, the read model's as the last refresh saw
   * it), else the file's entry. The record wins: the files are the seed, imported as records at
   * start (seed.ts), and the operator's changes are the record's.
   */
  organization(id: string): Organization | undefined {
    return this.managedSource?.organization(id) ?? this.organizations.get(id);
  }

  /** The organizations of the file, for the seed import. */
  fileOrganizations(): Organization[] {
    return [...this.organizations.values()];
  }

  /** The connectors of the file, for the seed import. */
  fileConnectors(): Connector[] {
    return [...this.connectors.values()];
  }

  /** The users of the file, for the seed import. */
  fileUsers(): User[] {
    return [...this.users.values()];
  }

  /**
   * A connector by client id: its record (domain/connector.ts, the read model's as the last
   * refresh saw it: useManaged), else the connectors file's entry. The record wins, as for
   * organizations: the file is the seed (seed.ts) and the admin's changes are the record's.
   * `fileOnly`: the file's alone.
   */
  connector(clientId: string, options: { fileOnly?: boolean } = {}): Connector | undefined {
    if (options.fileOnly) return this.connectors.get(clientId);
    return this.managedSource?.connector(clientId) ?? this.connectors.get(clientId);
  }

  private managedSource: ManagedSource | undefined;

  /** Where managed records are looked up (read-model/managed-registry.ts keeps them fresh), and how to read them now. */
  useManaged(source: ManagedSource): void {
    this.managedSource = source;
  }

  /**
   * The managed connectors as the read model holds them this moment: the token endpoint asks
   * before it decides, so a key added or revoked a moment ago counts at once (a cheap query).
   */
  async refresh(): Promise<void> {
    await this.managedSource?.refresh();
  }

  /** A user: its record (domain/user.ts, as the last refresh saw it), else the users file's entry (the seed's, as connectors). */
  user(userId: string, options: { fileOnly?: boolean } = {}): User | undefined {
    if (options.fileOnly) return this.users.get(userId);
    return this.managedSource?.user(userId) ?? this.users.get(userId);
  }

  /** The users file (a JSON array); a missing file means no users. Passwords as clientSecrets. */
  loadUsers(file: string, passwords: ClientSecretPolicy): void {
    if (!existsSync(file)) return void this.warnings.push(`${file}: no such users file; no interactive users`);
    const problems: string[] = [];
    readArray(file, problems).forEach((u, i) => {
      const at = `${file}[${i}]`;
      if (typeof u.userId !== 'string' || !/^[A-Za-z0-9._@-]{1,128}$/.test(u.userId)) problems.push(`${at}.userId is required (letters, digits, . _ @ -)`);
      else if (this.users.has(u.userId)) problems.push(`${at} registers userId ${u.userId} a second time`);
      if (!this.organizations.has(u.organizationId)) problems.push(`${at} names unknown organization ${u.organizationId}`);
      if (!Array.isArray(u.roles) || u.roles.length === 0 || u.roles.some((r: unknown) => !USER_ROLES.includes(r as UserRole))) problems.push(`${at}.roles must be a non-empty array of ${USER_ROLES.join(', ')}`);
      if (u.status !== undefined && u.status !== 'active' && u.status !== 'inactive') problems.push(`${at}.status must be active or inactive`);
      if (passwords === 'required' && (typeof u.password !== 'string' || !u.password)) problems.push(`${at}.password is required while the development identity provider is on`);
      if (passwords === 'refused' && u.password !== undefined) problems.push(`${at} (userId ${u.userId}) carries a password: users sign in at the organization's identity provider; remove the field`);
      this.users.set(u.userId, {
        userId: u.userId,
        organizationId: u.organizationId,
        name: typeof u.name === 'string' ? u.name : u.userId,
        roles: Array.isArray(u.roles) ? u.roles : [],
        status: u.status === 'inactive' ? 'inactive' : 'active',
        ...(passwords === 'required' ? { password: u.password } : {}),
      });
    });
    if (problems.length) throw new Error(`invalid users configuration:\n  - ${problems.join('\n  - ')}`);
  }

  grantedScopes(organizationId: string): string[] {
    return this.organization(organizationId)?.partneringPolicy.grantedScopes ?? [];
  }

  static load(organizationsFile: string, connectorsFile: string, defaultEnvironment: string, clientSecrets: ClientSecretPolicy = 'required'): Registry {
    const problems: string[] = [];
    const organizations = readArray(organizationsFile, problems).map((o, i) => organizationOf(o, `${organizationsFile}[${i}]`, problems));
    const known = new Set(organizations.map((o) => o.organizationId));
    const clientIds = new Set<string>();
    const entries = readArray(connectorsFile, problems);
    const connectors = entries.map((c, i) => {
      const at = `${connectorsFile}[${i}]`;
      if (typeof c.clientId === 'string' && c.clientId) {
        // Tokens name their connector by `sub` alone: two entries for one id would be ambiguous.
        if (clientIds.has(c.clientId)) problems.push(`${at} registers clientId ${c.clientId} a second time`);
        clientIds.add(c.clientId);
      }
      if (!known.has(c.organizationId)) problems.push(`${at} names unknown organization ${c.organizationId}`);
      return connectorOf(c, at, { clientSecrets, defaultEnvironment }, problems);
    });
    if (problems.length) throw new Error(`invalid registry configuration:\n  - ${problems.join('\n  - ')}`);
    const registry = new Registry(organizations, connectors);
    const droppedSecrets = clientSecrets === 'ignored' ? entries.filter((c) => c.clientSecret !== undefined).length : 0;
    if (droppedSecrets) {
      registry.warnings.push(`${connectorsFile}: ignored the clientSecret of ${droppedSecrets} connector(s); only the development authorization server (DEV_AUTH) reads it`);
    }
    return registry;
  }
}

/** A registry file: a JSON array, or a problem naming the file. */
function readArray(file: string, problems: string[]): any[] {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    if (!Array.isArray(v)) throw new Error('must be a JSON array');
    return v;
  } catch (err) {
    problems.push(`${file}: ${(err as Error).message}`);
    return [];
  }
}

function organizationOf(o: any, at: string, problems: string[]): Organization {
  if (typeof o.organizationId !== 'string' || !o.organizationId) problems.push(`${at}.organizationId is required`);
  const granted: string[] = o.partneringPolicy?.grantedScopes ?? [...RELATIONSHIP_SCOPES];
  for (const s of granted) if (!RELATIONSHIP_SCOPES.includes(s as any)) problems.push(`${at} grants unknown scope ${s}`);
  return {
    organizationId: o.organizationId,
    name: o.name ?? o.organizationId,
    status: o.status === 'inactive' ? 'inactive' : 'active',
    role: o.role === 'operator' ? 'operator' : 'participant',
    partneringPolicy: { grantedScopes: granted },
    ...(o.directoryListing !== undefined ? { directoryListing: o.directoryListing } : {}),
  };
}

/** One connector entry, checked field by field (every problem named with its place in the file). */
function connectorOf(c: any, at: string, options: { clientSecrets: ClientSecretPolicy; defaultEnvironment: string }, problems: string[]): Connector {
  for (const field of ['organizationId', 'clientId']) if (typeof c[field] !== 'string' || !c[field]) problems.push(`${at}.${field} is required`);
  const jwks = publicKeysOf(c.jwks, `${at}.jwks`, problems);
  if (options.clientSecrets === 'required' && (typeof c.clientSecret !== 'string' || !c.clientSecret) && !jwks) {
    problems.push(`${at} needs a clientSecret or public keys (jwks) while the development authorization server (DEV_AUTH) is on`);
  }
  if (options.clientSecrets === 'refused' && c.clientSecret !== undefined) {
    problems.push(
      `${at} (clientId ${c.clientId}) carries a clientSecret: in production connectors authenticate to the identity provider (private_key_jwt or mutual TLS) and the broker holds no secret; remove the field`,
    );
  }
  if (c.scopes !== undefined && !Array.isArray(c.scopes)) problems.push(`${at}.scopes must be an array of scopes`);
  for (const s of Array.isArray(c.scopes) ? c.scopes : []) if (!(SCOPES as readonly string[]).includes(s)) problems.push(`${at} has unknown scope ${s}`);
  // A mistyped status must not leave a revoked connector active.
  if (c.status !== undefined && c.status !== 'active' && c.status !== 'inactive') problems.push(`${at}.status must be active or inactive, not ${JSON.stringify(c.status)}`);
  if (c.actorRoles !== undefined && (!Array.isArray(c.actorRoles) || c.actorRoles.some((r: unknown) => typeof r !== 'string' || !/^[a-z][a-zA-Z0-9-]{0,39}$/.test(r)))) {
    problems.push(`${at}.actorRoles must be an array of role names (a-z, digits, dashes)`);
  }
  if (c.environment !== undefined && (typeof c.environment !== 'string' || !c.environment)) problems.push(`${at}.environment must be a non-empty string`);
  return {
    clientId: c.clientId,
    ...(options.clientSecrets === 'required' && typeof c.clientSecret === 'string' ? { clientSecret: c.clientSecret } : {}),
    ...(jwks ? { jwks } : {}),
    organizationId: c.organizationId,
    name: c.name ?? c.clientId,
    scopes: Array.isArray(c.scopes) ? c.scopes : [],
    environment: c.environment ?? options.defaultEnvironment,
    status: c.status === 'inactive' ? 'inactive' : 'active',
    actorRoles: Array.isArray(c.actorRoles) ? c.actorRoles : [],
  };
}

/** A connector's `jwks` (public keys for private_key_jwt), checked key by key; undefined when absent or empty. */
function publicKeysOf(value: unknown, at: string, problems: string[]): { keys: JWK[] } | undefined {
  if (value === undefined) return undefined;
  const keys = (value as { keys?: unknown })?.keys;
  if (!Array.isArray(keys)) {
    problems.push(`${at} must be a JWK Set: {"keys": [...]}`);
    return undefined;
  }
  const kids = new Set<string>();
  keys.forEach((k: any, i: number) => {
    const where = `${at}.keys[${i}]`;
    if (!k || typeof k !== 'object' || !['EC', 'RSA', 'OKP'].includes(k.kty)) problems.push(`${where} must be a public EC, RSA or OKP key`);
    else {
      // The same checks as a key registered through the API (a weak key in a seed is no better).
      const check = checkPublicJwk(k);
      if (!check.ok) problems.push(`${where} ${check.reason}`);
    }
    if (k?.kid !== undefined) {
      if (typeof k.kid !== 'string' || kids.has(k.kid)) problems.push(`${where}.kid must be a string unique among the connector's keys`);
      kids.add(k.kid);
    }
  });
  return keys.length ? { keys } : undefined;
}
