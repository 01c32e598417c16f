// HTTP API of Connector (domain/connector.ts): an organization's admin (a connector or user with
// connectors:manage) creates its connectors, changes their scopes within the organization's
// ceiling, disables, enables and retires them, and adds, rolls and revokes their keys. Every rule
// is the machine's; this router gathers the ceiling and the environment, checks that a public key
// is one (and only public), and derives the resource id from the client id, so that a client id
// is taken once in the whole exchange, on every replica at once (the workflow id is the claim).
import { createHash } from 'node:crypto';
import { checkPublicJwk } from '../core/public-keys';
import { canonicalDn } from '../core/certificate-binding';
import { KeySetUnavailable } from '../core/client-key-sets';
import { checkCertificateChain } from '../core/certificate-chain';
import { generateClientSecret, hashClientSecret } from '../core/client-secrets';
import { forgetSecretHash, storeSecretHash } from '../read-model/client-secrets';
import { nameBasedId } from '../core/name-ids';
import { Hono } from 'hono';
import { connector, type Connector, type ConnectorContext } from '../domain/connector';
import { Problem } from '../domain/problems';
import { SCOPES } from '../domain/scopes';
import { precheckCreate, runCommand, type CommandRequest } from './commands';
import type { AppEnv } from './context';
import type { Ctx } from './http';
import { operation } from './operations';
import { commandRoute, getRoute, listRoute, managedRecord, participantAccess, plainCommandRoutes, viewFor, type Decorate } from './resource-routes';
import { credentialUses } from '../read-model/connectors';

const resource = connector;
const MANAGE = 'connectors:manage';

/** A client id's resource id: the same on every replica (core/name-ids.ts). */
export const connectorIdOf = (clientId: string): string => nameBasedId('connector', clientId);

/**
 * The scopes an organization may give its connectors: its record's ceiling (set by the operator);
 * for an organization of the files, every scope of the vocabulary but the operator's
 * `exchange:admin`, which only the operator's organization may give.
 */
function context(c: Ctx, organizationId: string): ConnectorContext {
  const { registry, config } = c.get('services');
  const organization = registry.organization(organizationId);
  const scopeCeiling = organization?.scopeCeiling ?? SCOPES.filter((s) => organization?.role === 'operator' || s !== 'exchange:admin');
  const tokenLimits = { maxAccessTokenLifetimeSeconds: config.auth.maxTokenLifetimeSeconds, maxAssertionLifetimeSeconds: config.auth.maxAssertionLifetimeSeconds };
  return { scopeCeiling, environment: config.registry.environment, tokenLimits };
}

/**
 * A public key the broker can verify with: not weak, no private member (core/public-keys.ts);
 * with its certificate chain (x5c), the chain certifies it and holds together
 * (core/certificate-chain.ts). Answers the leaf certificate's end, which the credential's expiry
 * may not pass.
 */
function checkPublicKey(jwk: Record<string, unknown> | undefined, pointer: string): { certificateNotAfter?: string } {
  if (jwk === undefined) return {};
  const bad = (message: string, at = pointer) => new Problem('VALIDATION_FAILED', `${at.slice(1)}: ${message}`, { errors: [{ pointer: at, message }] });
  const key = checkPublicJwk(jwk);
  if (!key.ok) throw bad(key.reason);
  const { x5c, ...members } = jwk;
  if (x5c === undefined) return {};
  const chain = checkCertificateChain(members, x5c);
  if (!chain.ok) throw bad(chain.reason, `${pointer}/x5c`);
  return { certificateNotAfter: chain.notAfter };
}

type MaterialBody = { publicJwk?: unknown; generateClientSecret?: boolean; tlsClientAuthSubjectDn?: string; jwksUri?: string };

/**
 * A body's credential material made ready for the machine: a public key checked (and its leaf
 * certificate's end beside it); a certificate subject parsed (tls_client_auth needs the operator's
 * trust anchors and the mutual-TLS address); a jwks_uri fetched once (the SSRF-safe way) to show
 * it holds usable keys. The ids of the last two derive from their values.
 */
async function withMaterialChecked<T extends MaterialBody>(c: Ctx, body: T): Promise<T> {
  const { certificateNotAfter } = checkPublicKey(body.publicJwk as Record<string, unknown> | undefined, '/publicJwk');
  const { tlsClientAuthSubjectDn, jwksUri, ...rest } = body;
  const out: Record<string, unknown> = { ...rest, ...(certificateNotAfter ? { certificateNotAfter } : {}) };
  const idOf = (prefix: string, value: string) => `${prefix}-${createHash('sha256').update(value).digest('hex').slice(0, 20)}`;
  if (tlsClientAuthSubjectDn !== undefined) {
    const { config } = c.get('services');
    if (!config.auth.clientTrustAnchors.length || !config.mtls) throw new Problem('CREDENTIAL_KIND_NOT_ALLOWED', 'this broker accepts no CA-issued client certificates (tls_client_auth): its operator configured no trust anchors (CLIENT_CA_FILE) or no mutual-TLS address; register a public key instead');
    const canonical = canonicalDn(tlsClientAuthSubjectDn);
    if (!canonical) throw new Problem('VALIDATION_FAILED', 'tlsClientAuthSubjectDn: not a distinguished name as RFC 4514 writes it (for example CN=tms.example.com,O=Alpine Freight,C=AT)', { errors: [{ pointer: '/tlsClientAuthSubjectDn', message: 'is not an RFC 4514 distinguished name' }] });
    out.tlsClientAuth = { credentialId: idOf('dn', canonical), value: tlsClientAuthSubjectDn.trim() };
  }
  if (jwksUri !== undefined) {
    try {
      const set = await c.get('services').oauth.keySets.keys(jwksUri);
      if (!set.keys.length) throw new KeySetUnavailable(jwksUri, `it holds no usable signing key${set.refused.length ? ` (${set.refused.join('; ')})` : ''}`);
    } catch (err) {
      if (err instanceof KeySetUnavailable) throw new Problem('VALIDATION_FAILED', `jwksUri: ${err.message}`, { errors: [{ pointer: '/jwksUri', message: err.message }] });
      throw err;
    }
    out.jwksUri = { credentialId: idOf('ju', jwksUri), value: jwksUri };
  }
  return out as T;
}

/**
 * A generated client secret (core/client-secrets.ts), when the body asks for one: the credential
 * id derives from the command id (a retry of the same command names the same credential), the
 * hash is stored before the command is sent (the first stored for a credential is kept), and the
 * secret is revealed in this answer only, and only when its hash is the one kept. The workflow
 * sees the credential's id and hint, never the secret.
 */
function secretPreparation(c: Ctx, clientId: string, body: { generateClientSecret?: boolean }): Pick<CommandRequest, 'prepare'> {
  if (!body.generateClientSecret) return {};
  if (!c.get('services').config.auth.clientSecrets) {
    throw new Problem('CREDENTIAL_KIND_NOT_ALLOWED', 'this broker does not issue client secrets: register a public key (publicJwk) for private_key_jwt');
  }
  const { db } = c.get('services');
  return {
    prepare: async (commandId) => {
      const credentialId = `cs-${createHash('sha256').update(commandId).digest('hex').slice(0, 20)}`;
      const { secret, hint } = generateClientSecret();
      const hash = await hashClientSecret(secret);
      const kept = await storeSecretHash(db, clientId, credentialId, hash);
      const { generateClientSecret: _asked, ...rest } = body as Record<string, unknown>;
      return {
        // The hash goes to the workflow too (its state, sealed by the payload codec): a rebuilt read model finds it there.
        payload: { ...rest, clientSecret: { credentialId, hint, hash } },
        reveal: (answer, snapshot) => {
          const credential = (snapshot as Connector).credentials.find((k) => k.credentialId === credentialId);
          return kept && credential?.secretHint === hint ? { ...answer, clientSecret: secret, clientSecretCredentialId: credentialId } : answer;
        },
        refused: () => (kept ? forgetSecretHash(db, clientId, credentialId) : Promise.resolve()),
      };
    },
  };
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

const MATERIALS = ['publicJwk', 'generateClientSecret', 'tlsClientAuthSubjectDn', 'jwksUri'] as const;

/** The material of a credential: at most one kind (exactly one where a credential is to be added or rolled to). */
function oneMaterial(body: MaterialBody, required: boolean): void {
  const given = MATERIALS.filter((m) => body[m] !== undefined && body[m] !== false);
  if (given.length > 1) throw new Problem('VALIDATION_FAILED', `a credential is one of ${MATERIALS.join(', ')}, not ${given.join(' and ')}`, { errors: [{ pointer: `/${given[1]}`, message: `not beside ${given[0]}` }] });
  if (required && !given.length) throw new Problem('VALIDATION_FAILED', 'give a public key (publicJwk), a certificate subject (tlsClientAuthSubjectDn) or a key set address (jwksUri), or ask for a client secret (generateClientSecret: true)', { errors: [{ pointer: '/publicJwk', message: 'one kind of credential is required' }] });
}

const access = participantAccess<Connector>(resource, MANAGE);
const managed = managedRecord<Connector>(resource, { noun: 'connector', plural: 'connectors', needs: "`connectors:manage` of the connector's organization", notFound: ': no such connector of the caller\u2019s organization' });

export const connectors = new Hono<AppEnv>();

operation(connectors, {
  method: 'POST', path: '/', access: { scope: [], anyScope: [MANAGE, 'exchange:admin'] }, body: 'ConnectorCreateRequest', answers: [201],
  idempotent: true,
  returns: 'Connector',
  doc: {
    id: 'createConnector',
    summary: 'Create a connector of the caller\u2019s organization',
    description:
      "A machine client of the caller's organization in this broker's environment, with scopes within the " +
      "organization's ceiling. A protocol operator may name another organization (`organizationId`): the first " +
      "connector of an organization it registered, with the public key that organization's admin sent, so that " +
      'its admin can manage the rest itself. Optionally with its first credential (`publicJwk`, for private_key_jwt at ' +
      '`POST /oauth2/token`; or `generateClientSecret`, `tlsClientAuthSubjectDn`, `jwksUri`) and its token policy (`tokenPolicy`: access-token and assertion lifetimes within the operator\u2019s limits, DPoP-bound tokens). The client id is taken for good: it is never given again, also after the ' +
      'connector is retired. Needs `connectors:manage` (`exchange:admin` for the operator naming another organization).',
    responses: {
      '201': 'Created, active.',
      '400': '`VALIDATION_FAILED`: the body, a clientId that is not one, a key that is not a public key this broker can read or is weak (an RSA key under 2048 bits, an exponent other than an odd one of at least 65537, a modulus with a small factor, of close primes or of a ROCA-broken library; an Ed25519 point of small order), an expiry in the past, a token policy beyond the operator\u2019s limits.',
      '403': '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, `ORGANIZATION_SUSPENDED` or `ORGANIZATION_BINDING_VIOLATION` (organizationId of another organization, not by the operator).',
      '409': '`RESOURCE_EXISTS` (the client id is taken), `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.',
      '422': "`SCOPE_ABOVE_CEILING`: a scope the organization may not give its connectors.",
    },
  },
}, async ({ c, principal, body }) => {
  oneMaterial(body, false);
  // A client id of the connectors file is taken too (tokens name their connector by it alone).
  if (c.get('services').registry.connector(body.clientId, { fileOnly: true })) throw new Problem('RESOURCE_EXISTS', `the client id ${body.clientId} is taken`);
  // An organization's first connector may come from the operator, who registered it (onboarding).
  const organizationId = body.organizationId ?? principal.organizationId;
  const forAnother = organizationId !== principal.organizationId;
  if (forAnother && !principal.operator) throw new Problem('ORGANIZATION_BINDING_VIOLATION', 'only the protocol operator creates a connector of another organization');
  if (!forAnother && !principal.scopes.has(MANAGE)) throw new Problem('INSUFFICIENT_SCOPE', `this operation needs the scope ${MANAGE}`, { requiredScope: MANAGE });
  // An organization registered a moment ago is known once the registry has read it (read your writes).
  if (forAnother && !c.get('services').registry.organization(organizationId)) await c.get('services').registry.refresh();
  if (forAnother && !c.get('services').registry.organization(organizationId)) {
    throw new Problem('VALIDATION_FAILED', `organizationId ${organizationId} is not an organization of the exchange`, { errors: [{ pointer: '/organizationId', message: 'is not a known organization' }] });
  }
  const actor = forAnother ? { kind: 'operator' as const, organizationId: principal.organizationId, clientId: principal.clientId, ...(principal.userId ? { userId: principal.userId } : {}) } : undefined;
  const ctx = context(c, organizationId);
  const checked = await withMaterialChecked(c, body);
  precheckCreate(c, resource, checked, ctx, actor);
  return runCommand(c, { resource, name: 'create', id: connectorIdOf(body.clientId), payload: checked, context: ctx, actor, view: viewFor(resource, principal), ...secretPreparation(c, body.clientId, checked) });
});

listRoute(connectors, resource, managed.list({
  summary: "List the caller's organization's connectors (every organization's for a protocol operator)",
  description:
    "The connectors of the caller's organization (its admins', with `connectors:manage`), in id order. A protocol operator " +
    '(`exchange:admin`) lists every organization\u2019s: what each may do, not its keys.',
  client: { name: 'connectors', columns: ['id', 'clientId', 'status', 'name', 'scopes', 'resourceVersion'] },
}, lastUses));

getRoute(connectors, resource, managed.reading, managed.read(
  'Get a connector',
  "A connector of the caller's organization (with `connectors:manage`), or any connector for a protocol operator (`exchange:admin`), who sees what it may do but not its keys. Anyone else gets 404.",
  'The connector, with its ETag; each key with `lastUsedAt`, when it last got a token.',
), { decorate: lastUses });

commandRoute(connectors, resource, 'update', {
  method: 'PATCH', body: 'ConnectorUpdateRequest', access,
  context: (c, doc) => context(c, doc.organizationId),
  doc: managed.command('Change a connector', "Its name, its scopes (within the organization's ceiling; tokens issued before count only as far as the new scopes allow), its actor roles and its token policy (a merge: a member given as null goes back to the operator's default; tokens issued before keep their lifetime).", { '422': '`INVALID_STATE_TRANSITION` (retired) or `SCOPE_ABOVE_CEILING`.' }),
});
plainCommandRoutes(connectors, resource, { access, doc: managed.command }, [
  ['disable', 'CommonReasonedCommand', 'Disable a connector', 'Its tokens are refused from the next request on, on every replica (401 `CONNECTOR_INACTIVE`), until it is enabled again.'],
  ['enable', 'CommonCommand', 'Enable a disabled connector', 'Its credentials that are still valid work again.'],
  ['retire', 'CommonReasonedCommand', 'Retire a connector for good', 'Its credentials are revoked and its client id is never given again.'],
]);
commandRoute(connectors, resource, 'addCredential', {
  path: 'credentials', body: 'ConnectorCredentialAddRequest', access,
  payload: (c, body) => (oneMaterial(body, true), withMaterialChecked(c, body)),
  hooks: (c, doc, payload) => secretPreparation(c, doc.clientId, payload),
  doc: managed.command('Add a credential to a connector', 'Beside the others, optionally with an expiry: a public key (its kid names the credential) for private_key_jwt and self_signed_tls_client_auth, a generated client secret (where allowed), a certificate subject for tls_client_auth (where the operator configured trust anchors), or a jwks_uri the client publishes its keys at (fetched now to check it).', { '400': '`VALIDATION_FAILED`: the body, a weak or private key, a subject that is not an RFC 4514 name, a jwks_uri that cannot be fetched or holds no usable key.', '409': '`STALE_RESOURCE_VERSION`, `CREDENTIAL_EXISTS` (a credential with this kid), `CREDENTIAL_LIMIT`, `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.', '422': '`INVALID_STATE_TRANSITION` (retired) or `CREDENTIAL_KIND_NOT_ALLOWED` (a client secret or a certificate subject this broker does not accept).' }),
});
commandRoute(connectors, resource, 'rollCredential', {
  path: 'roll-credential', body: 'ConnectorCredentialRollRequest', access,
  payload: (c, body) => (oneMaterial(body, true), withMaterialChecked(c, body)),
  hooks: (c, doc, payload) => secretPreparation(c, doc.clientId, payload),
  doc: managed.command(
    'Roll a credential: a new one now, the old one until an expiry',
    'The new key works at once; the old one (credentialId) keeps working until oldExpiresAt (at most 90 days ahead), then stops at that second: the overlap in which the connector switches.',
    { '409': '`STALE_RESOURCE_VERSION`, `CREDENTIAL_EXISTS`, `CREDENTIAL_LIMIT`, `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.', '422': '`INVALID_STATE_TRANSITION` (the old credential is not active, or the connector is retired).' },
  ),
});
commandRoute(connectors, resource, 'revokeCredential', {
  path: 'revoke-credential', body: 'ConnectorCredentialRevokeRequest', access,
  doc: managed.command('Revoke a key at once', 'The credential stops working now: no token is issued for it, and the tokens it was issued are refused on every replica from the next request on (401 `CREDENTIAL_INVALID`).'),
});
