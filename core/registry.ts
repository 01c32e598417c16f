// Organizations and connectors known to the broker, loaded from configuration files at start.
// A connector (OAuth client) is bound to exactly one organization and one environment; the
// organization carries its partnering policy: the scopes it grants to partners.
//
// A connector's credential is not the broker's business in production: connectors obtain tokens
// from the external authorization server (AUTH_ISSUER, keys at AUTH_JWKS_URL) and authenticate to
// it with private_key_jwt or mutual TLS; the token's `sub` names the registry entry. Only the
// development authorization server (DEV_AUTH, api/oauth.ts) checks a `clientSecret`, so the field
// is required when it is on, refused in production mode and otherwise dropped (docs/deployment.md,
// "Connector registration").
import { readFileSync } from 'node:fs';
import { RELATIONSHIP_SCOPES, SCOPES } from './scopes';

export interface Organization {
  organizationId: string;
  name: string;
  status: 'active' | 'inactive';
  /** `operator`: the protocol operator, whose admin-scoped connectors may cancel any listing. */
  role: 'participant' | 'operator';
  partneringPolicy: { grantedScopes: string[] };
}

export interface Connector {
  clientId: string;
  /** Only with the development authorization server; absent otherwise. */
  clientSecret?: string;
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

export class Registry {
  private readonly organizations = new Map<string, Organization>();
  private readonly connectors = new Map<string, Connector>();
  /** Things the loader accepted but an operator should hear about (logged at start). */
  readonly warnings: string[] = [];

  constructor(organizations: Organization[], connectors: Connector[]) {
    for (const o of organizations) this.organizations.set(o.organizationId, o);
    for (const c of connectors) this.connectors.set(c.clientId, c);
  }

  organization(id: string): Organization | undefined {
    return this.organizations.get(id);
  }

  connector(clientId: string): Connector | undefined {
    return this.connectors.get(clientId);
  }

  grantedScopes(organizationId: string): string[] {
    return this.organizations.get(organizationId)?.partneringPolicy.grantedScopes ?? [];
  }

  static load(organizationsFile: string, connectorsFile: string, defaultEnvironment: string, clientSecrets: ClientSecretPolicy = 'required'): Registry {
    const problems: string[] = [];
    const warnings: string[] = [];
    const read = (file: string) => {
      try {
        const v = JSON.parse(readFileSync(file, 'utf8'));
        if (!Array.isArray(v)) throw new Error('must be a JSON array');
        return v as any[];
      } catch (err) {
        problems.push(`${file}: ${(err as Error).message}`);
        return [];
      }
    };
    const organizations: Organization[] = read(organizationsFile).map((o, i) => {
      if (typeof o.organizationId !== 'string' || !o.organizationId) problems.push(`${organizationsFile}[${i}].organizationId is required`);
      const granted: string[] = o.partneringPolicy?.grantedScopes ?? [...RELATIONSHIP_SCOPES];
      for (const s of granted) if (!RELATIONSHIP_SCOPES.includes(s as any)) problems.push(`${organizationsFile}[${i}] grants unknown scope ${s}`);
      return {
        organizationId: o.organizationId,
        name: o.name ?? o.organizationId,
        status: o.status === 'inactive' ? 'inactive' : 'active',
        role: o.role === 'operator' ? 'operator' : 'participant',
        partneringPolicy: { grantedScopes: granted },
      };
    });
    const known = new Set(organizations.map((o) => o.organizationId));
    const clientIds = new Set<string>();
    let droppedSecrets = 0;
    const connectors: Connector[] = read(connectorsFile).map((c, i) => {
      for (const field of ['organizationId', 'clientId']) {
        if (typeof c[field] !== 'string' || !c[field]) problems.push(`${connectorsFile}[${i}].${field} is required`);
      }
      if (typeof c.clientId === 'string' && c.clientId) {
        // Tokens name their connector by `sub` alone: two entries for one id would be ambiguous.
        if (clientIds.has(c.clientId)) problems.push(`${connectorsFile}[${i}] registers clientId ${c.clientId} a second time`);
        clientIds.add(c.clientId);
      }
      const hasSecret = c.clientSecret !== undefined;
      if (clientSecrets === 'required' && (typeof c.clientSecret !== 'string' || !c.clientSecret)) {
        problems.push(`${connectorsFile}[${i}].clientSecret is required while the development authorization server (DEV_AUTH) is on`);
      }
      if (clientSecrets === 'refused' && hasSecret) {
        problems.push(
          `${connectorsFile}[${i}] (clientId ${c.clientId}) carries a clientSecret: in production connectors authenticate to the identity provider (private_key_jwt or mutual TLS) and the broker holds no secret; remove the field`,
        );
      }
      if (clientSecrets === 'ignored' && hasSecret) droppedSecrets++;
      if (!known.has(c.organizationId)) problems.push(`${connectorsFile}[${i}] names unknown organization ${c.organizationId}`);
      if (c.scopes !== undefined && !Array.isArray(c.scopes)) problems.push(`${connectorsFile}[${i}].scopes must be an array of scopes`);
      for (const s of Array.isArray(c.scopes) ? c.scopes : []) if (!(SCOPES as readonly string[]).includes(s)) problems.push(`${connectorsFile}[${i}] has unknown scope ${s}`);
      // A mistyped status must not leave a revoked connector active.
      if (c.status !== undefined && c.status !== 'active' && c.status !== 'inactive') {
        problems.push(`${connectorsFile}[${i}].status must be active or inactive, not ${JSON.stringify(c.status)}`);
      }
      if (c.actorRoles !== undefined && (!Array.isArray(c.actorRoles) || c.actorRoles.some((r: unknown) => typeof r !== 'string' || !/^[a-z][a-zA-Z0-9-]{0,39}$/.test(r)))) {
        problems.push(`${connectorsFile}[${i}].actorRoles must be an array of role names (a-z, digits, dashes)`);
      }
      if (c.environment !== undefined && (typeof c.environment !== 'string' || !c.environment)) {
        problems.push(`${connectorsFile}[${i}].environment must be a non-empty string`);
      }
      return {
        clientId: c.clientId,
        ...(clientSecrets === 'required' ? { clientSecret: c.clientSecret } : {}),
        organizationId: c.organizationId,
        name: c.name ?? c.clientId,
        scopes: Array.isArray(c.scopes) ? c.scopes : [],
        environment: c.environment ?? defaultEnvironment,
        status: c.status === 'inactive' ? 'inactive' : 'active',
        actorRoles: Array.isArray(c.actorRoles) ? c.actorRoles : [],
      };
    });
    if (droppedSecrets) {
      warnings.push(`${connectorsFile}: ignored the clientSecret of ${droppedSecrets} connector(s); only the development authorization server (DEV_AUTH) reads it`);
    }
    if (problems.length) throw new Error(`invalid registry configuration:\n  - ${problems.join('\n  - ')}`);
    const registry = new Registry(organizations, connectors);
    registry.warnings.push(...warnings);
    return registry;
  }
}
