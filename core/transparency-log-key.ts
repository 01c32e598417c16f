// The key the broker signs its transparency log's checkpoints with (docs/transparency-log.md): an
// Ed25519 note key in the text form of Go's golang.org/x/mod/sumdb/note, so that the tools of the
// transparency ecosystem (witnesses, `note` verifiers) read our checkpoints as they read any log's.
// The operator's, from TRANSPARENCY_LOG_KEY_FILE (mounted in every replica; its first line the
// signing key, any further lines the verifier keys of retired signing keys, still published so that
// checkpoints they signed keep verifying), or one generated once into the data folder.
import { createHash, createPrivateKey, createPublicKey, randomBytes, randomUUID, sign, verify } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface NoteSigner {
  name: string;
  keyHash: number;
  /** `PRIVATE+KEY+<name>+<hash>+<base64>`: never logged, never served. */
  signerKey: string;
  /** `<name>+<hash>+<base64>`: what verifiers are given. */
  verifierKey: string;
  sign(message: Buffer): Buffer;
}

const ED25519 = 1;
/** The PKCS #8 prefix of a raw Ed25519 seed (RFC 8410). */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const NAME = /^[^\s+]+$/u;
/** Name, key hash, base64 key: the key may itself hold '+'. */
const SIGNER_KEY = /^PRIVATE\+KEY\+([^\s+]+)\+([0-9a-f]{8})\+(\S+)$/u;
const VERIFIER_KEY = /^[^\s+]+\+[0-9a-f]{8}\+\S+$/u;

function keyHash(name: string, typedKey: Buffer): number {
  return createHash('sha256').update(`${name}\n`, 'utf8').update(typedKey).digest().readUInt32BE(0);
}

const hex8 = (n: number) => n.toString(16).padStart(8, '0');

/** A note signer from its private key string, or a new key named `name` when none is given. */
export function noteSigner(signerKey?: string, name = 'pcx-transparency-log'): NoteSigner {
  let seed: Buffer;
  if (signerKey === undefined) {
    seed = randomBytes(32);
  } else {
    const parts = SIGNER_KEY.exec(signerKey.trim());
    if (!parts) throw new Error('not a note signer key (PRIVATE+KEY+<name>+<hash>+<key>)');
    name = parts[1];
    const typed = Buffer.from(parts[3], 'base64');
    if (typed.length !== 33 || typed[0] !== ED25519) throw new Error('not an Ed25519 note signer key');
    seed = typed.subarray(1);
  }
  if (!NAME.test(name)) throw new Error(`a note key's name has no spaces and no '+': ${name}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicRaw = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x!, 'base64url');
  const typedPublic = Buffer.concat([Buffer.of(ED25519), publicRaw]);
  const hash = keyHash(name, typedPublic);
  const verifierKey = `${name}+${hex8(hash)}+${typedPublic.toString('base64')}`;
  if (signerKey !== undefined && SIGNER_KEY.exec(signerKey.trim())![2] !== hex8(hash)) throw new Error("the note signer key's hash does not match its key");
  return {
    name,
    keyHash: hash,
    signerKey: `PRIVATE+KEY+${name}+${hex8(hash)}+${Buffer.concat([Buffer.of(ED25519), seed]).toString('base64')}`,
    verifierKey,
    sign: (message) => sign(null, message, privateKey),
  };
}

/** C2SP signed-note: the text, a blank line, and the signature line `— <name> <base64(key hash, signature)>`. */
export function signNote(text: string, signer: NoteSigner): string {
  if (!text.endsWith('\n') || text.includes('\n\n')) throw new Error('a note is non-empty lines, each ending in a newline');
  const hash = Buffer.alloc(4);
  hash.writeUInt32BE(signer.keyHash);
  const signature = Buffer.concat([hash, signer.sign(Buffer.from(text, 'utf8'))]).toString('base64');
  return `${text}\n\u2014 ${signer.name} ${signature}\n`;
}

/**
 * Whether `line` (`— <name> <base64>`) is a valid signature of `text` by one of `verifierKeys`
 * (`<name>+<hash>+<base64 of 0x01 and the Ed25519 key>`): the name of the key that made it, or
 * undefined. A witness's cosignature of a checkpoint is such a line.
 */
export function signatureBy(text: string, line: string, verifierKeys: readonly string[]): string | undefined {
  const m = /^\u2014 ([^\s+]+) ([A-Za-z0-9+/]+=*)$/u.exec(line);
  if (!m) return undefined;
  const raw = Buffer.from(m[2], 'base64');
  if (raw.length !== 68) return undefined;
  for (const key of verifierKeys) {
    const k = /^([^\s+]+)\+([0-9a-f]{8})\+(\S+)$/u.exec(key);
    if (!k || k[1] !== m[1] || parseInt(k[2], 16) !== raw.readUInt32BE(0)) continue;
    const typed = Buffer.from(k[3], 'base64');
    if (typed.length !== 33 || typed[0] !== ED25519 || keyHash(k[1], typed) !== raw.readUInt32BE(0)) continue;
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: typed.subarray(1).toString('base64url') }, format: 'jwk' });
    if (verify(null, Buffer.from(text, 'utf8'), publicKey, raw.subarray(4))) return k[1];
  }
  return undefined;
}

/** The text a signed note's signatures cover: everything before the blank line, its newline included. */
export function noteText(note: string): string {
  return note.slice(0, note.indexOf('\n\n') + 1);
}

/** C2SP tlog-checkpoint: the log's origin, its size in decimal, its root in base64. */
export function checkpointText(origin: string, size: number, root: Uint8Array): string {
  return `${origin}\n${size}\n${Buffer.from(root).toString('base64')}\n`;
}

/** The log's keys: the one that signs, and the verifier keys of those retired but still published. */
export interface TransparencyLogKeys {
  signer: NoteSigner;
  retired: string[];
  /** The file the keys came from (never key material). */
  source: string;
}

/**
 * The operator's key file (`keyFile`), or a key generated once into the data folder. Processes
 * sharing a data folder may start at once: the key is written whole to a file of its own and
 * linked into place, which only one of them can do; the others read the key that won.
 */
export function loadTransparencyLogKeys(dataDir: string, keyFile: string | undefined, name: string): TransparencyLogKeys {
  if (keyFile) return keysOf(readFileSync(keyFile, 'utf8'), keyFile);
  const file = join(dataDir, 'transparency-log-key.txt');
  if (existsSync(file)) return keysOf(readFileSync(file, 'utf8'), file);
  mkdirSync(dataDir, { recursive: true });
  const mine = `${file}.${process.pid}.${randomUUID()}`;
  writeFileSync(mine, `${noteSigner(undefined, name).signerKey}\n`, { mode: 0o600 });
  try {
    linkSync(mine, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(mine, { force: true });
  }
  return keysOf(readFileSync(file, 'utf8'), file);
}

function keysOf(text: string, source: string): TransparencyLogKeys {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (lines.length === 0) throw new Error(`${source} holds no note signer key`);
  const signer = noteSigner(lines[0]);
  for (const retired of lines.slice(1)) if (!VERIFIER_KEY.test(retired)) throw new Error(`${source}: after the signer key, one verifier key per line (<name>+<hash>+<key>)`);
  return { signer, retired: lines.slice(1), source };
}
