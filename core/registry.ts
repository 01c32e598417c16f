// Organizations and connectors known to the broker, loaded from configuration files at start.
// A connector (OAuth client) is bound to exactly one organization and one environment; the
// organization carries its partnering policy: the scopes it grants to partners.
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
  clientSecret: string;
  organizationId: string;
  name: string;
  scopes: string[];
  environment: string;
  status: 'active' | 'inactive';
}

export class Registry {
  private readonly organizations = new Map<string, Organization>();
  private readonly connectors = new Map<string, Connector>();

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

  static load(organizationsFile: string, connectorsFile: string, defaultEnvironment: string): Registry {
    const problems: string[] = [];
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
    const connectors: Connector[] = read(connectorsFile).map((c, i) => {
      for (const field of ['organizationId', 'clientId', 'clientSecret']) {
        if (typeof c[field] !== 'string' || !c[field]) problems.push(`${connectorsFile}[${i}].${field} is required`);
      }
      if (!known.has(c.organizationId)) problems.push(`${connectorsFile}[${i}] names unknown organization ${c.organizationId}`);
      for (const s of c.scopes ?? []) if (!(SCOPES as readonly string[]).includes(s)) problems.push(`${connectorsFile}[${i}] has unknown scope ${s}`);
      return {
        clientId: c.clientId,
        clientSecret: c.clientSecret,
        organizationId: c.organizationId,
        name: c.name ?? c.clientId,
        scopes: c.scopes ?? [],
        environment: c.environment ?? defaultEnvironment,
        status: c.status === 'inactive' ? 'inactive' : 'active',
      };
    });
    if (problems.length) throw new Error(`invalid registry configuration:\n  - ${problems.join('\n  - ')}`);
    return new Registry(organizations, connectors);
  }
}
