// HTTP API of Connector (domain/connector.ts): an organization's admin (a connector or user with
// connectors:manage) creates its connectors, changes their scopes within the organization's
// ceiling, disables, enables and retires them, and adds, rolls and revokes their keys. Every rule
// is the machine's; this router gathers the ceiling and the environment, checks that a public key
// is one (and only public), and derives the resource id from the client id, so that a client id
// is taken once in the whole exchange, on every replica at once (the workflow id is the claim).
import { createHash, createPublicKey } from 'node:crypto';
import { Hono } from 'hono';
import { connector, type Connector, type ConnectorContext } from '../domain/connector';
import { Problem } from '../domain/problems';
import { SCOPES } from '../domain/scopes';
import { precheckCreate, runCommand } from './commands';
import type { AppEnv } from './context';
import type { Ctx } from './http';
import { operation } from './operations';
import { commandRoute, getRoute, listRoute, participantAccess, viewFor, type Decorate } from './resource-routes';
import { credentialUses } from '../read-model/connectors';

const resource = connector;
const MANAGE = 'connectors:manage';

/** A client id's resource id: a UUID (version 8) of its SHA-256, the same on every replica. */
export function connectorIdOf(clientId: string): string {
  const hex = createHash('sha256').update(`pcx:connector:${clientId}`).digest('hex');
  const v = `${hex.slice(0, 12)}8${hex.slice(13, 16)}${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 32)}`;
  return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20, 32)}`;
}

/**
 * The scopes an organization may give its connectors: every scope of the vocabulary but the
 * operator's `exchange:admin`, which only the operator's organization may give (until the
 * organization records of issue 29 carry a ceiling of their own: docs/decisions.md).
 */
function context(c: Ctx, organizationId: string): ConnectorContext {
  const { registry, config } = c.get('services');
  const operator = registry.organization(organizationId)?.role === 'operator';
  return { scopeCeiling: SCOPES.filter((s) => operator || s !== 'exchange:admin'), environment: config.registry.environment };
}

/** A public key the broker can verify with: it imports, it is not weak, it holds no private member. */
function checkPublicKey(jwk: Record<string, unknown> | undefined, pointer: string): void {
  if (jwk === undefined) return;
  const bad = (message: string) => new Problem('VALIDATION_FAILED', `${pointer.slice(1)}: ${message}`, { errors: [{ pointer, message }] });
  let key;
  try {
    key = createPublicKey({ key: jwk as any, format: 'jwk' });
  } catch {
    throw bad('is not a public key this broker can read');
  }
  const modulus = key.asymmetricKeyDetails?.modulusLength;
  if (jwk.kty === 'RSA' && (!modulus || modulus < 2048)) throw bad('an RSA key needs at least 2048 bits');
}

/** Each key's last use (a token issued for it) added to the views that show keys. */
const lastUses: Decorate = async (c, views) => {
  const uses = await credentialUses(c.get('services').db, views.map((v) => String(v.clientId)));
  return views.map((v) =>
    Array.isArray(v.credentials)
      ? { ...v, credentials: (v.credentials as Array<{ credentialId: string }>).map((k) => ({ ...k, ...(uses.get(String(v.clientId))?.get(k.credentialId) ? { lastUsedAt: uses.get(String(v.clientId))!.get(k.credentialId) } : {}) })) }
      : v,
  );
};

const access = participantAccess<Connector>(resource, MANAGE);
const reading = participantAccess<Connector>(resource, MANAGE, { anyScope: [MANAGE, 'exchange:admin'], operator: true });

export const connectors = new Hono<AppEnv>();

operation(connectors, {
  method: 'POST', path: '/', access: { scope: MANAGE }, body: 'ConnectorCreateRequest', answers: [201],
  idempotent: true,
  returns: 'Connector',
  doc: {
    id: 'createConnector',
    summary: 'Create a connector of the caller\u2019s organization',
    description:
      "A machine client of the caller's organization in this broker's environment, with scopes within the " +
      "organization's ceiling and, optionally, its first key (`publicJwk`, for private_key_jwt at " +
      '`POST /oauth2/token`). The client id is taken for good: it is never given again, also after the ' +
      'connector is retired. Needs `connectors:manage`.',
    responses: {
      '201': 'Created, active.',
      '400': '`VALIDATION_FAILED`: the body, a clientId that is not one, a key that is not a public key this broker can read, an RSA key under 2048 bits, an expiry in the past.',
      '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
      '409': '`RESOURCE_EXISTS` (the client id is taken), `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.',
      '422': "`SCOPE_ABOVE_CEILING`: a scope the organization may not give its connectors.",
    },
  },
}, async ({ c, principal, body }) => {
  checkPublicKey(body.publicJwk as Record<string, unknown> | undefined, '/publicJwk');
  // A client id of the connectors file is taken too (tokens name their connector by it alone).
  if (c.get('services').registry.connector(body.clientId, { fileOnly: true })) throw new Problem('RESOURCE_EXISTS', `the client id ${body.clientId} is taken`);
  const ctx = context(c, principal.organizationId);
  precheckCreate(c, resource, body, ctx);
  return runCommand(c, { resource, name: 'create', id: connectorIdOf(body.clientId), payload: body, context: ctx, view: viewFor(resource, principal) });
});

listRoute(connectors, resource, {
  owners: true,
  anyScope: [MANAGE, 'exchange:admin'],
  operatorListsAll: true,
  decorate: lastUses,
  doc: {
    summary: "List the caller's organization's connectors (every organization's for a protocol operator)",
    description:
      "The connectors of the caller's organization (its admins', with `connectors:manage`), in id order. A protocol operator " +
      '(`exchange:admin`) lists every organization\u2019s: what each may do, not its keys.',
    responses: { '200': 'One page of connectors; nextCursor is null on the last page.', '400': '`VALIDATION_FAILED`: an unknown status, a limit outside 1..200 or a cursor this broker did not issue.', '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.' },
    client: { name: 'connectors', columns: ['id', 'clientId', 'status', 'name', 'scopes', 'resourceVersion'] },
  },
});

getRoute(connectors, resource, reading, {
  summary: 'Get a connector',
  description: "A connector of the caller's organization (with `connectors:manage`), or any connector for a protocol operator (`exchange:admin`), who sees what it may do but not its keys. Anyone else gets 404.",
  responses: { '200': 'The connector, with its ETag; each key with `lastUsedAt`, when it last got a token.', '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.', '404': '`RESOURCE_NOT_FOUND`.' },
}, { decorate: lastUses });

const commandDoc = (summary: string, description: string, extra: Record<string, string> = {}) => ({
  summary,
  description: `${description} Needs \`connectors:manage\` of the connector's organization and its current ETag in If-Match.`,
  responses: {
    '200': 'The connector after the command.',
    '400': '`VALIDATION_FAILED`.',
    '403': '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE` or `ACTOR_NOT_PERMITTED`.',
    '404': '`RESOURCE_NOT_FOUND`: no such connector of the caller\u2019s organization.',
    '409': '`STALE_RESOURCE_VERSION`, `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.',
    '422': '`INVALID_STATE_TRANSITION`.',
    ...extra,
  },
});

commandRoute(connectors, resource, 'update', {
  method: 'PATCH', body: 'ConnectorUpdateRequest', access,
  context: (c, doc) => context(c, doc.organizationId),
  doc: commandDoc('Change a connector', "Its name, its scopes (within the organization's ceiling; tokens issued before count only as far as the new scopes allow) and its actor roles.", { '422': '`INVALID_STATE_TRANSITION` (retired) or `SCOPE_ABOVE_CEILING`.' }),
});
commandRoute(connectors, resource, 'disable', {
  body: 'CommonReasonedCommand', access,
  doc: commandDoc('Disable a connector', 'Its tokens are refused from the next request on, on every replica (401 `CONNECTOR_INACTIVE`), until it is enabled again.'),
});
commandRoute(connectors, resource, 'enable', {
  body: 'CommonCommand', access,
  doc: commandDoc('Enable a disabled connector', 'Its credentials that are still valid work again.'),
});
commandRoute(connectors, resource, 'retire', {
  body: 'CommonReasonedCommand', access,
  doc: commandDoc('Retire a connector for good', 'Its credentials are revoked and its client id is never given again.'),
});
commandRoute(connectors, resource, 'addCredential', {
  path: 'credentials', body: 'ConnectorCredentialAddRequest', access,
  payload: (_c, body) => (checkPublicKey(body.publicJwk as Record<string, unknown>, '/publicJwk'), body),
  doc: commandDoc('Add a key to a connector', 'A public key (its kid names the credential) for private_key_jwt, beside the others; optionally with an expiry.', { '409': '`STALE_RESOURCE_VERSION`, `CREDENTIAL_EXISTS` (a credential with this kid), `CREDENTIAL_LIMIT`, `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.' }),
});
commandRoute(connectors, resource, 'rollCredential', {
  path: 'roll-credential', body: 'ConnectorCredentialRollRequest', access,
  payload: (_c, body) => (checkPublicKey(body.publicJwk as Record<string, unknown>, '/publicJwk'), body),
  doc: commandDoc(
    'Roll a key: a new one now, the old one until an expiry',
    'The new key works at once; the old one (credentialId) keeps working until oldExpiresAt (at most 90 days ahead), then stops at that second: the overlap in which the connector switches.',
    { '409': '`STALE_RESOURCE_VERSION`, `CREDENTIAL_EXISTS`, `CREDENTIAL_LIMIT`, `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.', '422': '`INVALID_STATE_TRANSITION` (the old credential is not active, or the connector is retired).' },
  ),
});
commandRoute(connectors, resource, 'revokeCredential', {
  path: 'revoke-credential', body: 'ConnectorCredentialRevokeRequest', access,
  doc: commandDoc('Revoke a key at once', 'The credential stops working now: no token is issued for it, and the tokens it was issued are refused on every replica from the next request on (401 `CREDENTIAL_INVALID`).'),
});
