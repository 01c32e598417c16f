// Secrets the broker must read back (webhook signing secrets) are stored sealed: AES-256-GCM
// (node:crypto) under a key of a key ring from configuration, never in clear (docs/decisions.md,
// "Secrets at rest"). Each sealed value names the key that sealed it; the newest key (the ring's
// primary) seals, every key of the ring opens, so adding a key rotates without downtime and
// `npm run secrets:rotate` re-seals what the older keys sealed before they are removed.
//
// Where the keys come from is a KeyProvider: a JSON file (SECRETS_KEY_FILE, mounted from a secret
// store; on `npm start` without one, generated into the data folder on first start), or a cloud
// KMS (not implemented here: see KeyProvider).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface SecretKey {
  /** Named in every value it seals: letters, digits, '.', '_' and '-'. */
  id: string;
  /** 32 bytes (AES-256). */
  key: Buffer;
}

/**
 * Where the ring's keys come from. `load` answers the keys and which one seals; the ring calls it
 * again on `refresh` (a value sealed under a key it does not know yet, and every few seconds), so
 * a key added at the source reaches a running broker without a restart.
 *
 * A KMS fits here by envelope encryption: the provider keeps data keys wrapped by the KMS (in a
 * file or the KMS's own store), asks the KMS to unwrap them in `load`, and hands the ring the
 * plain data keys, which stay in memory only. No cloud KMS client ships with the broker (none can
 * be tested here, without network); FileKeyProvider is the one implemented.
 */
export interface KeyProvider {
  /** A description for messages (a path, a KMS key name); never key material. */
  readonly source: string;
  load(): { keys: SecretKey[]; primary: string };
}

const ID = /^[A-Za-z0-9._-]{1,64}$/;
const PREFIX = 'pcx-sealed:v1';

export class SecretsError extends Error {}

/** A JSON key file: `{ "primary"?: "<id>", "keys": [{ "id": "<id>", "key": "<32 bytes in base64>" }, ...] }`; without primary, the last key seals. */
export function parseKeyFile(text: string, source: string): { keys: SecretKey[]; primary: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SecretsError(`${source} is not JSON`);
  }
  const entries = (json as { keys?: unknown })?.keys;
  if (!Array.isArray(entries) || entries.length === 0) throw new SecretsError(`${source} must hold {"keys": [{"id", "key"}, ...]} with at least one key`);
  const keys = entries.map((e: { id?: unknown; key?: unknown }, i) => {
    if (typeof e?.id !== 'string' || !ID.test(e.id)) throw new SecretsError(`${source}: keys[${i}].id must be 1 to 64 letters, digits, '.', '_' or '-'`);
    const key = typeof e.key === 'string' ? Buffer.from(e.key, 'base64') : Buffer.alloc(0);
    if (key.length !== 32) throw new SecretsError(`${source}: keys[${i}] (${e.id}) must be 32 bytes in base64`);
    return { id: e.id, key };
  });
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new SecretsError(`${source}: key ids must be distinct`);
  const primary = (json as { primary?: unknown }).primary ?? keys[keys.length - 1].id;
  if (typeof primary !== 'string' || !keys.some((k) => k.id === primary)) throw new SecretsError(`${source}: primary names no key of the file`);
  return { keys, primary };
}

/** A key id that names its day and differs from every other key's (two generated files never share an id). */
export const newKeyId = () => `k${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(3).toString('hex')}`;

/** A new key file's text: one key, 32 random bytes. */
export function newKeyFile(id = newKeyId()): string {
  return `${JSON.stringify({ keys: [{ id, key: randomBytes(32).toString('base64'), createdAt: new Date().toISOString() }] }, null, 2)}\n`;
}

/** Keys from a JSON file, read again whenever its modification time changes. */
export class FileKeyProvider implements KeyProvider {
  constructor(readonly source: string) {}
  load() {
    return parseKeyFile(readFileSync(this.source, 'utf8'), this.source);
  }
  /** The file's modification time, to tell whether it changed. */
  version(): number {
    return statSync(this.source).mtimeMs;
  }
}

/** Keys given directly (tests). */
export class StaticKeyProvider implements KeyProvider {
  readonly source = 'static keys';
  constructor(private keys: SecretKey[], private primary = keys[keys.length - 1]?.id ?? '') {}
  load() {
    return { keys: this.keys, primary: this.primary };
  }
}

/** Seals and opens secrets with the provider's keys: the primary seals, every key opens. */
export class KeyRing {
  private keys = new Map<string, Buffer>();
  private primaryId = '';
  private loadedVersion: number | undefined;
  private checkedAt = 0;

  constructor(
    private readonly provider: KeyProvider,
    /** How often, at most, a file provider's file is looked at again for a change. */
    private readonly refreshMs = 5000,
  ) {
    this.reload();
  }

  get source(): string {
    return this.provider.source;
  }

  /** The id of the key that seals now. */
  get primary(): string {
    this.maybeRefresh();
    return this.primaryId;
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  private reload(): void {
    const { keys, primary } = this.provider.load();
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
    this.primaryId = primary;
    this.loadedVersion = this.provider instanceof FileKeyProvider ? this.provider.version() : undefined;
  }

  /** Reads the source again if it changed; a source that cannot be read now keeps the keys loaded. */
  refresh(): void {
    this.checkedAt = Date.now();
    try {
      if (this.provider instanceof FileKeyProvider && this.provider.version() === this.loadedVersion) return;
      this.reload();
    } catch {
      // A file being replaced, or a bad edit: the keys loaded before go on serving.
    }
  }

  private maybeRefresh(): void {
    if (Date.now() - this.checkedAt >= this.refreshMs) this.refresh();
  }

  /**
   * `pcx-sealed:v1:<key id>:<iv>:<ciphertext>:<tag>` (base64url): AES-256-GCM, a random 96-bit IV,
   * `context` bound as additional data (a value sealed for one row does not open for another).
   */
  seal(plaintext: string, context: string): string {
    const id = this.primary;
    const key = this.keys.get(id)!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(`${id}\n${context}`, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [PREFIX, id, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(':');
  }

  /** The secret a sealed value holds; throws SecretsError for an unknown key, a wrong context or a tampered value. */
  open(sealed: string, context: string): string {
    const parts = sealed.split(':');
    if (parts.length !== 6 || `${parts[0]}:${parts[1]}` !== PREFIX) throw new SecretsError('not a sealed value');
    const [, , id, iv, ciphertext, tag] = parts;
    if (!this.keys.has(id)) this.refresh();
    const key = this.keys.get(id);
    if (!key) throw new SecretsError(`the key ${id} is not in the key ring (${this.provider.source})`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(`${id}\n${context}`, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretsError(`a value sealed under ${id} does not open: tampered, or sealed for another record`);
    }
  }

  /** The id of the key a sealed value names, or undefined for a value that is not sealed (clear text from before). */
  static keyOf(value: string): string | undefined {
    const parts = value.split(':');
    return parts.length === 6 && `${parts[0]}:${parts[1]}` === PREFIX ? parts[2] : undefined;
  }
}

/** The file of keys generated into the data folder when SECRETS_KEY_FILE is not set. */
export const generatedKeyFile = (dataDir: string) => join(dataDir, 'secrets-key.json');

const rings = new Map<string, KeyRing>();

/**
 * The key ring of this process's configuration (one per file, shared by the API and the worker):
 * SECRETS_KEY_FILE, or the data folder's secrets-key.json, generated (mode 600) on first start.
 * `generated` says the file was just written.
 */
export function keyRingOf(settings: { keyFile: string | undefined; dataDir: string }): { ring: KeyRing; generated?: string } {
  const file = resolve(settings.keyFile ?? generatedKeyFile(settings.dataDir));
  const known = rings.get(file);
  if (known) return { ring: known };
  let generated: string | undefined;
  if (!settings.keyFile && !existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    // Written whole and then renamed: a process that starts beside this one reads a complete file or none.
    const mine = `${file}.${process.pid}.tmp`;
    writeFileSync(mine, newKeyFile(), { mode: 0o600 });
    if (!existsSync(file)) {
      renameSync(mine, file);
      generated = file;
    } else unlinkSync(mine);
  }
  const ring = new KeyRing(new FileKeyProvider(file));
  rings.set(file, ring);
  return { ring, ...(generated ? { generated } : {}) };
}
