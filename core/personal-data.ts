// Crypto-shredding of personal data (issue 52 part 1; docs/retention.md, "Personal data sealed
// per record"): a handover's contact persons and a user's name are sealed with a key of their own
// record before they reach Temporal, the read model, events or kept answers, and opened only on
// the way out (an HTTP answer, a feed's stream, a webhook). Erasing them destroys the record's key:
// whatever copy is left where a row cannot be reached (PostgreSQL's old row versions and WAL, the
// SQLite pages Temporal freed, a backup made before) holds only ciphertext nobody can open again.
//
// The keys live in a folder of their own (PERSONAL_DATA_KEYS_DIR), one file per record, never in
// a database: a key deleted from a table would live on in the very remnants it is meant to make
// unreadable. Outside the data folder, so a backup of the folder does not carry them.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PERSONAL_DATA, type PersonalDataPath } from '../domain/retention';

const PREFIX = 'pcx-pd:v1:';
/** A record's subject: `<kind>.<id>`, the name of its key's file. */
const SUBJECT = /^[a-z][a-z-]{0,63}\.[A-Za-z0-9-]{1,64}$/;
const SEALED = /^pcx-pd:v1:([a-z][a-z-]{0,63}\.[A-Za-z0-9-]{1,64}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]+)$/;
/** How long a process keeps a key it read: another replica's destruction of it is seen within this time. */
const CACHE_MS = 2000;

export const subjectOf = (kind: string, id: string) => `${kind}.${id}`;

/** Whether a text (a serialized answer, an event) holds any sealed personal data: a substring test, cheap enough for every answer. */
export const holdsPersonalData = (text: string): boolean => text.includes(PREFIX);
/** A sealed personal value (not to be confused with a sealed Temporal payload, core/payload-codec.ts isSealed). */
const isSealedValue = (value: unknown): value is string => typeof value === 'string' && value.startsWith(PREFIX);

/**
 * The keys of a folder: `<subject>.key`, 32 random bytes in base64. Created when a record's
 * first personal value is sealed (a link of a fully written file, so a concurrent replica finds
 * either none or the whole key); destroyed by overwriting and unlinking it.
 */
export class PersonalDataKeys {
  private cache = new Map<string, { key: Buffer; at: number }>();
  constructor(readonly dir: string) {}

  private file(subject: string): string {
    if (!SUBJECT.test(subject)) throw new Error(`not a personal data subject: ${subject}`);
    return join(this.dir, `${subject}.key`);
  }

  /** The subject's key, or undefined once destroyed (or never made). */
  find(subject: string): Buffer | undefined {
    const cached = this.cache.get(subject);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.key;
    try {
      const key = Buffer.from(readFileSync(this.file(subject), 'utf8').trim(), 'base64');
      if (key.length !== 32) return undefined;
      this.cache.set(subject, { key, at: Date.now() });
      return key;
    } catch {
      this.cache.delete(subject);
      return undefined;
    }
  }

  /** The subject's key, made now if it has none. */
  obtain(subject: string): Buffer {
    const found = this.find(subject);
    if (found) return found;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const target = this.file(subject);
    const mine = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(mine, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flush: true });
    try {
      linkSync(mine, target); // fails if another process made it first: theirs is the key
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(mine);
    }
    const key = this.find(subject);
    if (!key) throw new Error(`the personal data key of ${subject} could not be read back from ${this.dir}`);
    return key;
  }

  /**
   * Destroys the subject's key: its bytes overwritten and synced, then the file unlinked. Whether
   * the overwrite reaches the disk's old blocks is the file system's matter (docs/retention.md).
   * True if there was a key.
   */
  destroy(subject: string): boolean {
    this.cache.delete(subject);
    const path = this.file(subject);
    let fd: number;
    try {
      fd = openSync(path, 'r+');
    } catch {
      return false;
    }
    try {
      writeSync(fd, randomBytes(64), 0, 64, 0);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    unlinkSync(path);
    return true;
  }
}

/** Seals and opens personal values with their records' keys. */
export class PersonalData {
  constructor(readonly keys: PersonalDataKeys) {}

  /**
   * `pcx-pd:v1:<subject>:<iv>:<ciphertext and tag>` (base64url): AES-256-GCM under the subject's
   * key, the subject bound as additional data. Deterministic: the IV is an HMAC of the value under
   * the same key, so one value seals alike every time (a retried command's fingerprint, a PATCH
   * that changes nothing) and two values never share an IV.
   */
  seal(subject: string, plaintext: string): string {
    const key = this.keys.obtain(subject);
    const iv = createHmac('sha256', derived(key, 'iv')).update(plaintext, 'utf8').digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', derived(key, 'enc'), iv);
    cipher.setAAD(Buffer.from(subject, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${subject}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
  }

  /** The value, or undefined when its key is destroyed (or the value is not one of ours). */
  open(value: string): string | undefined {
    const m = SEALED.exec(value);
    if (!m) return undefined;
    const [, subject, iv, body] = m;
    const key = this.keys.find(subject);
    if (!key) return undefined;
    const bytes = Buffer.from(body, 'base64url');
    if (bytes.length < 16) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', derived(key, 'enc'), Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(subject, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  /** A stored value opened if sealed, as it is if not; undefined once its key is destroyed. */
  openValue(value: string): string | undefined {
    return isSealedValue(value) ? this.open(value) : value;
  }

  /** The record's key destroyed: every copy of its sealed values, wherever it lies, is unreadable from now on. */
  shred(kind: string, id: string): boolean {
    return this.keys.destroy(subjectOf(kind, id));
  }

  /**
   * A command's payload (or a document) of `kind` with its personal values (domain/retention.ts
   * PERSONAL_DATA) sealed under record `id`'s key. Names are trimmed first (the machines trim
   * them); an empty one is left for the machine to refuse or default. Called once per command,
   * on what the caller sent.
   */
  sealFields<T>(kind: string, id: string, payload: T): T {
    const paths = PERSONAL_DATA[kind];
    if (!paths || !payload || typeof payload !== 'object') return payload;
    const subject = subjectOf(kind, id);
    let out: unknown = payload;
    for (const path of paths) {
      out = mapAt(out, path, (v) => {
        // A value that looks sealed is sealed like any other: a caller cannot plant one.
        if (typeof v !== 'string') return v;
        const value = path[path.length - 1] === 'name' ? v.trim() : v;
        return value ? this.seal(subject, value) : v;
      });
    }
    return out as T;
  }

  /**
   * `value` with every sealed string opened. A value whose key is gone is gone too: its property
   * is left out, and a list's item that held it is left out of the list (a contact without its
   * name is no contact).
   */
  openAll<T>(value: T): T {
    return opened(this, value).value as T;
  }

  /** A serialized JSON text opened (unchanged, and not parsed, when it holds nothing sealed). */
  openText(text: string): string {
    if (!holdsPersonalData(text)) return text;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return text; // not JSON after all: nothing of ours to open in it
    }
    return JSON.stringify(this.openAll(parsed));
  }
}

function derived(key: Buffer, use: string): Buffer {
  return createHmac('sha256', key).update(`pcx personal data ${use}`).digest();
}

function opened(pd: PersonalData, value: unknown): { value: unknown; lost: boolean } {
  if (isSealedValue(value)) {
    const plain = pd.open(value);
    return plain === undefined ? { value: undefined, lost: true } : { value: plain, lost: false };
  }
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const o = opened(pd, item);
      if (!o.lost) items.push(o.value);
    }
    return { value: items, lost: false };
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    let lost = false;
    for (const [k, v] of Object.entries(value)) {
      const o = opened(pd, v);
      if (o.lost && o.value === undefined) lost = true;
      else out[k] = o.value;
    }
    return { value: out, lost };
  }
  return { value, lost: false };
}

/** `value` with `fn` applied at `path` ('*' for every item of a list), copied where it changes. */
function mapAt(value: unknown, path: PersonalDataPath, fn: (v: unknown) => unknown, at = 0): unknown {
  if (at === path.length) return fn(value);
  const step = path[at];
  if (step === '*') return Array.isArray(value) ? value.map((item) => mapAt(item, path, fn, at + 1)) : value;
  if (!value || typeof value !== 'object' || Array.isArray(value) || !(step in value)) return value;
  return { ...(value as object), [step]: mapAt((value as Record<string, unknown>)[step], path, fn, at + 1) };
}

/** The folder of keys when PERSONAL_DATA_KEYS_DIR is not set: beside the data folder, not in it (a backup of the folder holds no key). */
export const defaultPersonalDataKeysDir = (dataDir: string) => `${resolve(dataDir)}.personal-data-keys`;

const instances = new Map<string, PersonalData>();

/** This process's sealer for a folder of keys (one per folder, shared by the API and the worker, so a destroyed key leaves both caches at once). */
export function personalDataOf(settings: { personalDataKeysDir: string }): PersonalData {
  const dir = resolve(settings.personalDataKeysDir);
  let pd = instances.get(dir);
  if (!pd) instances.set(dir, (pd = new PersonalData(new PersonalDataKeys(dir))));
  return pd;
}
