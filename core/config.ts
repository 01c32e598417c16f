// Configuration comes from environment variables only. Every variable is parsed and validated
// here, once, at start; a bad value stops the process with a message naming the variable.
// The README lists every variable; keep the two in step.
import { resolve } from 'node:path';

export interface Config {
  mode: 'development' | 'production';
  role: 'all' | 'api' | 'worker';
  host: string;
  port: number;
  publicBaseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  temporal: { address: string; namespace: string; taskQueue: string };
  auth: {
    audience: string;
    issuer: string;
    jwksUrl: string | undefined;
    devServer: boolean;
    tokenTtlSeconds: number;
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
  log: { level: 'debug' | 'info' | 'warn' | 'error'; redact: boolean };
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
    },
    auth: {
      audience: str('AUTH_AUDIENCE', 'pcx-broker'),
      issuer: str('AUTH_ISSUER', `${publicBaseUrl}/oauth2`),
      jwksUrl,
      devServer,
      tokenTtlSeconds: int('TOKEN_TTL_SECONDS', 3600, 60, 86400),
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
    log: {
      level: oneOf('LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error'] as const),
      redact: bool('LOG_REDACT', true),
    },
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
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
