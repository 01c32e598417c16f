// The transparency log's tree (RFC 9162, section 2.1): the Merkle Tree Hash of a list of leaves,
// the inclusion proof of one leaf in a tree of n leaves (2.1.3.1) and the consistency proof between
// a tree of m leaves and the same log grown to n (2.1.4.1), computed as the RFC's recursion states
// them. The verifying half is the SDK's (sdk/src/transparency.ts): two implementations of the two
// halves of the RFC that meet in its test vectors (test/unit/transparency-log.test.ts).
//
// The log keeps the hash of every perfect subtree it has completed (a node: its level, and its
// index among the nodes of that level), so that a root or a proof reads O(log n) stored nodes and
// never the leaves. The recursion below only ever splits a range at a power of two from its
// start, so every perfect range it meets is such a node. Which nodes a computation reads does not
// depend on their hashes: `nodesFor` lists them first (one query), then the computation runs on
// what was read. Pure: the hash function is the caller's (SHA-256, core/ or the SDK).

/**
 * One append-only record of a resource that the log holds (a decision, a tender revision, a
 * commitment's digest, an acknowledgement, an outcome): `key` says where a participant reads it,
 * the API path of the document it is in and a JSON pointer into that document
 * (`match-proposals/<id>#/decisions/0`; a document of its own has no pointer), and `record` is the
 * value found there, as the API shows it to the record's participants.
 */
export interface LedgerRecord {
  key: string;
  record: unknown;
}

/** The records of an append-only list of a document, each under its position (a list that only grows keeps them). */
export function listRecords(path: string, member: string, list: readonly unknown[]): LedgerRecord[] {
  return list.map((record, i) => ({ key: `${path}#/${member}/${i}`, record }));
}

/** The hash of bytes: SHA-256 for this log. */
export type Hash = (bytes: Uint8Array) => Uint8Array;

/** A perfect subtree: the leaves [index·2^level, (index+1)·2^level). */
export interface NodeId {
  level: number;
  index: number;
}

/** The stored hashes of perfect subtrees, by `nodeKey`. */
export type NodeHashes = ReadonlyMap<string, Uint8Array>;

export const nodeKey = (node: NodeId) => `${node.level}/${node.index}`;

/** RFC 9162 2.1.1: the hash of a leaf is HASH(0x00 || leaf). */
export function leafHash(hash: Hash, leaf: Uint8Array): Uint8Array {
  return hash(concat(Uint8Array.of(0), leaf));
}

/** RFC 9162 2.1.1: the hash of an interior node is HASH(0x01 || left || right). */
export function nodeHash(hash: Hash, left: Uint8Array, right: Uint8Array): Uint8Array {
  return hash(concat(Uint8Array.of(1), left, right));
}

/** The largest power of two smaller than n (n > 1): where RFC 9162 splits a list. */
export function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The nodes the log completes when leaf `index` is appended (its own, then each parent whose
 * right child it completes), with their hashes: what an append stores.
 */
export function nodesCompletedBy(hash: Hash, index: number, leaf: Uint8Array, stored: NodeHashes): Array<NodeId & { hash: Uint8Array }> {
  const out: Array<NodeId & { hash: Uint8Array }> = [];
  let node = { level: 0, index, hash: leafHash(hash, leaf) };
  out.push(node);
  while (node.index % 2 === 1) {
    const left = stored.get(nodeKey({ level: node.level, index: node.index - 1 }));
    if (!left) throw new Error(`the log lacks node ${node.level}/${node.index - 1}`);
    node = { level: node.level + 1, index: (node.index - 1) / 2, hash: nodeHash(hash, left, node.hash) };
    out.push(node);
  }
  return out;
}

/** The nodes `nodeCompletedBy` reads to append leaf `index`: the left siblings on its way up. */
export function nodesForAppend(index: number): NodeId[] {
  const out: NodeId[] = [];
  for (let level = 0, i = index; i % 2 === 1; level++, i = (i - 1) / 2) out.push({ level, index: i - 1 });
  return out;
}

/** How a computation reads nodes: the stored hashes, or a recorder listing what it would read. */
type Reader = (start: number, end: number) => Uint8Array;

function isPowerOfTwo(n: number) {
  return n > 0 && (n & (n - 1)) === 0;
}

/** A reader over stored nodes: MTH(D[start:end]) by RFC 9162's recursion, perfect ranges read. */
function reader(hash: Hash, stored: NodeHashes): Reader {
  const mth: Reader = (start, end) => {
    const size = end - start;
    if (isPowerOfTwo(size) && start % size === 0) {
      const found = stored.get(nodeKey({ level: Math.log2(size), index: start / size }));
      if (!found) throw new Error(`the log lacks node ${Math.log2(size)}/${start / size}`);
      return found;
    }
    const k = split(size);
    return nodeHash(hash, mth(start, start + k), mth(start + k, end));
  };
  return mth;
}

/** A reader that records the perfect ranges it is asked for and answers placeholders. */
function recorder(): { read: Reader; nodes: () => NodeId[] } {
  const seen = new Map<string, NodeId>();
  const placeholder = new Uint8Array(32);
  const read: Reader = (start, end) => {
    const size = end - start;
    if (isPowerOfTwo(size) && start % size === 0) {
      const node = { level: Math.log2(size), index: start / size };
      seen.set(nodeKey(node), node);
      return placeholder;
    }
    const k = split(size);
    read(start, start + k);
    read(start + k, end);
    return placeholder;
  };
  return { read, nodes: () => [...seen.values()] };
}

/** RFC 9162 2.1.3.1 PATH(m, D[start:end]), m relative to start. */
function path(read: Reader, m: number, start: number, end: number): Uint8Array[] {
  const n = end - start;
  if (n === 1) return [];
  const k = split(n);
  if (m < k) return [...path(read, m, start, start + k), read(start + k, end)];
  return [...path(read, m - k, start + k, end), read(start, start + k)];
}

/** RFC 9162 2.1.4.1 SUBPROOF(m, D[start:end], b), m relative to start. */
function subproof(read: Reader, m: number, start: number, end: number, complete: boolean): Uint8Array[] {
  const n = end - start;
  if (m === n) return complete ? [] : [read(start, end)];
  const k = split(n);
  if (m <= k) return [...subproof(read, m, start, start + k, complete), read(start + k, end)];
  return [...subproof(read, m - k, start + k, end, false), read(start, start + k)];
}

/** What a computation asks of the log, answered by `compute` once its nodes are read. */
export type Question =
  | { root: number }
  | { inclusion: { index: number; size: number } }
  | { consistency: { from: number; to: number } };

function check(question: Question) {
  const bad = (why: string) => {
    throw new RangeError(why);
  };
  if ('root' in question && (!Number.isSafeInteger(question.root) || question.root < 1)) bad('a root needs a tree of at least one leaf');
  if ('inclusion' in question) {
    const { index, size } = question.inclusion;
    if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) bad('a leaf index lies in [0, size)');
  }
  if ('consistency' in question) {
    const { from, to } = question.consistency;
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || from > to) bad('a consistency proof goes from a size of at least one to a size not smaller');
  }
}

function run(read: Reader, question: Question): Uint8Array[] {
  if ('root' in question) return [read(0, question.root)];
  if ('inclusion' in question) return path(read, question.inclusion.index, 0, question.inclusion.size);
  const { from, to } = question.consistency;
  return from === to ? [] : subproof(read, from, 0, to, true);
}

/** The stored nodes a question reads: fetch these, then `compute`. */
export function nodesFor(question: Question): NodeId[] {
  check(question);
  const r = recorder();
  run(r.read, question);
  return r.nodes();
}

/** The answer to a question from the nodes `nodesFor` named: [root], or a proof's hashes in RFC order. */
export function compute(hash: Hash, question: Question, stored: NodeHashes): Uint8Array[] {
  check(question);
  return run(reader(hash, stored), question);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
