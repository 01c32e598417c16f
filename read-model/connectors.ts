// The managed connectors (domain/connector.ts) as gate 2 and the token endpoint read them: kept in
// memory from the read model and refreshed every REFRESH_MS, so that a revocation, a disable or an
// expiry written by any replica's command reaches every replica within a second. A refresh reads
// one cheap row (how many connectors, the sum of their versions: any transition changes it) and
// reloads the table only when that changed; a connector's credentials are judged valid at the
// moment of the lookup, so an expiry takes effect at its second even before its timer has fired.
import type { Db } from '../core/db';
import type { Connector as RegistryConnector } from '../core/registry';
import { credentialValid, type Connector } from '../domain/connector';

export const REFRESH_MS = 250;

export interface ManagedConnectors {
  lookup(clientId: string): RegistryConnector | undefined;
  /** Reads the table now if it changed (the tests' and the poller's step). */
  refresh(): Promise<void>;
  stop(): void;
}

export async function managedConnectors(db: Db, options: { refreshMs?: number; onError?: (err: unknown) => void } = {}): Promise<ManagedConnectors> {
  let byClient = new Map<string, Connector>();
  let seen = '';
  const refresh = async () => {
    const { rows } = await db.query<{ n: number; v: string | null }>(`select count(*)::int as n, sum(resource_version)::text as v from connectors`);
    const mark = `${rows[0].n}:${rows[0].v ?? 0}`;
    if (mark === seen) return;
    const all = await db.query<{ doc: Connector }>(`select doc from connectors`);
    byClient = new Map(all.rows.map((r) => [r.doc.clientId, r.doc]));
    seen = mark;
  };
  await refresh();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    refresh()
      .catch((err) => options.onError?.(err))
      .finally(() => (running = false));
  }, options.refreshMs ?? REFRESH_MS);
  timer.unref();
  return {
    lookup(clientId) {
      const doc = byClient.get(clientId);
      return doc ? asRegistryConnector(doc) : undefined;
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
    ...(valid.length ? { jwks: { keys: valid.map((k) => ({ ...k.publicJwk })) } } : {}),
    managed: { credentialValid: (id) => doc.credentials.some((k) => k.credentialId === id && credentialValid(k)) },
  };
}

/** A managed connector's key authenticated at the token endpoint now: its last use, for its admins. */
export async function recordCredentialUse(db: Db, clientId: string, credentialId: string): Promise<void> {
  await db.query(
    `insert into credential_uses (client_id, credential_id, last_used_at) values ($1, $2, now())
     on conflict (client_id, credential_id) do update set last_used_at = excluded.last_used_at`,
    [clientId, credentialId],
  );
}

/** When each key of these connectors was last used: client id -> credential id -> ISO time. */
export async function credentialUses(db: Db, clientIds: readonly string[]): Promise<Map<string, Map<string, string>>> {
  const uses = new Map<string, Map<string, string>>();
  if (!clientIds.length) return uses;
  const { rows } = await db.query<{ client_id: string; credential_id: string; last_used_at: Date | string }>(
    `select client_id, credential_id, last_used_at from credential_uses where client_id = any($1::text[])`,
    [clientIds],
  );
  for (const r of rows) {
    const at = new Date(r.last_used_at).toISOString().replace(/\.(\d{3})Z$/, (m, ms) => (ms === '000' ? 'Z' : m));
    uses.set(r.client_id, (uses.get(r.client_id) ?? new Map()).set(r.credential_id, at));
  }
  return uses;
}
