// Configuration comes from environment variables only. Every variable is parsed and validated
// here, once, at start; a bad value stops the process with a message naming the variable.
// The README lists every variable; keep the two in step.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface Config {
  mode: 'development' | 'production';
  role: 'all' | 'api' | 'worker';
  host: string;
  port: number;
  publicBaseUrl: string;
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
  };
  /** Port of the worker role's own /health/live and /health/ready (bound on `host`). */
  workerHealthPort: number;
  auth: {
    audience: string;
    issuer: string;
    jwksUrl: string | undefined;
    devServer: boolean;
    tokenTtlSeconds: number;
    /** Tolerance for the issuer's clock: exp, nbf and iat are checked with this leeway. */
    clockSkewSeconds: number;
    /** Longest accepted token lifetime: exp - iat, or exp - now when iat is absent. */
    maxTokenLifetimeSeconds: number;
  };
  registry: { organizationsFile: string; connectorsFile: string; environment: string };
  schemaBase: string;
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
  workflow: { continueAsNewAfterEvents: number; continueAsNewAfterCommands: number };
  matching: { proposalValiditySeconds: number; maxOpenProposalsPerRequest: number; candidateLimit: number };
  log: { level: 'debug' | 'info' | 'warn' | 'error'; redact: boolean };
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

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const str = (name: string, fallback: string) => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    return v;
  };
  const int = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      problems.push(`${name}=${JSON.stringify(v)} must be an integer between ${min} and ${max}`);
      return fallback;
    }
    return Number(v);
  };
  const bool = (name: string, fallback: boolean) => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    problems.push(`${name}=${JSON.stringify(v)} must be true or false`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, fallback: T, allowed: readonly T[]): T => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    if (!(allowed as readonly string[]).includes(v)) {
      problems.push(`${name}=${JSON.stringify(v)} must be one of ${allowed.join(', ')}`);
      return fallback;
    }
    return v as T;
  };
  const url = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    try {
      new URL(value);
    } catch {
      problems.push(`${name}=${JSON.stringify(value)} is not an absolute URL`);
    }
    return value;
  };

  const mode = oneOf('PCX_MODE', 'development', ['development', 'production'] as const);
  const port = int('PORT', 8080, 1, 65535);
  const publicBaseUrl = url('PUBLIC_BASE_URL', str('PUBLIC_BASE_URL', `http://localhost:${port}`))!.replace(/\/$/, '');
  const devServer = bool('DEV_AUTH', mode === 'development');
  if (devServer && mode === 'production') problems.push('DEV_AUTH=true is not allowed with PCX_MODE=production');
  const jwksUrl = url('AUTH_JWKS_URL', env.AUTH_JWKS_URL || undefined);
  const role = oneOf('PCX_ROLE', 'all', ['all', 'api', 'worker'] as const);
  // A worker verifies no tokens; only processes that serve the API need a key set.
  if (!devServer && !jwksUrl && role !== 'worker') problems.push('AUTH_JWKS_URL is required when the development authorization server is off');
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be a postgres:// or postgresql:// URL`);
  }
  if (mode === 'production' && !databaseUrl) problems.push('DATABASE_URL is required with PCX_MODE=production');
  // PGlite lives inside one process: separate api and worker processes must share PostgreSQL.
  if (role !== 'all' && !databaseUrl) problems.push(`PCX_ROLE=${role} needs DATABASE_URL (PGlite serves a single process)`);
  const temporalAddress = str('TEMPORAL_ADDRESS', '127.0.0.1:7233');
  if (!/^[^\s:]+:\d{1,5}$/.test(temporalAddress)) {
    problems.push(`TEMPORAL_ADDRESS=${JSON.stringify(temporalAddress)} must be host:port`);
  }
  const temporalTls = temporalTlsSettings(env, mode, problems);
  // RFC 8725 section 3.10: bounded token lifetimes. The development server must not issue tokens
  // the broker itself would refuse.
  const tokenTtlSeconds = int('TOKEN_TTL_SECONDS', 3600, 60, 86400);
  const maxTokenLifetimeSeconds = int('AUTH_MAX_TOKEN_LIFETIME_SECONDS', 86400, 60, 7 * 86400);
  if (devServer && tokenTtlSeconds > maxTokenLifetimeSeconds) {
    problems.push(`TOKEN_TTL_SECONDS=${tokenTtlSeconds} must not exceed AUTH_MAX_TOKEN_LIFETIME_SECONDS=${maxTokenLifetimeSeconds}`);
  }

  const config: Config = {
    mode,
    role,
    host: str('HOST', '127.0.0.1'),
    port,
    publicBaseUrl,
    dataDir: resolve(str('DATA_DIR', '.data')),
    databaseUrl,
    temporal: {
      address: temporalAddress,
      namespace: str('TEMPORAL_NAMESPACE', 'default'),
      taskQueue: str('TEMPORAL_TASK_QUEUE', 'pcx'),
      tls: temporalTls.tls,
      apiKey: temporalTls.apiKey,
    },
    workerHealthPort: int('WORKER_HEALTH_PORT', 8081, 1, 65535),
    auth: {
      audience: str('AUTH_AUDIENCE', 'pcx-broker'),
      issuer: str('AUTH_ISSUER', `${publicBaseUrl}/oauth2`),
      jwksUrl,
      devServer,
      tokenTtlSeconds,
      clockSkewSeconds: int('AUTH_CLOCK_SKEW_SECONDS', 60, 0, 300),
      maxTokenLifetimeSeconds,
    },
    registry: {
      organizationsFile: resolve(str('ORGANIZATIONS_FILE', 'config/organizations.json')),
      connectorsFile: resolve(str('CONNECTORS_FILE', 'config/demo-clients.json')),
      environment: str('BROKER_ENVIRONMENT', 'sandbox'),
    },
    schemaBase: url('SCHEMA_BASE', str('SCHEMA_BASE', `${publicBaseUrl}/schemas`))!.replace(/\/$/, ''),
    // At least the declared maximum client retry window of 12 hours (docs/decisions.md).
    idempotencyTtlSeconds: int('IDEMPOTENCY_TTL_SECONDS', 86400, 43200),
    limits: {
      maxBodyBytes: int('MAX_BODY_BYTES', 256 * 1024, 1024),
      maxRelationshipBodyBytes: int('MAX_RELATIONSHIP_BODY_BYTES', 64 * 1024, 1024),
      orgRequestsPerMinute: int('RATE_LIMIT_ORG_PER_MINUTE', 6000, 1),
      tokenRequestsPerMinute: int('RATE_LIMIT_TOKEN_PER_MINUTE', 3000, 1),
      invitesPerMinute: int('INVITES_PER_MINUTE', 10, 10),
      invitesPerHour: int('INVITES_PER_HOUR', 50, 50),
      maxPendingOutbound: int('MAX_PENDING_OUTBOUND', 100, 1),
      pageSizeDefault: 50,
      pageSizeMax: 200,
    },
    workflow: {
      continueAsNewAfterEvents: int('WORKFLOW_CONTINUE_AS_NEW_EVENTS', 10000, 20, 40000),
      continueAsNewAfterCommands: int('WORKFLOW_CONTINUE_AS_NEW_COMMANDS', 500, 2, 1500),
    },
    matching: {
      proposalValiditySeconds: int('MATCH_PROPOSAL_VALIDITY_SECONDS', 86400, 1, 30 * 86400),
      maxOpenProposalsPerRequest: int('MATCH_MAX_OPEN_PROPOSALS', 3, 1, 50),
      candidateLimit: int('MATCH_CANDIDATE_LIMIT', 50, 1, 1000),
    },
    log: {
      level: oneOf('LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error'] as const),
      redact: bool('LOG_REDACT', true),
    },
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/**
 * TEMPORAL_TLS, TEMPORAL_TLS_CERT_FILE / _KEY_FILE / _CA_FILE / _SERVER_NAME, TEMPORAL_API_KEY or
 * TEMPORAL_API_KEY_FILE. Every file is read and parsed here, so a missing, unreadable or wrong file
 * stops the process at start with its variable named, not at the first connection attempt. Messages
 * never contain the key material or the API key.
 */
function temporalTlsSettings(env: Env, mode: Config['mode'], problems: string[]): { tls: TemporalTls | undefined; apiKey: string | undefined } {
  const given = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]!);
  const readPem = (name: string): { path: string; text: string } | undefined => {
    const v = given(name);
    if (v === undefined) return undefined;
    const path = resolve(v);
    try {
      return { path, text: readFileSync(path, 'utf8') };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? (err as Error).message})`;
      problems.push(`${name}=${JSON.stringify(v)} ${why}`);
      return undefined;
    }
  };
  const certificate = (name: string, file: { text: string } | undefined): X509Certificate | undefined => {
    if (!file) return undefined;
    try {
      return new X509Certificate(file.text);
    } catch {
      problems.push(`${name}=${JSON.stringify(env[name])} is not a PEM certificate`);
      return undefined;
    }
  };

  const certFile = readPem('TEMPORAL_TLS_CERT_FILE');
  const keyFile = readPem('TEMPORAL_TLS_KEY_FILE');
  const caFile = readPem('TEMPORAL_TLS_CA_FILE');
  const serverName = given('TEMPORAL_TLS_SERVER_NAME');
  const cert = certificate('TEMPORAL_TLS_CERT_FILE', certFile);
  certificate('TEMPORAL_TLS_CA_FILE', caFile);
  let key: KeyObject | undefined;
  if (keyFile) {
    try {
      key = createPrivateKey(keyFile.text);
    } catch {
      problems.push(`TEMPORAL_TLS_KEY_FILE=${JSON.stringify(env.TEMPORAL_TLS_KEY_FILE)} is not an unencrypted PEM private key`);
    }
  }
  if (given('TEMPORAL_TLS_CERT_FILE') !== undefined && given('TEMPORAL_TLS_KEY_FILE') === undefined) {
    problems.push('TEMPORAL_TLS_CERT_FILE needs TEMPORAL_TLS_KEY_FILE (a client certificate and its key go together)');
  }
  if (given('TEMPORAL_TLS_KEY_FILE') !== undefined && given('TEMPORAL_TLS_CERT_FILE') === undefined) {
    problems.push('TEMPORAL_TLS_KEY_FILE needs TEMPORAL_TLS_CERT_FILE (a client certificate and its key go together)');
  }
  if (cert && key && !cert.checkPrivateKey(key)) {
    problems.push('TEMPORAL_TLS_KEY_FILE is not the private key of the certificate in TEMPORAL_TLS_CERT_FILE');
  }
  if (serverName !== undefined && !/^[A-Za-z0-9.-]{1,253}$/.test(serverName)) {
    problems.push(`TEMPORAL_TLS_SERVER_NAME=${JSON.stringify(serverName)} must be a host name`);
  }

  let apiKey: string | undefined;
  const apiKeyValue = given('TEMPORAL_API_KEY');
  const apiKeyFile = given('TEMPORAL_API_KEY_FILE');
  if (apiKeyValue !== undefined && apiKeyFile !== undefined) {
    problems.push('set TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE, not both');
  } else if (apiKeyValue !== undefined) {
    apiKey = apiKeyValue;
  } else if (apiKeyFile !== undefined) {
    try {
      apiKey = readFileSync(resolve(apiKeyFile), 'utf8').trim();
      if (!apiKey) problems.push(`TEMPORAL_API_KEY_FILE=${JSON.stringify(apiKeyFile)} is empty`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problems.push(`TEMPORAL_API_KEY_FILE=${JSON.stringify(apiKeyFile)} ${code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable' : `cannot be read (${code})`}`);
    }
  }
  // It becomes an HTTP/2 header value: visible ASCII only (the value itself is never echoed).
  if (apiKey && !/^[\x21-\x7e]+$/.test(apiKey)) {
    problems.push(`${apiKeyFile !== undefined ? 'TEMPORAL_API_KEY_FILE' : 'TEMPORAL_API_KEY'} must hold one token of visible ASCII characters`);
  }

  // TLS is on when asked for, or implied by any TLS setting or by an API key (as the Temporal SDK
  // itself assumes: an API key is a bearer credential).
  const tlsSettings = ['TEMPORAL_TLS_CERT_FILE', 'TEMPORAL_TLS_KEY_FILE', 'TEMPORAL_TLS_CA_FILE', 'TEMPORAL_TLS_SERVER_NAME'].filter((n) => given(n) !== undefined);
  const tlsFlag = given('TEMPORAL_TLS');
  let tlsOn = tlsSettings.length > 0 || apiKey !== undefined;
  if (tlsFlag !== undefined) {
    if (tlsFlag === 'true' || tlsFlag === '1') tlsOn = true;
    else if (tlsFlag === 'false' || tlsFlag === '0') {
      tlsOn = false;
      if (tlsSettings.length) problems.push(`TEMPORAL_TLS=${tlsFlag} contradicts ${tlsSettings.join(', ')}`);
      if (apiKey !== undefined && mode === 'production') {
        problems.push(`TEMPORAL_TLS=${tlsFlag} would send the Temporal API key in clear text; not allowed with PCX_MODE=production`);
      }
    } else problems.push(`TEMPORAL_TLS=${JSON.stringify(tlsFlag)} must be true or false`);
  }
  const tls: TemporalTls | undefined = tlsOn
    ? {
        ...(certFile && keyFile ? { certFile: certFile.path, keyFile: keyFile.path } : {}),
        ...(caFile ? { caFile: caFile.path } : {}),
        ...(serverName !== undefined ? { serverName } : {}),
      }
    : undefined;
  return { tls, apiKey };
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
