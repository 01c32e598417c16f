// The development seed: the organizations, connectors and users of the configuration files imported
// as records of the exchange (domain/organization.ts, connector.ts, user.ts) at start, idempotently. An organization that has a record is
// left alone (the record is the truth from then on: the operator's changes are made there, and an
// edit of the file no longer changes it); one that has none is created, active and verified by the
// seed. Each create's Update id and record id derive from the organization id, so replicas that
// start together import each organization once (Temporal deduplicates; the second is refused with
// RESOURCE_EXISTS, which is the same outcome). Runs beside the API: until a record exists the
// file's entry answers for it (core/registry.ts), and they agree.
//
// A connector comes with every key of its entry and its development secret, a user with its
// development password: the secret's and the password's slow hashes go into the secret store
// (read-model/client-secrets.ts) before the record exists, as for a generated secret or an
// invitation code, so a record never names a secret the broker cannot check. A connector or user
// `inactive` in its file is imported, then disabled.
//
// Beside broker.ts, above core/ and read-model/: it writes records through core's entities and
// secrets through read-model's store (docs/architecture.md, the layers).
import { basename } from 'node:path';
import { BROKER } from './domain/machine';
import { organization, organizationContext } from './domain/organization';
import { EntityUnavailable, type Entities, type EntityAnswer } from './core/entities';
import type { Logger } from './core/log';
import type { PersonalData } from './core/personal-data';
import { nameBasedId, organizationRecordId } from './core/name-ids';
import type { Registry } from './core/registry';
import { connector as connectorResource, type PublicJwk } from './domain/connector';
import { user as userResource } from './domain/user';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import { hashClientSecret } from './core/client-secrets';
import type { Db } from './core/db';
import { invitationKey, secretHashes, storeSecretHash } from './read-model/client-secrets';

/** Counts a create's answer; a refusal other than "exists" is news (an entry the machine will not take): logged, not fatal. */
function tally(answer: EntityAnswer, counts: { created: number; existing: number }, log: Logger, what: string): boolean {
  if (answer.ok) {
    counts.created += 1;
    return true;
  }
  counts.existing += 1;
  if ('refusal' in answer && answer.refusal.code !== 'RESOURCE_EXISTS') log.warn({ code: answer.refusal.code, detail: answer.refusal.detail }, `the seed's ${what} was not imported`);
  return false;
}

/** Tries a command again while Temporal cannot be reached (the broker may start before it). */
async function withRetry<T>(attempts: number, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof EntityUnavailable) || attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, Math.min(1000 * attempt, 5000)));
    }
  }
}

export interface SeedOptions {
  registry: Registry;
  entities: Entities;
  /** The secret store (a connector's development secret, a user's development password); needed only when the files carry one. */
  db?: Db;
  organizationsFile: string;
  connectorsFile?: string;
  usersFile?: string;
  log: Logger;
  attempts?: number;
  /** Seals the users' names under their keys (core/personal-data.ts); without it (tests of the seed alone) they are stored as given. */
  personalData?: PersonalData;
}

export async function importSeed(options: SeedOptions): Promise<{ created: number; existing: number }> {
  const organizations = await importOrganizations(options);
  const connectors = await importConnectors(options);
  const users = await importUsers(options);
  return { created: organizations.created + connectors.created + users.created, existing: organizations.existing + connectors.existing + users.existing };
}

async function importOrganizations(options: SeedOptions): Promise<{ created: number; existing: number }> {
  const { registry, entities, log } = options;
  const source = basename(options.organizationsFile);
  const counts = { created: 0, existing: 0 };
  for (const o of registry.fileOrganizations()) {
    if (registry.organization(o.organizationId)?.managed) {
      counts.existing += 1;
      continue;
    }
    const command = {
      name: 'create',
      commandId: `seed:organization:${o.organizationId}`,
      actor: BROKER,
      correlationId: `seed:${o.organizationId}`,
      payload: { organizationId: o.organizationId, name: o.name, role: o.role, partneringPolicy: o.partneringPolicy, ...(o.directoryListing ? { directoryListing: o.directoryListing } : {}) },
      context: organizationContext({ source }),
    };
    const answer = await withRetry(options.attempts ?? 10, () => entities.create(organization, organizationRecordId(o.organizationId), command));
    // An inactive entry of the file is imported, then ended, so that the record says so too.
    if (tally(answer, counts, log, `organization ${o.organizationId}`) && o.status === 'inactive') {
      await withRetry(options.attempts ?? 10, () => entities.send(organization, organizationRecordId(o.organizationId), { name: 'end', commandId: `seed:organization:${o.organizationId}:end`, actor: BROKER, correlationId: command.correlationId, payload: { reason: `inactive in ${source}` } }));
    }
  }
  log.info({ ...counts, source }, 'organizations of the seed imported');
  return counts;
}

/** The connectors file's entries as connector records, with their keys and development secret. */
async function importConnectors(options: SeedOptions): Promise<{ created: number; existing: number }> {
  const { registry, entities, log } = options;
  const source = basename(options.connectorsFile ?? 'connectors file');
  const counts = { created: 0, existing: 0 };
  for (const c of registry.fileConnectors()) {
    const credentialId = `cs-${createHash('sha256').update(`seed:${c.clientId}`).digest('hex').slice(0, 20)}`;
    if (registry.connector(c.clientId)?.managed) {
      counts.existing += 1;
      // A read model rebuilt from Temporal has the record but not the hash: the file still has the secret.
      if (c.clientSecret !== undefined) await keepHash(options, c.clientId, credentialId, c.clientSecret);
      continue;
    }
    const seedCredentials: Array<{ publicJwk?: PublicJwk; clientSecret?: { credentialId: string; hint: string } }> = [];
    for (const key of c.jwks?.keys ?? []) seedCredentials.push({ publicJwk: { ...key, kid: key.kid ?? (await calculateJwkThumbprint(key as JWK)) } as PublicJwk });
    if (c.clientSecret !== undefined) {
      await keepHash(options, c.clientId, credentialId, c.clientSecret);
      seedCredentials.push({ clientSecret: { credentialId, hint: c.clientSecret.slice(-4) } });
    }
    const command = {
      name: 'create',
      commandId: `seed:connector:${c.clientId}`,
      actor: BROKER,
      correlationId: `seed:${c.clientId}`,
      payload: { clientId: c.clientId, organizationId: c.organizationId, name: c.name, scopes: c.scopes, actorRoles: c.actorRoles, seedCredentials },
      // The file is trusted as it was: its scopes are the connector's ceiling, its environment the connector's.
      context: { scopeCeiling: c.scopes, environment: c.environment },
    };
    const id = nameBasedId('connector', c.clientId);
    const answer = await withRetry(options.attempts ?? 10, () => entities.create(connectorResource, id, command));
    if (tally(answer, counts, log, `connector ${c.clientId}`) && c.status === 'inactive') {
      await withRetry(options.attempts ?? 10, () => entities.send(connectorResource, id, { name: 'disable', commandId: `seed:connector:${c.clientId}:disable`, actor: BROKER, correlationId: command.correlationId, payload: { reason: `inactive in ${source}` } }));
    }
  }
  log.info({ ...counts, source }, 'connectors of the seed imported');
  return counts;
}

/**
 * The users file's entries as user records: invited and accepted at once by the broker (nobody is
 * there to accept), so the feed tells it as for any user; an entry whose import stopped between
 * the two is accepted at the next start.
 */
async function importUsers(options: SeedOptions): Promise<{ created: number; existing: number }> {
  const { registry, entities, log } = options;
  const source = basename(options.usersFile ?? 'users file');
  const counts = { created: 0, existing: 0 };
  for (const u of registry.fileUsers()) {
    const record = registry.user(u.userId);
    const id = nameBasedId('user', u.userId);
    const correlationId = `seed:${u.userId}`;
    const accept = () => withRetry(options.attempts ?? 10, () => entities.send(userResource, id, { name: 'accept', commandId: `seed:user:${u.userId}:accept`, actor: BROKER, correlationId, payload: {} }));
    const key = invitationKey(u.userId);
    if (record?.managed) {
      counts.existing += 1;
      // As for connectors: after a rebuild the record is back, the password's hash from the file.
      if (u.password !== undefined) await keepHash(options, key.clientId, key.credentialId, u.password);
      if (record.status === 'invited') await accept();
      continue;
    }
    if (u.password !== undefined) await keepHash(options, key.clientId, key.credentialId, u.password);
    const command = {
      name: 'create',
      commandId: `seed:user:${u.userId}`,
      actor: BROKER,
      correlationId,
      // The name sealed under the user's key (core/personal-data.ts), as an invitation's.
      payload: options.personalData ? options.personalData.sealFields(userResource.kind, id, { userId: u.userId, organizationId: u.organizationId, name: u.name, roles: u.roles }) : { userId: u.userId, organizationId: u.organizationId, name: u.name, roles: u.roles },
      context: { operatorOrganization: registry.organization(u.organizationId)?.role === 'operator' },
    };
    const answer = await withRetry(options.attempts ?? 10, () => entities.create(userResource, id, command));
    if (!tally(answer, counts, log, `user ${u.userId}`)) continue;
    await accept();
    if (u.status === 'inactive') {
      await withRetry(options.attempts ?? 10, () => entities.send(userResource, id, { name: 'disable', commandId: `seed:user:${u.userId}:disable`, actor: BROKER, correlationId, payload: { reason: `inactive in ${source}` } }));
    }
  }
  log.info({ ...counts, source }, 'users of the seed imported');
  return counts;
}

/** A secret's slow hash in the store, unless one is there (the first one stays: a second start finds it and hashes nothing). */
async function keepHash(options: SeedOptions, clientId: string, credentialId: string, secret: string): Promise<void> {
  if (!options.db) throw new Error(`the seed needs the read model to keep the secret of ${clientId}`);
  if ((await secretHashes(options.db, clientId, [credentialId])).length) return;
  await storeSecretHash(options.db, clientId, credentialId, await hashClientSecret(secret));
}
