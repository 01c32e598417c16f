// Configuration comes from environment variables only. Every variable is parsed and validated
// here, once, at start; a bad value stops the process with a message naming the variable.
// The README lists every variable; keep the two in step.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { defaultPersonalDataKeysDir } from './personal-data';
import { parseKeyFile } from './secrets';
import { parseRetentionPolicies, type RetentionPolicies } from '../domain/retention';

export interface Config {
  mode: 'development' | 'production';
  role: 'all' | 'api' | 'worker';
  host: string;
  port: number;
  publicBaseUrl: string;
  /**
   * The mutual-TLS listener (RFC 8705), beside the plain one: HTTPS on `port` with the server
   * certificate and key files, asking every client for a certificate. Connectors authenticate at
   * its token endpoint with a certificate of a registered key and use their certificate-bound
   * tokens there. `baseUrl` is how clients reach it. Undefined when MTLS_PORT is not set.
   */
  mtls: { port: number; baseUrl: string; certFile: string; keyFile: string } | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    /** TLS to the Temporal frontend; undefined for a plain-text connection (the dev server). */
    tls: TemporalTls | undefined;
    /** API key sent as `Authorization: Bearer` (Temporal Cloud API-key authentication). */
    apiKey: string | undefined;
    /** TEMPORAL_PAYLOAD_ENCRYPTION: payloads sealed with the key ring before they reach Temporal (core/payload-codec.ts); on in production and on `npm start`. */
    payloadEncryption: boolean;
  };
  /** Port of the worker role's own /health/live, /health/ready and /metrics (bound on `host`). */
  workerHealthPort: number;
  /** When set, GET /metrics asks for `Authorization: Bearer <token>` (docs/deployment.md). */
  metricsToken: string | undefined;
  /**
   * The codec server (api/codec.ts) the Temporal UI decodes payloads through: CODEC_TOKEN, the
   * bearer token it asks for (the operator's; without one, only a development broker answers, and
   * only to its own machine), and CODEC_CORS_ORIGINS, the UI origins that may call it.
   */
  codecServer: { token: string | undefined; origins: string[] };
  auth: {
    audience: string;
    /** The issuer of connectors' tokens from an external identity provider (AUTH_ISSUER), whose keys are at jwksUrl. */
    issuer: string;
    jwksUrl: string | undefined;
    /**
     * The broker's own token endpoint (POST /oauth2/token, api/token.ts), in every mode unless
     * BROKER_TOKEN_ENDPOINT=false: its issuer `<PUBLIC_BASE_URL>/oauth2`, its signing key from
     * TOKEN_SIGNING_KEY_FILE or generated into the data folder. Undefined when off.
     */
    tokenEndpoint: { issuer: string; keyFile: string | undefined } | undefined;
    /** Whether managed connectors may be given generated client secrets (CLIENT_SECRETS; development: yes, production: no). */
    clientSecrets: boolean;
    devServer: boolean;
    tokenTtlSeconds: number;
    /** Tolerance for the issuer's clock: exp, nbf and iat are checked with this leeway. */
    clockSkewSeconds: number;
    /** Longest accepted token lifetime: exp - iat, or exp - now when iat is absent. */
    maxTokenLifetimeSeconds: number;
    /** How long a client assertion may live (exp - iat) unless its connector's token policy says otherwise (ASSERTION_LIFETIME_SECONDS, 60). */
    assertionLifetimeSeconds: number;
    /** The most a connector's token policy may allow an assertion (AUTH_MAX_ASSERTION_LIFETIME_SECONDS, 300). */
    maxAssertionLifetimeSeconds: number;
    /** Failed client authentications at the OAuth endpoints before a client id or an address is answered 429 (api/token-throttle.ts). */
    throttle: { windowSeconds: number; perClient: number; perAddress: number };
    /** DPoP (RFC 9449): whether proofs must carry a nonce the broker gave (DPOP_NONCE, on by default). */
    dpop: { nonce: boolean };
    /** CLIENT_CA_FILE: trust anchors (PEM) for tls_client_auth certificates and the x5c of client assertions; none by default. */
    clientTrustAnchors: X509Certificate[];
    /**
     * Interactive users' tokens (OIDC Authorization Code with PKCE): the one identity provider whose
     * tokens name users of the users file, its key set and the console's client id at it. In
     * development the broker's own provider at `<PUBLIC_BASE_URL>/oidc` (dev/oidc.ts); off when
     * neither it nor USER_OIDC_ISSUER is set.
     */
    users: { issuer: string; jwksUrl: string | undefined; clientId: string; devProvider: boolean } | undefined;
  };
  /** usersFile: the demo users go with the demo connectors (the default CONNECTORS_FILE); with a connectors file of one's own, users only from USERS_FILE. */
  /** seedRecords: import the organizations file as records at start (seed.ts; REGISTRY_SEED, on by default). */
  registry: { organizationsFile: string; connectorsFile: string; usersFile: string | undefined; environment: string; seedRecords: boolean };
  schemaBase: string;
  /** The retention policies (RETENTION_POLICIES_FILE, default config/retention-policies.json; domain/retention.ts). */
  retention: RetentionPolicies;
  /** The planner console (api/console.ts): an external map style in place of the shipped basemap. */
  /** The console's external map style, and the adapter gateway whose quarantine it shows (CONSOLE_GATEWAY_URL). */
  console: { mapStyleUrl: string | undefined; gatewayUrl: string | undefined };
  idempotencyTtlSeconds: number;
  limits: {
    maxBodyBytes: number;
    maxRelationshipBodyBytes: number;
    orgRequestsPerMinute: number;
    tokenRequestsPerMinute: number;
    invitesPerMinute: number;
    invitesPerHour: number;
    maxPendingOutbound: number;
    pageSizeDefault: number;
    pageSizeMax: number;
  };
  /** cachedWorkflows: the worker's workflow cache, which sets its memory (about 0.5 MB per cached workflow measured). */
  /** bundleFile: a workflow bundle built beforehand (scripts/bundle-workflows.ts); absent, the worker bundles workflows/ at start. */
  workflow: { continueAsNewAfterEvents: number; continueAsNewAfterCommands: number; cachedWorkflows: number; bundleFile?: string };
  matching: { proposalValiditySeconds: number; maxOpenProposalsPerRequest: number; candidateLimit: number };
  log: { level: 'debug' | 'info' | 'warn' | 'error'; redact: boolean };
  webhooks: WebhookSettings;
  /**
   * The key ring that seals the secrets the broker reads back (core/secrets.ts): SECRETS_KEY_FILE,
   * a JSON file of keys mounted from outside the data folder; undefined: `<DATA_DIR>/secrets-key.json`,
   * generated on first start. personalDataKeysDir: the folder of the keys that seal each record's
   * personal data (core/personal-data.ts), PERSONAL_DATA_KEYS_DIR; by default beside the data
   * folder (`<DATA_DIR>.personal-data-keys`), required in production.
   */
  secrets: { keyFile: string | undefined; personalDataKeysDir: string };
  /**
   * The transparency log (docs/transparency-log.md): its origin, the first line of every checkpoint
   * (TRANSPARENCY_LOG_ORIGIN, by default `<host of PUBLIC_BASE_URL>/transparency-log`), the note
   * key file that signs them (TRANSPARENCY_LOG_KEY_FILE, the same file in every api replica;
   * without it a key is generated into the data folder: a single host only), and how often the
   * log's growth is signed without being asked (TRANSPARENCY_LOG_CHECKPOINT_SECONDS, 60), and the
   * note verifier keys of the witnesses whose cosignatures it takes (TRANSPARENCY_LOG_WITNESS_KEYS,
   * separated by spaces or commas; none by default).
   */
  transparencyLog: { origin: string; keyFile: string | undefined; checkpointSeconds: number; witnessKeys: string[] };
}

/** Webhook delivery (docs/webhooks.md). */
export interface WebhookSettings {
  /**
   * CIDR ranges a target may resolve to although they are private or loopback: for tests that
   * deliver to receivers on 127.0.0.1. Empty by default; refused with PCX_MODE=production.
   */
  allowCidrs: string[];
  /** DNS servers (`ip` or `ip:port`) that resolve targets; empty: the system's. */
  dnsServers: string[];
  /** How long a target's addresses are trusted at least (the specification's 60 s floor; lower only outside production, for tests). */
  dnsMinTtlSeconds: number;
  /** An extra certificate authority (PEM) trusted for targets besides the system's roots. */
  ca?: string;
  /** Deliveries in flight to one target host, across this worker's subscriptions. */
  maxPerHost: number;
  /** Deliveries in flight for one subscription. */
  maxPerSubscription: number;
  /** A subscription whose every attempt has failed for this long is disabled. */
  disableAfterHours: number;
  /** A subscription's workflow pumps at least this often without a poke (a poke lost with a watcher). */
  idlePumpSeconds: number;
}

/**
 * Absolute paths of PEM files, read when the broker connects (core/temporal.ts). With neither
 * certificate nor CA: server-authenticated TLS against the system's trusted roots.
 */
export interface TemporalTls {
  /** Client certificate (mutual TLS); always together with keyFile. */
  certFile?: string;
  keyFile?: string;
  /** CA that signed the server's certificate, for a private CA. */
  caFile?: string;
  /** Name checked against the server's certificate (and sent as SNI) instead of the address's host. */
  serverName?: string;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

/** Reads variables, collecting a problem for every bad one (the defaults stand in meanwhile). */
class EnvReader {
  readonly problems: string[] = [];
  constructor(readonly env: Env) {}

  /** A variable set to something (empty counts as unset). */
  given(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  str(name: string, fallback: string): string {
    return this.given(name) ?? fallback;
  }

  int(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const v = this.given(name);
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) return this.problem(`${name}=${JSON.stringify(v)} must be an integer between ${min} and ${max}`, fallback);
    return Number(v);
  }

  bool(name: string, fallback: boolean): boolean {
    const v = this.given(name);
    if (v === undefined) return fallback;
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    return this.problem(`${name}=${JSON.stringify(v)} must be true or false`, fallback);
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const v = this.given(name);
    if (v === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(v)) return this.problem(`${name}=${JSON.stringify(v)} must be one of ${allowed.join(', ')}`, fallback);
    return v as T;
  }

  /** An absolute URL (checked), or the fallback; without a trailing slash. */
  url(name: string, fallback: string): string {
    const value = this.str(name, fallback);
    try {
      new URL(value);
    } catch {
      this.problems.push(`${name}=${JSON.stringify(value)} is not an absolute URL`);
    }
    return value.replace(/\/$/, '');
  }

  /** The contents of the file a variable names, or a problem saying why it cannot be read. */
  file(name: string): { path: string; text: string } | undefined {
    const v = this.given(name);
    if (v === undefined) return undefined;
    const path = resolve(v);
    try {
      return { path, text: readFileSync(path, 'utf8') };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? (err as Error).message})`;
      return this.problem(`${name}=${JSON.stringify(v)} ${why}`, undefined);
    }
  }

  problem<T>(message: string, fallback: T): T {
    this.problems.push(message);
    return fallback;
  }
}

function retentionOf(r: EnvReader): RetentionPolicies {
  const path = resolve(r.str('RETENTION_POLICIES_FILE', 'config/retention-policies.json'));
  const fallback: RetentionPolicies = { default: 'none', policies: {} };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return r.problem(`RETENTION_POLICIES_FILE=${JSON.stringify(path)} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, fallback);
  }
  try {
    return parseRetentionPolicies(JSON.parse(text));
  } catch (err) {
    return r.problem(`RETENTION_POLICIES_FILE=${JSON.stringify(path)}: ${(err as Error).message}`, fallback);
  }
}

export function loadConfig(env: Env = process.env): Config {
  const r = new EnvReader(env);
  const mode = r.oneOf('PCX_MODE', 'development', ['development', 'production'] as const);
  const role = r.oneOf('PCX_ROLE', 'all', ['all', 'api', 'worker'] as const);
  const port = r.int('PORT', 8080, 1, 65535);
  const publicBaseUrl = r.url('PUBLIC_BASE_URL', `http://localhost:${port}`);
  const config: Config = {
    mode,
    role,
    host: r.str('HOST', '127.0.0.1'),
    port,
    publicBaseUrl,
    mtls: mtlsOf(r),
    dataDir: resolve(r.str('DATA_DIR', '.data')),
    databaseUrl: databaseUrlOf(r, mode, role),
    temporal: temporalOf(r, mode),
    workerHealthPort: r.int('WORKER_HEALTH_PORT', 8081, 1, 65535),
    metricsToken: metricsTokenOf(r),
    codecServer: { token: tokenOf(r, 'CODEC_TOKEN'), origins: (r.given('CODEC_CORS_ORIGINS') ?? '').split(',').map((o) => o.trim()).filter(Boolean) },
    auth: authOf(r, mode, role, publicBaseUrl),
    registry: {
      organizationsFile: resolve(r.str('ORGANIZATIONS_FILE', 'config/organizations.json')),
      connectorsFile: resolve(r.str('CONNECTORS_FILE', 'config/demo-clients.json')),
      usersFile:
        r.given('USERS_FILE') !== undefined ? resolve(r.str('USERS_FILE', '')) : r.given('CONNECTORS_FILE') === undefined ? resolve('config/demo-users.json') : undefined,
      environment: r.str('BROKER_ENVIRONMENT', 'sandbox'),
      seedRecords: r.bool('REGISTRY_SEED', true),
    },
    schemaBase: r.url('SCHEMA_BASE', `${publicBaseUrl}/schemas`),
    retention: retentionOf(r),
    console: {
      mapStyleUrl: r.given('CONSOLE_MAP_STYLE_URL') === undefined ? undefined : r.url('CONSOLE_MAP_STYLE_URL', ''),
      gatewayUrl: r.given('CONSOLE_GATEWAY_URL') === undefined ? undefined : r.url('CONSOLE_GATEWAY_URL', ''),
    },
    // At least the declared maximum client retry window of 12 hours (docs/decisions.md).
    idempotencyTtlSeconds: r.int('IDEMPOTENCY_TTL_SECONDS', 86400, 43200),
    limits: limitsOf(r),
    workflow: {
      continueAsNewAfterEvents: r.int('WORKFLOW_CONTINUE_AS_NEW_EVENTS', 10000, 20, 40000),
      continueAsNewAfterCommands: r.int('WORKFLOW_CONTINUE_AS_NEW_COMMANDS', 500, 2, 1500),
      // The worker's memory grows with its cache, not with the open workflows (docs/benchmarks.md, goal 4).
      cachedWorkflows: r.int('WORKER_CACHED_WORKFLOWS', 500, 10, 100000),
      bundleFile: r.given('WORKFLOW_BUNDLE_FILE') ? resolve(r.str('WORKFLOW_BUNDLE_FILE', '')) : undefined,
    },
    matching: {
      proposalValiditySeconds: r.int('MATCH_PROPOSAL_VALIDITY_SECONDS', 86400, 1, 30 * 86400),
      maxOpenProposalsPerRequest: r.int('MATCH_MAX_OPEN_PROPOSALS', 3, 1, 50),
      candidateLimit: r.int('MATCH_CANDIDATE_LIMIT', 50, 1, 1000),
    },
    log: {
      level: r.oneOf('LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error'] as const),
      redact: r.bool('LOG_REDACT', true),
    },
    webhooks: webhooksOf(r, mode),
    secrets: { keyFile: secretsKeyFileOf(r, mode), personalDataKeysDir: personalDataKeysDirOf(r, mode) },
    transparencyLog: {
      origin: transparencyLogOriginOf(r, publicBaseUrl),
      keyFile: r.file('TRANSPARENCY_LOG_KEY_FILE')?.path,
      checkpointSeconds: r.int('TRANSPARENCY_LOG_CHECKPOINT_SECONDS', 60, 1, 86400),
      witnessKeys: witnessKeysOf(r),
    },
  };
  if (r.problems.length) throw new ConfigError(r.problems);
  return config;
}

/** TRANSPARENCY_LOG_ORIGIN: a checkpoint's first line and the generated key's name, so no spaces and no '+'. */
function transparencyLogOriginOf(r: EnvReader, publicBaseUrl: string): string {
  const origin = r.str('TRANSPARENCY_LOG_ORIGIN', `${new URL(publicBaseUrl).host}/transparency-log`);
  if (!/^[^\s+]{1,200}$/u.test(origin)) r.problems.push(`TRANSPARENCY_LOG_ORIGIN=${JSON.stringify(origin)} must be 1 to 200 characters without spaces or '+' (a note key's name)`);
  return origin;
}

/** TRANSPARENCY_LOG_WITNESS_KEYS: note verifier keys of Ed25519 (`<name>+<8 hex>+<base64 of 0x01 and 32 bytes>`). */
function witnessKeysOf(r: EnvReader): string[] {
  const keys = r.str('TRANSPARENCY_LOG_WITNESS_KEYS', '').split(/[\s,]+/).filter(Boolean);
  for (const key of keys) {
    const m = /^[^\s+]+\+[0-9a-f]{8}\+(\S+)$/u.exec(key);
    const typed = m ? Buffer.from(m[1], 'base64') : Buffer.alloc(0);
    if (typed.length !== 33 || typed[0] !== 1) r.problems.push(`TRANSPARENCY_LOG_WITNESS_KEYS: ${JSON.stringify(key)} is not an Ed25519 note verifier key (<name>+<hash>+<key>)`);
  }
  return keys;
}

/**
 * SECRETS_KEY_FILE: read and checked now (its keys are never echoed). Required in production: a key
 * generated into each process's data folder differs between an api that seals a webhook secret and
 * a worker that opens it to sign a delivery (the compose file's containers), and goes with a
 * container that is replaced.
 */
function secretsKeyFileOf(r: EnvReader, mode: Config['mode']): string | undefined {
  const file = r.file('SECRETS_KEY_FILE');
  if (!file) {
    if (mode === 'production') r.problems.push('SECRETS_KEY_FILE is required with PCX_MODE=production: the same key file in every replica (docs/deployment.md, "Secrets at rest")');
    return undefined;
  }
  try {
    parseKeyFile(file.text, 'SECRETS_KEY_FILE');
  } catch (err) {
    r.problems.push((err as Error).message);
  }
  return file.path;
}

/**
 * PERSONAL_DATA_KEYS_DIR: required in production, where the data folder's neighbour would be a
 * container's disk, gone with it and every record's personal data with it; the same folder for
 * every replica (a shared volume), kept out of the database's backups (docs/deployment.md).
 */
function personalDataKeysDirOf(r: EnvReader, mode: Config['mode']): string {
  const given = r.given('PERSONAL_DATA_KEYS_DIR');
  if (!given && mode === 'production') r.problems.push('PERSONAL_DATA_KEYS_DIR is required with PCX_MODE=production: the folder of the keys that seal personal data, the same for every replica and outside the database\'s backups (docs/deployment.md, "Personal data keys")');
  return resolve(given || defaultPersonalDataKeysDir(r.str('DATA_DIR', '.data')));
}

function webhooksOf(r: EnvReader, mode: Config['mode']): WebhookSettings {
  const list = (name: string) => (r.given(name) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const allowCidrs = list('WEBHOOK_ALLOWED_CIDRS');
  for (const cidr of allowCidrs) if (!isCidr(cidr)) r.problems.push(`WEBHOOK_ALLOWED_CIDRS: ${JSON.stringify(cidr)} is not a CIDR range such as 127.0.0.1/32`);
  if (allowCidrs.length && mode === 'production') r.problems.push('WEBHOOK_ALLOWED_CIDRS is not allowed with PCX_MODE=production (it lets webhooks reach private addresses)');
  const dnsServers = list('WEBHOOK_DNS_SERVERS');
  for (const server of dnsServers) if (!/^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:]+\](:\d{1,5})?)$/.test(server)) r.problems.push(`WEBHOOK_DNS_SERVERS: ${JSON.stringify(server)} is not an address such as 10.0.0.2 or 10.0.0.2:53`);
  const dnsMinTtlSeconds = r.int('WEBHOOK_DNS_MIN_TTL_SECONDS', 60, 1, 3600);
  if (dnsMinTtlSeconds < 60 && mode === 'production') r.problems.push('WEBHOOK_DNS_MIN_TTL_SECONDS below 60 is not allowed with PCX_MODE=production (the specification\'s re-validation floor)');
  return {
    allowCidrs,
    dnsServers,
    dnsMinTtlSeconds,
    ca: r.file('WEBHOOK_CA_FILE')?.text,
    maxPerHost: r.int('WEBHOOK_MAX_PER_HOST', 8, 1, 256),
    maxPerSubscription: r.int('WEBHOOK_MAX_PER_SUBSCRIPTION', 16, 1, 256),
    disableAfterHours: r.int('WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 24 * 90),
    idlePumpSeconds: r.int('WEBHOOK_IDLE_PUMP_SECONDS', 600, 1, 86400),
  };
}

function isCidr(value: string): boolean {
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

/** MTLS_PORT with MTLS_CERT_FILE and MTLS_KEY_FILE (a certificate and its key, checked now), and MTLS_BASE_URL. */
function mtlsOf(r: EnvReader): Config['mtls'] {
  const names = ['MTLS_PORT', 'MTLS_CERT_FILE', 'MTLS_KEY_FILE', 'MTLS_BASE_URL'];
  if (r.given('MTLS_PORT') === undefined) {
    const stray = names.filter((n) => r.given(n) !== undefined);
    if (stray.length) r.problems.push(`${stray.join(', ')} ${stray.length === 1 ? 'needs' : 'need'} MTLS_PORT (the mutual-TLS listener)`);
    return undefined;
  }
  const port = r.int('MTLS_PORT', 8443, 1, 65535);
  const certFile = r.file('MTLS_CERT_FILE');
  const keyFile = r.file('MTLS_KEY_FILE');
  if (r.given('MTLS_CERT_FILE') === undefined || r.given('MTLS_KEY_FILE') === undefined) {
    r.problems.push('MTLS_PORT needs MTLS_CERT_FILE and MTLS_KEY_FILE (the server certificate of the mutual-TLS listener and its key)');
  }
  if (certFile && keyFile) {
    const cert = certificateOf(r, 'MTLS_CERT_FILE', certFile.text);
    try {
      if (cert && !cert.checkPrivateKey(createPrivateKey(keyFile.text))) r.problems.push('MTLS_KEY_FILE is not the private key of the certificate in MTLS_CERT_FILE');
    } catch {
      r.problems.push(`MTLS_KEY_FILE=${JSON.stringify(r.env.MTLS_KEY_FILE)} is not an unencrypted PEM private key`);
    }
  }
  const baseUrl = r.url('MTLS_BASE_URL', `https://localhost:${port}`);
  return { port, baseUrl, certFile: certFile?.path ?? '', keyFile: keyFile?.path ?? '' };
}

function metricsTokenOf(r: EnvReader): string | undefined {
  return tokenOf(r, 'METRICS_TOKEN');
}

/** A static bearer token from `name`: at least 16 printable characters. */
function tokenOf(r: EnvReader, name: string): string | undefined {
  const token = r.given(name);
  if (token !== undefined && !/^[\x21-\x7e]{16,}$/.test(token)) r.problems.push(`${name} must be at least 16 printable characters without spaces`);
  return token;
}

function databaseUrlOf(r: EnvReader, mode: Config['mode'], role: Config['role']): string | undefined {
  const databaseUrl = r.given('DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) r.problems.push(`DATABASE_URL must be a postgres:// or postgresql:// URL`);
  if (mode === 'production' && !databaseUrl) r.problems.push('DATABASE_URL is required with PCX_MODE=production');
  // PGlite lives inside one process: separate api and worker processes must share PostgreSQL.
  if (role !== 'all' && !databaseUrl) r.problems.push(`PCX_ROLE=${role} needs DATABASE_URL (PGlite serves a single process)`);
  return databaseUrl;
}

function authOf(r: EnvReader, mode: Config['mode'], role: Config['role'], publicBaseUrl: string): Config['auth'] {
  const devServer = r.bool('DEV_AUTH', mode === 'development');
  if (devServer && mode === 'production') r.problems.push('DEV_AUTH=true is not allowed with PCX_MODE=production');
  const jwksUrl = r.given('AUTH_JWKS_URL') === undefined ? undefined : r.url('AUTH_JWKS_URL', '');
  const brokerIssuer = `${publicBaseUrl}/oauth2`;
  const issuer = r.str('AUTH_ISSUER', brokerIssuer);
  // The broker's own token endpoint, in every mode; off by default only where an external
  // identity provider was configured under the broker's own issuer name (AUTH_JWKS_URL without
  // AUTH_ISSUER: the set-up before the broker had a token endpoint of its own).
  const tokenEndpointOn = r.bool('BROKER_TOKEN_ENDPOINT', !jwksUrl || issuer !== brokerIssuer);
  // A worker verifies no tokens; only processes that serve the API need a key set.
  if (!tokenEndpointOn && !jwksUrl && role !== 'worker') r.problems.push("AUTH_JWKS_URL is required when the broker's token endpoint is off (BROKER_TOKEN_ENDPOINT=false)");
  if (tokenEndpointOn && jwksUrl && issuer === brokerIssuer) {
    r.problems.push(`AUTH_ISSUER must name the external identity provider (not ${brokerIssuer}, the broker's own token issuer) when AUTH_JWKS_URL is set beside the broker's token endpoint`);
  }
  const keyFile = r.given('TOKEN_SIGNING_KEY_FILE') === undefined ? undefined : r.str('TOKEN_SIGNING_KEY_FILE', '');
  // RFC 8725 section 3.10: bounded token lifetimes. The broker must not issue tokens it would refuse.
  const tokenTtlSeconds = r.int('TOKEN_TTL_SECONDS', 3600, 60, 86400);
  const maxTokenLifetimeSeconds = r.int('AUTH_MAX_TOKEN_LIFETIME_SECONDS', 86400, 60, 7 * 86400);
  if (tokenEndpointOn && tokenTtlSeconds > maxTokenLifetimeSeconds) {
    r.problems.push(`TOKEN_TTL_SECONDS=${tokenTtlSeconds} must not exceed AUTH_MAX_TOKEN_LIFETIME_SECONDS=${maxTokenLifetimeSeconds}`);
  }
  // iSHARE asks 30 s, FAPI 2.0 60 s: a short life keeps a captured assertion from being of use.
  const maxAssertionLifetimeSeconds = r.int('AUTH_MAX_ASSERTION_LIFETIME_SECONDS', 300, 5, 3600);
  const assertionLifetimeSeconds = r.int('ASSERTION_LIFETIME_SECONDS', Math.min(60, maxAssertionLifetimeSeconds), 5, 3600);
  if (assertionLifetimeSeconds > maxAssertionLifetimeSeconds) r.problems.push(`ASSERTION_LIFETIME_SECONDS=${assertionLifetimeSeconds} must not exceed AUTH_MAX_ASSERTION_LIFETIME_SECONDS=${maxAssertionLifetimeSeconds}`);
  return {
    audience: r.str('AUTH_AUDIENCE', 'pcx-broker'),
    issuer,
    jwksUrl,
    tokenEndpoint: tokenEndpointOn ? { issuer: brokerIssuer, keyFile } : undefined,
    clientSecrets: r.bool('CLIENT_SECRETS', mode === 'development'),
    devServer,
    tokenTtlSeconds,
    clockSkewSeconds: r.int('AUTH_CLOCK_SKEW_SECONDS', 60, 0, 300),
    maxTokenLifetimeSeconds,
    assertionLifetimeSeconds,
    maxAssertionLifetimeSeconds,
    throttle: {
      windowSeconds: r.int('TOKEN_THROTTLE_WINDOW_SECONDS', 60, 1, 3600),
      perClient: r.int('TOKEN_THROTTLE_CLIENT_FAILURES', 10, 1, 100_000),
      perAddress: r.int('TOKEN_THROTTLE_ADDRESS_FAILURES', 50, 1, 1_000_000),
    },
    dpop: { nonce: r.bool('DPOP_NONCE', true) },
    clientTrustAnchors: trustAnchorsOf(r),
    users: usersAuthOf(r, devServer, publicBaseUrl),
  };
}

/** CLIENT_CA_FILE: one or more PEM certificates, each a trust anchor for client certificates. */
function trustAnchorsOf(r: EnvReader): X509Certificate[] {
  const file = r.file('CLIENT_CA_FILE');
  if (!file) return [];
  const pems = file.text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!pems.length) r.problems.push(`CLIENT_CA_FILE=${JSON.stringify(r.env.CLIENT_CA_FILE)} holds no PEM certificate`);
  return pems.map((pem) => certificateOf(r, 'CLIENT_CA_FILE', pem)).filter((c): c is X509Certificate => c !== undefined);
}

function usersAuthOf(r: EnvReader, devServer: boolean, publicBaseUrl: string): Config['auth']['users'] {
  const issuer = r.given('USER_OIDC_ISSUER') === undefined ? undefined : r.url('USER_OIDC_ISSUER', '');
  const clientId = r.str('USER_OIDC_CLIENT_ID', 'pcx-console');
  if (issuer) {
    // An explicit allow-list: the issuer and where its keys are, never discovered.
    const jwksUrl = r.given('USER_OIDC_JWKS_URL') === undefined ? undefined : r.url('USER_OIDC_JWKS_URL', '');
    if (!jwksUrl) r.problems.push('USER_OIDC_JWKS_URL is required with USER_OIDC_ISSUER');
    return { issuer, jwksUrl, clientId, devProvider: false };
  }
  return devServer ? { issuer: `${publicBaseUrl}/oidc`, jwksUrl: undefined, clientId, devProvider: true } : undefined;
}

function limitsOf(r: EnvReader): Config['limits'] {
  return {
    maxBodyBytes: r.int('MAX_BODY_BYTES', 256 * 1024, 1024),
    maxRelationshipBodyBytes: r.int('MAX_RELATIONSHIP_BODY_BYTES', 64 * 1024, 1024),
    orgRequestsPerMinute: r.int('RATE_LIMIT_ORG_PER_MINUTE', 6000, 1),
    tokenRequestsPerMinute: r.int('RATE_LIMIT_TOKEN_PER_MINUTE', 3000, 1),
    invitesPerMinute: r.int('INVITES_PER_MINUTE', 10, 10),
    invitesPerHour: r.int('INVITES_PER_HOUR', 50, 50),
    maxPendingOutbound: r.int('MAX_PENDING_OUTBOUND', 100, 1),
    pageSizeDefault: 50,
    pageSizeMax: 200,
  };
}

function temporalOf(r: EnvReader, mode: Config['mode']): Config['temporal'] {
  const address = r.str('TEMPORAL_ADDRESS', '127.0.0.1:7233');
  if (!/^[^\s:]+:\d{1,5}$/.test(address)) r.problems.push(`TEMPORAL_ADDRESS=${JSON.stringify(address)} must be host:port`);
  const apiKey = temporalApiKey(r);
  return {
    address,
    namespace: r.str('TEMPORAL_NAMESPACE', 'default'),
    taskQueue: r.str('TEMPORAL_TASK_QUEUE', 'pcx'),
    tls: temporalTls(r, mode, apiKey),
    apiKey,
    payloadEncryption: r.bool('TEMPORAL_PAYLOAD_ENCRYPTION', mode === 'production'),
  };
}

/**
 * TEMPORAL_TLS, TEMPORAL_TLS_CERT_FILE / _KEY_FILE / _CA_FILE / _SERVER_NAME. Every file is read
 * and parsed here, so a missing, unreadable or wrong file stops the process at start with its
 * variable named, not at the first connection attempt. Messages never contain key material.
 */
function temporalTls(r: EnvReader, mode: Config['mode'], apiKey: string | undefined): TemporalTls | undefined {
  const certFile = r.file('TEMPORAL_TLS_CERT_FILE');
  const keyFile = r.file('TEMPORAL_TLS_KEY_FILE');
  const caFile = r.file('TEMPORAL_TLS_CA_FILE');
  const serverName = r.given('TEMPORAL_TLS_SERVER_NAME');
  checkClientCertificate(r, certFile, keyFile);
  if (caFile) certificateOf(r, 'TEMPORAL_TLS_CA_FILE', caFile.text);
  if (serverName !== undefined && !/^[A-Za-z0-9.-]{1,253}$/.test(serverName)) r.problems.push(`TEMPORAL_TLS_SERVER_NAME=${JSON.stringify(serverName)} must be a host name`);
  return tlsEnabled(r, mode, apiKey)
    ? {
        ...(certFile && keyFile ? { certFile: certFile.path, keyFile: keyFile.path } : {}),
        ...(caFile ? { caFile: caFile.path } : {}),
        ...(serverName !== undefined ? { serverName } : {}),
      }
    : undefined;
}

/** A client certificate and its key go together, parse, and belong to each other. */
function checkClientCertificate(r: EnvReader, certFile: { text: string } | undefined, keyFile: { text: string } | undefined) {
  const cert = certFile ? certificateOf(r, 'TEMPORAL_TLS_CERT_FILE', certFile.text) : undefined;
  let key: KeyObject | undefined;
  if (keyFile) {
    try {
      key = createPrivateKey(keyFile.text);
    } catch {
      r.problems.push(`TEMPORAL_TLS_KEY_FILE=${JSON.stringify(r.env.TEMPORAL_TLS_KEY_FILE)} is not an unencrypted PEM private key`);
    }
  }
  const [certGiven, keyGiven] = [r.given('TEMPORAL_TLS_CERT_FILE') !== undefined, r.given('TEMPORAL_TLS_KEY_FILE') !== undefined];
  if (certGiven && !keyGiven) r.problems.push('TEMPORAL_TLS_CERT_FILE needs TEMPORAL_TLS_KEY_FILE (a client certificate and its key go together)');
  if (keyGiven && !certGiven) r.problems.push('TEMPORAL_TLS_KEY_FILE needs TEMPORAL_TLS_CERT_FILE (a client certificate and its key go together)');
  if (cert && key && !cert.checkPrivateKey(key)) r.problems.push('TEMPORAL_TLS_KEY_FILE is not the private key of the certificate in TEMPORAL_TLS_CERT_FILE');
}

function certificateOf(r: EnvReader, name: string, text: string): X509Certificate | undefined {
  try {
    return new X509Certificate(text);
  } catch {
    return r.problem(`${name}=${JSON.stringify(r.env[name])} is not a PEM certificate`, undefined);
  }
}

/**
 * TLS is on when asked for, or implied by any TLS setting or by an API key (as the Temporal SDK
 * itself assumes: an API key is a bearer credential); TEMPORAL_TLS=false contradicting them is a problem.
 */
function tlsEnabled(r: EnvReader, mode: Config['mode'], apiKey: string | undefined): boolean {
  const settings = ['TEMPORAL_TLS_CERT_FILE', 'TEMPORAL_TLS_KEY_FILE', 'TEMPORAL_TLS_CA_FILE', 'TEMPORAL_TLS_SERVER_NAME'].filter((n) => r.given(n) !== undefined);
  const flag = r.given('TEMPORAL_TLS');
  const implied = settings.length > 0 || apiKey !== undefined;
  if (flag === undefined) return implied;
  if (flag === 'true' || flag === '1') return true;
  if (flag !== 'false' && flag !== '0') return r.problem(`TEMPORAL_TLS=${JSON.stringify(flag)} must be true or false`, implied);
  if (settings.length) r.problems.push(`TEMPORAL_TLS=${flag} contradicts ${settings.join(', ')}`);
  if (apiKey !== undefined && mode === 'production') r.problems.push(`TEMPORAL_TLS=${flag} would send the Temporal API key in clear text; not allowed with PCX_MODE=production`);
  return false;
}

/** TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE (never both); the key itself is never echoed. */
function temporalApiKey(r: EnvReader): string | undefined {
  const value = r.given('TEMPORAL_API_KEY');
  const file = r.given('TEMPORAL_API_KEY_FILE');
  if (value !== undefined && file !== undefined) return r.problem('set TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE, not both', undefined);
  let apiKey = value;
  if (file !== undefined) {
    try {
      apiKey = readFileSync(resolve(file), 'utf8').trim();
      if (!apiKey) r.problems.push(`TEMPORAL_API_KEY_FILE=${JSON.stringify(file)} is empty`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      r.problems.push(`TEMPORAL_API_KEY_FILE=${JSON.stringify(file)} ${code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable' : `cannot be read (${code})`}`);
    }
  }
  // It becomes an HTTP/2 header value: visible ASCII only (the value itself is never echoed).
  if (apiKey && !/^[\x21-\x7e]+$/.test(apiKey)) {
    r.problems.push(`${file !== undefined ? 'TEMPORAL_API_KEY_FILE' : 'TEMPORAL_API_KEY'} must hold one token of visible ASCII characters`);
  }
  return apiKey;
}

/** For entry points: the configuration, or a message naming each bad variable and exit code 2. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** The `source` of the broker's CloudEvents: its feed's URL. */
export function eventSource(config: Pick<Config, 'publicBaseUrl'>): string {
  return `${config.publicBaseUrl}/events`;
}
