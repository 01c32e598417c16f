// Verifying the broker's transparency log without trusting the broker (docs/transparency-log.md):
// RFC 9162's inclusion (2.1.3.2) and consistency (2.1.4.2) verification, the log's checkpoints
// (C2SP tlog-checkpoint, a signed note: C2SP signed-note, Ed25519 as Go's golang.org/x/mod/sumdb/note
// signs them) and the leaf of a record (what the broker committed to: the record's canonical
// digest, its key and a salt only its participants are given). The broker's half, which builds the
// proofs, is written apart (domain/transparency-log.ts); both meet in the RFC's test vectors.
import { createHash, createPrivateKey, createPublicKey, sign as signBytes, verify as verifySignature } from 'node:crypto';
import canonicalize from 'canonicalize';

/** A proof, a checkpoint or a record that does not verify: the log or what it was shown is not what it claims. */
export class TransparencyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransparencyError';
  }
}

function fail(message: string): never {
  throw new TransparencyError(message);
}

export const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest());

const join = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const hashChildren = (left: Uint8Array, right: Uint8Array) => sha256(join(Uint8Array.of(1), left, right));
const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const half = (n: number) => Math.floor(n / 2);
const odd = (n: number) => n % 2 === 1;

export const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
export const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

/** RFC 9162 2.1.1: HASH(0x00 || leaf). */
export function hashLeaf(leaf: Uint8Array): Uint8Array {
  return sha256(join(Uint8Array.of(0), leaf));
}

/** RFC 9162 2.1.3.2: the root an inclusion proof of leaf `index` in a tree of `size` leaves leads to. */
export function rootFromInclusionProof(index: number, size: number, leafHash: Uint8Array, proof: Uint8Array[]): Uint8Array {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) fail(`leaf ${index} is not in a tree of ${size}`);
  if (leafHash.length !== 32 || proof.some((p) => p.length !== 32)) fail('a hash of the proof is not 32 bytes');
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) fail('the inclusion proof is longer than the tree is deep');
    if (odd(fn) || fn === sn) {
      r = hashChildren(p, r);
      if (!odd(fn)) while (!odd(fn) && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else {
      r = hashChildren(r, p);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  if (sn !== 0) fail('the inclusion proof is shorter than the tree is deep');
  return r;
}

/** RFC 9162 2.1.3.2: throws unless `proof` shows leaf `index` with `leafHash` in the tree of `size` with `root`. */
export function verifyInclusion(index: number, size: number, leafHash: Uint8Array, proof: Uint8Array[], root: Uint8Array): void {
  if (!equal(rootFromInclusionProof(index, size, leafHash, proof), root)) fail(`leaf ${index} is not in the tree of ${size} leaves the checkpoint signs`);
}

/**
 * RFC 9162 2.1.4.2: throws unless the tree of `second` leaves with `secondRoot` extends the tree of
 * `first` leaves with `firstRoot` (a log only ever appends). The empty tree is extended by every tree.
 */
export function verifyConsistency(first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: Uint8Array[]): void {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second) fail(`a tree of ${second} leaves cannot extend one of ${first}`);
  if (proof.some((p) => p.length !== 32)) fail('a hash of the proof is not 32 bytes');
  if (first === 0) return proof.length === 0 ? undefined : fail('the consistency proof from the empty tree is not empty');
  if (first === second) {
    if (proof.length) fail('the consistency proof between equal sizes is not empty');
    if (!equal(firstRoot, secondRoot)) fail(`two different trees of ${first} leaves: the log forked`);
    return;
  }
  if (proof.length === 0) fail('the consistency proof is empty');
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) [fn, sn] = [half(fn), half(sn)];
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) fail('the consistency proof is longer than the tree is deep');
    if (odd(fn) || fn === sn) {
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      if (!odd(fn)) while (!odd(fn) && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else {
      sr = hashChildren(sr, c);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  if (sn !== 0) fail('the consistency proof is shorter than the tree is deep');
  if (!equal(fr, firstRoot)) fail(`the tree of ${first} leaves is not the one the log had: the log was rewritten`);
  if (!equal(sr, secondRoot)) fail(`the tree of ${second} leaves does not extend the tree of ${first}: the log forked`);
}

// --- Signed notes (C2SP signed-note) and checkpoints (C2SP tlog-checkpoint) ---

/** A note verifier key, `<name>+<key hash, 8 hex>+<base64 of 0x01 and the Ed25519 public key>`, as Go's note package writes it. */
export interface NoteVerifier {
  name: string;
  keyHash: number;
  verify(message: Uint8Array, signature: Uint8Array): boolean;
}

/** The key hash of a note key: the first four bytes of SHA-256(name, "\n", 0x01, public key), big-endian. */
export function noteKeyHash(name: string, typedKey: Uint8Array): number {
  return Buffer.from(sha256(join(Buffer.from(`${name}\n`, 'utf8'), typedKey))).readUInt32BE(0);
}

export function noteVerifier(verifierKey: string): NoteVerifier {
  const parts = /^([^\s+]+)\+([0-9a-f]{8})\+(\S+)$/u.exec(verifierKey);
  if (!parts) fail(`not a note verifier key: ${verifierKey}`);
  const [, name, hashHex, keyBase64] = parts!;
  const typed = fromBase64(keyBase64);
  if (Buffer.from(typed).toString('base64') !== keyBase64 || typed.length !== 33 || typed[0] !== 1) fail(`not an Ed25519 note verifier key: ${verifierKey}`);
  const keyHash = parseInt(hashHex, 16);
  if (noteKeyHash(name, typed) !== keyHash) fail(`the key hash of ${name} does not match its key`);
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(typed.subarray(1)).toString('base64url') }, format: 'jwk' });
  return { name, keyHash, verify: (message, signature) => signature.length === 64 && verifySignature(null, message, publicKey, signature) };
}

export interface NoteSignature {
  name: string;
  keyHash: number;
  /** The signature line's base64, key hash included. */
  base64: string;
}

export interface OpenedNote {
  text: string;
  /** Signatures by keys among the verifiers, each verified. */
  verified: NoteSignature[];
  /** Signatures by other keys (witnesses the reader does not know), not verified. */
  unverified: NoteSignature[];
}

/**
 * Opens a signed note: its text, then a blank line, then signature lines `— <name> <base64>`. Throws
 * on a malformed note, on a signature by a known key that does not verify, and when no signature
 * is by a known key.
 */
export function openNote(note: string, verifiers: NoteVerifier[]): OpenedNote {
  const at = note.lastIndexOf('\n\n');
  if (at < 0 || !note.endsWith('\n')) fail('malformed note');
  const text = note.slice(0, at + 1);
  const lines = note.slice(at + 2, -1).split('\n');
  if (lines.length === 0 || lines.length > 100) fail('malformed note');
  const verified: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  for (const line of lines) {
    const m = /^\u2014 ([^\s+]+) ([A-Za-z0-9+/]+=*)$/u.exec(line);
    if (!m) fail('malformed note');
    const raw = fromBase64(m[2]);
    if (raw.length < 5) fail('malformed note');
    const keyHash = Buffer.from(raw).readUInt32BE(0);
    const signature = { name: m[1], keyHash, base64: m[2] };
    const verifier = verifiers.find((v) => v.name === m[1] && v.keyHash === keyHash);
    if (!verifier) {
      unverified.push(signature);
      continue;
    }
    if (!verifier.verify(Buffer.from(text, 'utf8'), raw.subarray(4))) fail(`invalid signature for key ${m[1]}+${keyHash.toString(16).padStart(8, '0')}`);
    if (!verified.some((s) => s.base64 === signature.base64)) verified.push(signature);
  }
  if (verified.length === 0) fail('note has no verifiable signatures');
  return { text, verified, unverified };
}

/** The PKCS #8 prefix of a raw Ed25519 seed (RFC 8410). */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A witness's cosignature of a note's text: the signature line `— <name> <base64>` by the note
 * signer key `PRIVATE+KEY+<name>+<hash>+<key>` (Go's form; `pcx witness --generate-key` writes one).
 */
export function cosign(text: string, signerKey: string): string {
  const m = /^PRIVATE\+KEY\+([^\s+]+)\+([0-9a-f]{8})\+(\S+)$/u.exec(signerKey.trim());
  if (!m) fail('not a note signer key (PRIVATE+KEY+<name>+<hash>+<key>)');
  const typed = Buffer.from(m![3], 'base64');
  if (typed.length !== 33 || typed[0] !== 1) fail('not an Ed25519 note signer key');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, typed.subarray(1)]), format: 'der', type: 'pkcs8' });
  const publicRaw = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x!, 'base64url');
  const keyHash = noteKeyHash(m![1], Buffer.concat([Buffer.of(1), publicRaw]));
  if (keyHash.toString(16).padStart(8, '0') !== m![2]) fail("the note signer key's hash does not match its key");
  const hash = Buffer.alloc(4);
  hash.writeUInt32BE(keyHash);
  return `\u2014 ${m![1]} ${Buffer.concat([hash, signBytes(null, Buffer.from(text, 'utf8'), privateKey)]).toString('base64')}`;
}

/** A new note signer key and its verifier key, for a witness. */
export function generateNoteKey(name: string): { signerKey: string; verifierKey: string } {
  if (!/^[^\s+]+$/u.test(name)) fail("a note key's name has no spaces and no '+'");
  const seed = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const typedPublic = Buffer.concat([Buffer.of(1), Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x!, 'base64url')]);
  const hash = noteKeyHash(name, typedPublic).toString(16).padStart(8, '0');
  return { signerKey: `PRIVATE+KEY+${name}+${hash}+${Buffer.concat([Buffer.of(1), seed]).toString('base64')}`, verifierKey: `${name}+${hash}+${typedPublic.toString('base64')}` };
}

/** A tree head of the log: which log (its origin), how many leaves, their root. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** Extension lines after the root (none are written today). */
  extensions: string[];
}

/** Reads a checkpoint's body (C2SP tlog-checkpoint): origin, decimal size, base64 root, then any extension lines. */
export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split('\n');
  if (lines.length < 4 || lines[lines.length - 1] !== '') fail('malformed checkpoint');
  const [origin, size, root] = lines;
  if (!origin || !/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size))) fail('malformed checkpoint');
  const rootBytes = fromBase64(root);
  if (rootBytes.length !== 32 || Buffer.from(rootBytes).toString('base64') !== root) fail('malformed checkpoint');
  return { origin, size: Number(size), root: rootBytes, extensions: lines.slice(3, -1) };
}

/** A signed checkpoint opened and checked against the log's keys: its origin must be the expected one. */
export function verifyCheckpoint(note: string, verifiers: NoteVerifier[], origin?: string): Checkpoint & { note: OpenedNote } {
  const opened = openNote(note, verifiers);
  const checkpoint = parseCheckpoint(opened.text);
  if (origin !== undefined && checkpoint.origin !== origin) fail(`the checkpoint is of log ${checkpoint.origin}, not ${origin}`);
  return { ...checkpoint, note: opened };
}

// --- Records and their leaves ---

/**
 * The members of a record that change after it was logged, by where it is read (the key's collection,
 * and the list it is in): an outcome's supersession (by whom, its version, its update time), which
 * its correction's own record (`supersedes`) carries, and a tender revision's outcome, which the
 * decisions record. The log holds a record as it was made (docs/transparency-log.md).
 */
const CHANGED_AFTER_LOGGING: Readonly<Record<string, readonly string[]>> = {
  'execution-outcomes': ['supersededByOutcomeId', 'resourceVersion', 'updatedAt'],
  'transport-tenders#/revisions': ['outcome'],
};

/** The value a record key names in what was read (`path#/pointer`), as the log holds it. */
export function loggedValue(key: string, document: unknown): unknown {
  const [path, pointer = ''] = key.split('#');
  const tokens = pointer.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let value: any = document;
  for (const token of tokens) {
    if (value === null || typeof value !== 'object' || !(token in value)) fail(`${key}: what was read has nothing at ${pointer}`);
    value = value[token];
  }
  const collection = path.split('/')[0];
  const changed = CHANGED_AFTER_LOGGING[tokens.length > 1 ? `${collection}#/${tokens.slice(0, -1).join('/')}` : collection];
  if (!changed || value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([member]) => !changed.includes(member)));
}

/** SHA-256 of a record's RFC 8785 canonical JSON, hex: what the log commits to. */
export function recordDigest(record: unknown): string {
  const text = canonicalize(record);
  if (text === undefined) fail('the record cannot be canonicalized');
  return createHash('sha256').update(text!, 'utf8').digest('hex');
}

/**
 * The leaf the log holds for a record: the canonical JSON of its key (which record: a decision of a
 * proposal, an outcome, ...), its digest and its salt. Without the salt, known only to the record's
 * participants, a leaf hash says nothing of the record, not even a guessed one.
 */
export function leafOf(key: string, digest: string, salt: string): Uint8Array {
  return Buffer.from(canonicalize({ digest, key, salt })!, 'utf8');
}
