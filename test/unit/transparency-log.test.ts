// The transparency log's two halves against what others wrote: the broker's prover
// (domain/transparency-log.ts) and the SDK's verifier (sdk/src/transparency.ts) on the RFC 6962 /
// RFC 9162 vectors of transparency-dev/merkle and the signed notes of Go's sumdb/note; then on
// random logs, each proof the prover builds verifies and every corruption of it fails.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { compute, leafHash, nodesCompletedBy, nodeKey, nodesFor, nodesForAppend, type Question } from '../../domain/transparency-log';
import {
  hashLeaf,
  noteVerifier,
  openNote,
  parseCheckpoint,
  rootFromInclusionProof,
  TransparencyError,
  verifyConsistency,
  verifyInclusion,
} from '../../sdk/src/transparency';
import { checkpointText, noteSigner, signNote } from '../../core/transparency-log-key';

const vectors = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'transparency', 'transparency-dev-merkle.json'), 'utf8'));
const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const sha256 = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());

/** A log in memory as the broker keeps it: every completed node by key. */
function logOf(leaves: Uint8Array[]) {
  const stored = new Map<string, Uint8Array>();
  leaves.forEach((leaf, index) => {
    for (const id of nodesForAppend(index)) expect(stored.has(nodeKey(id))).toBe(true);
    for (const node of nodesCompletedBy(sha256, index, leaf, stored)) stored.set(nodeKey(node), node.hash);
  });
  const ask = (question: Question) => {
    const wanted = new Map(nodesFor(question).map((id) => [nodeKey(id), stored.get(nodeKey(id))!]));
    // Only the nodes nodesFor named: a computation that reads another fails here.
    return compute(sha256, question, wanted);
  };
  return { stored, ask, root: (size: number) => ask({ root: size })[0] };
}

const leafInputs: Uint8Array[] = vectors.leafInputs.map(hex);

describe('the prover on the transparency-dev vectors', () => {
  const log = logOf(leafInputs);

  test('leaf and node hashes', () => {
    vectors.nodeHashes.forEach((level: string[], l: number) => level.forEach((h, i) => expect(toHex(log.stored.get(`${l}/${i}`)!)).toBe(h)));
    expect(toHex(leafHash(sha256, leafInputs[0]))).toBe(vectors.nodeHashes[0][0]);
  });

  test('the root of every size', () => {
    vectors.rootsBySize.forEach((h: string, i: number) => expect(toHex(log.root(i + 1))).toBe(h));
  });

  test('inclusion proofs', () => {
    for (const v of vectors.inclusionProofs) expect(log.ask({ inclusion: { index: v.leaf - 1, size: v.size } }).map(toHex)).toEqual(v.proof);
  });

  test('consistency proofs', () => {
    for (const v of vectors.consistencyProofs) expect(log.ask({ consistency: { from: v.size1, to: v.size2 } }).map(toHex)).toEqual(v.proof);
  });

  test('questions outside the tree are refused', () => {
    expect(() => nodesFor({ inclusion: { index: 3, size: 3 } })).toThrow(RangeError);
    expect(() => nodesFor({ consistency: { from: 5, to: 4 } })).toThrow(RangeError);
    expect(() => nodesFor({ root: 0 })).toThrow(RangeError);
  });
});

describe('the verifier on the transparency-dev vectors', () => {
  const roots = vectors.rootsBySize.map(hex);

  test('inclusion proofs verify; each corruption of them fails', () => {
    for (const v of vectors.inclusionProofs) {
      const index = v.leaf - 1;
      const proof: Uint8Array[] = v.proof.map(hex);
      const leaf = hashLeaf(leafInputs[index]);
      const root = roots[v.size - 1];
      expect(toHex(rootFromInclusionProof(index, v.size, leaf, proof))).toBe(toHex(root));
      verifyInclusion(index, v.size, leaf, proof, root);
      const flipped = proof.map((p, i) => proof.map((q, j) => (i === j ? Uint8Array.from(q, (b, k) => (k === 0 ? b ^ 8 : b)) : q)));
      const wrong: Array<[number, number, Uint8Array, Uint8Array[], Uint8Array]> = [
        [index + 1, v.size, leaf, proof, root],
        [index, v.size * 2, leaf, proof, root],
        [index, v.size, hashLeaf(new TextEncoder().encode('WrongLeaf')), proof, root],
        [index, v.size, leaf, proof, hex(vectors.emptyRoot)],
        [index, v.size, leaf, [...proof, root], root],
        [index, v.size, leaf, [root, ...proof], root],
        ...flipped.map((p): [number, number, Uint8Array, Uint8Array[], Uint8Array] => [index, v.size, leaf, p, root]),
        ...(proof.length ? [[index, v.size, leaf, proof.slice(0, -1), root] as [number, number, Uint8Array, Uint8Array[], Uint8Array]] : []),
      ];
      if (index > 0) wrong.push([index - 1, v.size, leaf, proof, root]);
      if (v.size > 1) wrong.push([index, Math.floor(v.size / 2), leaf, proof, root]);
      for (const args of wrong) expect(() => verifyInclusion(...args)).toThrow(TransparencyError);
    }
  });

  test('consistency proofs verify; each corruption of them fails', () => {
    for (const v of vectors.consistencyProofs) {
      const proof: Uint8Array[] = v.proof.map(hex);
      const [r1, r2] = [roots[v.size1 - 1], roots[v.size2 - 1]];
      verifyConsistency(v.size1, v.size2, r1, r2, proof);
      if (proof.length === 0) continue;
      const wrong: Array<[number, number, Uint8Array, Uint8Array, Uint8Array[]]> = [
        [v.size1 - 1, v.size2, r1, r2, proof],
        [v.size1 + 1, v.size2, r1, r2, proof],
        [v.size1, v.size2 * 2, r1, r2, proof],
        [v.size1, v.size2, r2, r1, proof],
        [v.size1, v.size2, r1, r2, []],
        [v.size1, v.size2, r1, r2, [...proof, r2]],
        [v.size1, v.size2, r1, r2, [proof[0], ...proof]],
        [v.size1, v.size2, r1, r2, proof.slice(0, -1)],
        ...proof.map((_, i): [number, number, Uint8Array, Uint8Array, Uint8Array[]] => [v.size1, v.size2, r1, r2, proof.map((q, j) => (i === j ? Uint8Array.from(q, (b, k) => (k === 0 ? b ^ 16 : b)) : q))]),
      ];
      for (const args of wrong) expect(() => verifyConsistency(...args)).toThrow(TransparencyError);
    }
  });

  test('the empty tree and equal sizes', () => {
    verifyConsistency(0, 5, hex(vectors.emptyRoot), roots[4], []);
    verifyConsistency(3, 3, roots[2], roots[2], []);
    expect(() => verifyConsistency(3, 3, roots[2], roots[3], [])).toThrow(/forked/);
    expect(() => verifyConsistency(4, 3, roots[3], roots[2], [])).toThrow(TransparencyError);
  });
});

describe('signed notes: Go sumdb/note vectors', () => {
  const { note } = vectors;

  test("our signer writes Go's signature byte for byte", () => {
    const signer = noteSigner(note.signerKey);
    expect(signer.verifierKey).toBe(note.verifierKey);
    expect(signNote(note.text, signer)).toBe(note.signed);
  });

  test('the verifier opens it, keeps an unknown witness unverified, refuses a tampered one', () => {
    const peter = noteVerifier(note.verifierKey);
    const enoch = noteVerifier(note.otherVerifierKey);
    const both = note.signed + note.otherSignatureLine;
    expect(openNote(both, [peter]).verified.map((s) => s.name)).toEqual(['PeterNeumann']);
    expect(openNote(both, [peter]).unverified.map((s) => s.name)).toEqual(['EnochRoot']);
    expect(openNote(both, [peter, enoch]).verified.map((s) => s.name)).toEqual(['PeterNeumann', 'EnochRoot']);
    expect(() => openNote(both, [])).toThrow(/no verifiable signatures/);
    expect(() => openNote(note.signed.replace('problem,', 'problem;'), [peter])).toThrow(/invalid signature/);
    expect(() => openNote(note.text, [peter])).toThrow(/malformed/);
    expect(() => noteVerifier(note.verifierKey.replace('c74f20a3', 'c74f20a4'))).toThrow(TransparencyError);
  });

  test('a checkpoint: signed by the broker, read by the SDK', () => {
    const signer = noteSigner(note.signerKey);
    const text = checkpointText('example.com/log', 8, hex(vectors.rootsBySize[7]));
    expect(text).toBe(`example.com/log\n8\n${Buffer.from(hex(vectors.rootsBySize[7])).toString('base64')}\n`);
    const opened = openNote(signNote(text, signer), [noteVerifier(signer.verifierKey)]);
    expect(parseCheckpoint(opened.text)).toMatchObject({ origin: 'example.com/log', size: 8, extensions: [] });
    expect(() => parseCheckpoint('example.com/log\n08\nAAAA\n')).toThrow(/malformed/);
  });
});

describe('random logs: the prover and the verifier agree', () => {
  // An independent MTH straight from RFC 9162's definition, over all leaves.
  const mth = (leaves: Uint8Array[]): Uint8Array => {
    if (leaves.length === 1) return hashLeaf(leaves[0]);
    let k = 1;
    while (k * 2 < leaves.length) k *= 2;
    return sha256(Buffer.concat([Uint8Array.of(1), mth(leaves.slice(0, k)), mth(leaves.slice(k))]));
  };

  test('every root, inclusion and consistency proof', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 8 }), { minLength: 1, maxLength: 70 }), fc.nat(), fc.nat(), (leaves, a, b) => {
        const log = logOf(leaves);
        const n = leaves.length;
        const size = 1 + (a % n);
        const index = b % size;
        const root = log.root(size);
        expect(toHex(root)).toBe(toHex(mth(leaves.slice(0, size))));
        verifyInclusion(index, size, hashLeaf(leaves[index]), log.ask({ inclusion: { index, size } }), root);
        const from = 1 + (b % size);
        verifyConsistency(from, size, log.root(from), root, log.ask({ consistency: { from, to: size } }));
        if (from < size) {
          // A log rewritten below `from` is caught: the old head does not extend into the new tree.
          const rewritten = logOf(leaves.map((l, i) => (i === from - 1 ? Uint8Array.of(...l, 1) : l)));
          expect(() => verifyConsistency(from, size, log.root(from), rewritten.root(size), rewritten.ask({ consistency: { from, to: size } }))).toThrow(TransparencyError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('a generated note key', () => {
  test('signs what the verifier opens, and reads back from its own text', () => {
    const signer = noteSigner();
    const signed = signNote('example.com/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n', signer);
    expect(openNote(signed, [noteVerifier(signer.verifierKey)]).verified).toHaveLength(1);
    expect(noteSigner(signer.signerKey).verifierKey).toBe(signer.verifierKey);
    expect(() => noteSigner(signer.signerKey.replace(/\+[0-9a-f]{8}\+/, '+00000000+'))).toThrow(/hash/);
  });
});
