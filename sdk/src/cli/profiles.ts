// `pcx login` profiles: a broker's URL and a connector's client credentials, by name, in one
// JSON file only its owner may read (mode 600; the directory 700). The environment overrides a
// profile (PCX_BASE_URL, PCX_CLIENT_ID, PCX_CLIENT_SECRET), for scripts and CI.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Profile {
  baseUrl: string;
  clientId: string;
  /** A client secret, or instead the file of the connector's private key (private_key_jwt; `pcx keys generate`): the key stays in its file. */
  clientSecret?: string;
  privateKeyFile?: string;
  /** Or a TLS client certificate and its key (mutual TLS, RFC 8705; baseUrl is then the broker's mutual-TLS address), and an extra CA for the broker's certificate. */
  certificateFile?: string;
  certificateKeyFile?: string;
  caFile?: string;
  /** DPoP (RFC 9449): every token bound to a key made for the command's run. */
  dpop?: boolean;
}

export interface ProfileFile {
  default?: string;
  profiles: Record<string, Profile>;
}

/** PCX_CONFIG_DIR, else $XDG_CONFIG_HOME/pcx, else ~/.config/pcx. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PCX_CONFIG_DIR) return env.PCX_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'pcx');
}

export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'profiles.json');
}

export function readProfiles(env: NodeJS.ProcessEnv = process.env): ProfileFile {
  const file = profilesPath(env);
  if (!existsSync(file)) return { profiles: {} };
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as ProfileFile;
  return { ...parsed, profiles: parsed.profiles ?? {} };
}

/** Written to a temporary file with mode 600 and renamed over the old one: never readable by others, never half-written. */
export function writeProfiles(data: ProfileFile, env: NodeJS.ProcessEnv = process.env): string {
  const file = profilesPath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return file;
}

/** The profile a command runs with: --profile, PCX_PROFILE, the file's default, or "default"; the environment's values over it. */
export function resolveProfile(name: string | undefined, env: NodeJS.ProcessEnv = process.env): { name: string; profile: Partial<Profile> } {
  const file = readProfiles(env);
  const chosen = name ?? env.PCX_PROFILE ?? file.default ?? 'default';
  const stored: Partial<Profile> = file.profiles[chosen] ?? {};
  return {
    name: chosen,
    profile: {
      ...stored,
      ...(env.PCX_BASE_URL ? { baseUrl: env.PCX_BASE_URL } : {}),
      ...(env.PCX_CLIENT_ID ? { clientId: env.PCX_CLIENT_ID } : {}),
      ...(env.PCX_CLIENT_SECRET ? { clientSecret: env.PCX_CLIENT_SECRET, privateKeyFile: undefined, certificateFile: undefined } : {}),
      ...(env.PCX_PRIVATE_KEY_FILE ? { privateKeyFile: env.PCX_PRIVATE_KEY_FILE, clientSecret: undefined, certificateFile: undefined } : {}),
    },
  };
}
