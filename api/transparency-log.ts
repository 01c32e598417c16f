// The transparency log over HTTP (docs/transparency-log.md): its signed checkpoint and keys at a
// well-known path, for anyone; a record's inclusion proof for the record's organizations only (any
// other caller gets 404, as for a record it cannot see), a consistency proof between two sizes and
// an organization's own leaves for any organization. A proof holds hashes only: a leaf hash commits
// to a record under a salt that only its organizations are given.
import { Hono } from 'hono';
import type { AppEnv } from './context';
import { badCursor, decodeCursor, encodeCursor, pageLimit, querySingle, type Ctx } from './http';
import { operation, publicOperation } from './operations';
import { Problem } from '../domain/problems';
import type { LoggedLeaf, SignedCheckpoint } from '../read-model/transparency-log';
import { noteText, signatureBy } from '../core/transparency-log-key';

export const transparencyLog = new Hono<AppEnv>();
export const transparencyLogWellKnown = new Hono<AppEnv>();

const WELL_KNOWN = '/.well-known/transparency-log';

const logOf = (c: Ctx) => c.get('services').transparencyLog;

/** A checkpoint as JSON: its origin is its note's first line (a checkpoint from before a restore keeps the old one). */
function checkpointBody(checkpoint: SignedCheckpoint) {
  return { origin: checkpoint.note.slice(0, checkpoint.note.indexOf('\n')), ...checkpoint };
}

function leafBody({ organizations: _o, ...leaf }: LoggedLeaf) {
  return leaf;
}

/** A tree size named in the query: a whole number no greater than the log's size. */
function sizeParam(c: Ctx, name: string, size: number): number | undefined {
  const text = querySingle(c, name);
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text)) throw new Problem('VALIDATION_FAILED', `${name} must be a whole number`, { errors: [{ pointer: `/query/${name}`, message: 'must be a whole number' }] });
  const value = Number(text);
  if (value > size) throw new Problem('VALIDATION_FAILED', `${name} is larger than the log (${size} leaves)`, { errors: [{ pointer: `/query/${name}`, message: `must be at most ${size}` }] });
  return value;
}

publicOperation(transparencyLogWellKnown, {
  method: 'GET', path: `${WELL_KNOWN}/checkpoint`, answers: [200],
  doc: {
    id: 'getTransparencyLogCheckpoint',
    tag: 'TransparencyLog',
    summary: "The transparency log's latest signed checkpoint, as a signed note",
    description:
      'The checkpoint of the log as it is now (signed now if the log grew since the last one), as a C2SP signed note: the ' +
      "origin, the number of leaves, the base64 root hash (RFC 9162), a blank line, the broker's Ed25519 signature line " +
      "and any witnesses' cosignatures. Verify it with the keys of `" + `${WELL_KNOWN}/keys` + '`; keep it, and ask for ' +
      'a consistency proof from it to the next one you see. No token needed.',
    responses: { '200': { description: 'The signed note.', content: { 'text/plain': { schema: { type: 'string' } } } } },
  },
}, async (c) => c.text((await logOf(c).current()).note, 200, { 'cache-control': 'no-store' }));

publicOperation(transparencyLogWellKnown, {
  method: 'GET', path: `${WELL_KNOWN}/keys`, answers: [200],
  doc: {
    id: 'getTransparencyLogKeys',
    tag: 'TransparencyLog',
    summary: 'The keys that sign the transparency log',
    description:
      "The log's origin and its note verifier keys (Go's golang.org/x/mod/sumdb/note form): the current signing key and " +
      'retired ones still published, so that a checkpoint they signed keeps verifying. Pin them out of band for the strongest ' +
      'check: a broker that changed its key could sign a rewritten log. No token needed.',
    responses: { '200': { description: 'The keys.', content: { 'application/json': { schema: { $ref: './transparency-log.json#/$defs/Keys' } } } } },
  },
}, async (c) => {
  const log = logOf(c);
  const { keys, witnesses } = log;
  return c.json({
    origin: await log.origin(),
    keys: [{ verifierKey: keys.signer.verifierKey, status: 'current' }, ...keys.retired.map((verifierKey) => ({ verifierKey, status: 'retired' }))],
    witnesses,
    epochs: await log.epochs(),
  });
});

operation(transparencyLog, {
  method: 'GET', path: '/checkpoint', access: { scope: [] }, answers: [200], returns: 'TransparencyLog',
  doc: {
    id: 'getTransparencyLogCheckpointRecord',
    summary: 'The latest signed checkpoint, as JSON',
    description:
      `What \`${WELL_KNOWN}/checkpoint\` serves, with its size and root beside the note for reading; with \`witnessed\`, the ` +
      'newest checkpoint cosigned by at least that many of the log\'s witnesses (a reader that trusts a checkpoint only once ' +
      'witnesses it knows have checked it). Any token of an active organization.',
    parameters: [{ name: 'witnessed', in: 'query', required: false, description: 'The least number of witnesses\' cosignatures the checkpoint carries.', schema: { type: 'string', pattern: '^[0-9]{1,3}$' } }],
    responses: { '200': 'The checkpoint.', '400': '`VALIDATION_FAILED`: `witnessed` not a small whole number.', '404': '`RESOURCE_NOT_FOUND`: no checkpoint has that many cosignatures yet.' },
  },
}, async ({ c }) => {
  const log = logOf(c);
  const witnessed = querySingle(c, 'witnessed');
  if (witnessed === undefined) return c.json(checkpointBody(await log.current()));
  if (!/^\d{1,3}$/.test(witnessed)) throw new Problem('VALIDATION_FAILED', 'witnessed is the least number of cosignatures, a whole number', { errors: [{ pointer: '/query/witnessed', message: 'must be a whole number below 1000' }] });
  const found = await log.latestWitnessed(Number(witnessed));
  if (!found) throw new Problem('RESOURCE_NOT_FOUND', `no checkpoint is cosigned by ${witnessed} witnesses yet`);
  return c.json(checkpointBody(found));
});

operation(transparencyLog, {
  method: 'POST', path: '/cosignatures', access: { scope: [] }, body: 'TransparencyLogCosignature', answers: [200], returns: 'TransparencyLog',
  doc: {
    id: 'cosignTransparencyLogCheckpoint',
    summary: "A witness's cosignature of a checkpoint",
    description:
      'A witness that verified a checkpoint (its signature, and that it extends every checkpoint the witness saw before) adds ' +
      'its signature line over the checkpoint\'s text, by a key the operator listed among the log\'s witnesses ' +
      '(`TRANSPARENCY_LOG_WITNESS_KEYS`, published at `' + `${WELL_KNOWN}/keys` + '`). The checkpoint is then served with it, so that ' +
      "a reader that asks for witnessed checkpoints sees only what its witnesses checked: a log that showed two partners two " +
      'different trees could not have both cosigned by a witness that checks consistency. `pcx witness` does it. Any token of ' +
      'an active organization; the same cosignature again changes nothing.',
    responses: { '200': 'The checkpoint with the cosignature.', '400': '`VALIDATION_FAILED`: not a signature line, not by a witness of the log, or not over that checkpoint.', '404': '`RESOURCE_NOT_FOUND`: no signed checkpoint of that size.' },
  },
}, async ({ c, body }) => {
  const log = logOf(c);
  const checkpoint = await log.checkpointAt(body.treeSize);
  if (!checkpoint) throw new Problem('RESOURCE_NOT_FOUND', `the log signed no checkpoint of ${body.treeSize} leaves`);
  if (!signatureBy(noteText(checkpoint.note), body.signature, log.witnesses)) {
    throw new Problem('VALIDATION_FAILED', 'the signature is not a witness of this log signing this checkpoint', { errors: [{ pointer: '/signature', message: 'must be by a key of TRANSPARENCY_LOG_WITNESS_KEYS, over the checkpoint of treeSize' }] });
  }
  return c.json(checkpointBody((await log.addCosignature(body.treeSize, body.signature))!));
});

operation(transparencyLog, {
  method: 'GET', path: '/inclusion-proofs', access: { scope: [] }, answers: [200], returns: 'TransparencyLogInclusionProof',
  doc: {
    id: 'getTransparencyLogInclusionProof',
    summary: "A record's leaf and the proof that the log holds it",
    description:
      'The leaf of the record `recordKey` names (the API path of the document it is in, and a JSON pointer into it: ' +
      '`match-proposals/{id}#/decisions/0`, `transport-tenders/{id}#/revisions/1`, `transport-commitments/{id}#/digest`, ' +
      '`execution-handovers/{id}#/acknowledgements/0`, `execution-outcomes/{id}`), with its salt, and the audit path ' +
      '(RFC 9162 2.1.3) from it to the root of the tree of `treeSize` leaves (by default the latest checkpoint\'s). To verify: ' +
      'take the value at the key in what you read, SHA-256 its RFC 8785 canonical JSON (`leaf.recordDigest`), hash the leaf ' +
      '(0x00 and the canonical JSON of `{digest, key, salt}`), run the audit path to the root, and check the checkpoint\'s ' +
      'signature (the SDK\'s `verifyRecord` does all of it). Only the record\'s organizations are answered; for anyone else, ' +
      'and for a record not logged, 404.',
    parameters: [
      { name: 'recordKey', in: 'query', required: true, description: 'The record, as the log names it.', schema: { type: 'string', minLength: 1, maxLength: 300 } },
      { name: 'treeSize', in: 'query', required: false, description: 'The size of the tree to prove inclusion in: one you hold a checkpoint of. Default: the latest checkpoint\'s.', schema: { type: 'string', pattern: '^[0-9]{1,15}$' } },
    ],
    responses: { '200': 'The leaf, its audit path and the checkpoint.', '400': '`VALIDATION_FAILED`: no `recordKey`, or a `treeSize` that is not a size of the log holding the leaf.', '404': '`RESOURCE_NOT_FOUND`: no such record in the log, or not one of your organization\'s.' },
  },
}, async ({ c, principal }) => {
  const key = querySingle(c, 'recordKey');
  if (!key || key.length > 300) throw new Problem('VALIDATION_FAILED', 'recordKey names the record to prove (1 to 300 characters)', { errors: [{ pointer: '/query/recordKey', message: 'is required, 1 to 300 characters' }] });
  const log = logOf(c);
  const leaf = await log.leaf(key);
  if (!leaf || !leaf.organizations.includes(principal.organizationId)) throw new Problem('RESOURCE_NOT_FOUND', 'no such record in the transparency log, or it is not one of your organization\'s');
  const latest = await log.current();
  const treeSize = sizeParam(c, 'treeSize', latest.treeSize) ?? latest.treeSize;
  if (treeSize <= leaf.leafIndex) throw new Problem('VALIDATION_FAILED', `the record was logged as leaf ${leaf.leafIndex}: a tree of ${treeSize} leaves does not hold it`, { errors: [{ pointer: '/query/treeSize', message: `must be more than ${leaf.leafIndex}` }] });
  const checkpoint = treeSize === latest.treeSize ? latest : await log.checkpointAt(treeSize);
  if (!checkpoint) throw new Problem('VALIDATION_FAILED', `the log signed no checkpoint of ${treeSize} leaves`, { errors: [{ pointer: '/query/treeSize', message: 'must be the size of a signed checkpoint' }] });
  return c.json({ leaf: leafBody(leaf), treeSize, auditPath: await log.inclusionProof(leaf.leafIndex, treeSize), checkpoint: checkpointBody(checkpoint) });
});

operation(transparencyLog, {
  method: 'GET', path: '/consistency-proofs', access: { scope: [] }, answers: [200], returns: 'TransparencyLogConsistencyProof',
  doc: {
    id: 'getTransparencyLogConsistencyProof',
    summary: 'The proof that the log only grew between two checkpoints',
    description:
      'The consistency proof (RFC 9162 2.1.4) from the tree of `from` leaves (a checkpoint you kept) to the tree of `to` ' +
      "leaves (by default the latest checkpoint's), with the checkpoint of `to`. A log that changed or dropped a leaf, or " +
      'showed you a different tree, cannot give one that verifies. Hashes only: any token of an active organization.',
    parameters: [
      { name: 'from', in: 'query', required: true, description: 'The size of the checkpoint you hold.', schema: { type: 'string', pattern: '^[0-9]{1,15}$' } },
      { name: 'to', in: 'query', required: false, description: 'The size to prove it grew into; default the latest checkpoint\'s.', schema: { type: 'string', pattern: '^[0-9]{1,15}$' } },
    ],
    responses: { '200': 'The proof and the checkpoint of `to`.', '400': '`VALIDATION_FAILED`: `from` missing, larger than `to`, or a size the log has no signed checkpoint of.' },
  },
}, async ({ c }) => {
  const log = logOf(c);
  const latest = await log.current();
  const from = sizeParam(c, 'from', latest.treeSize);
  if (from === undefined) throw new Problem('VALIDATION_FAILED', 'from names the size of the checkpoint you hold', { errors: [{ pointer: '/query/from', message: 'is required' }] });
  const to = sizeParam(c, 'to', latest.treeSize) ?? latest.treeSize;
  if (from > to) throw new Problem('VALIDATION_FAILED', 'from is larger than to: a log only grows', { errors: [{ pointer: '/query/from', message: `must be at most ${to}` }] });
  const checkpoint = to === latest.treeSize ? latest : await log.checkpointAt(to);
  if (!checkpoint) throw new Problem('VALIDATION_FAILED', `the log signed no checkpoint of ${to} leaves`, { errors: [{ pointer: '/query/to', message: 'must be the size of a signed checkpoint' }] });
  return c.json({ from, to, consistencyPath: await log.consistencyProof(from, to), checkpoint: checkpointBody(checkpoint) });
});

operation(transparencyLog, {
  method: 'GET', path: '/leaves', access: { scope: [] }, answers: [200], returns: 'TransparencyLogLeafPage',
  doc: {
    id: 'listTransparencyLogLeaves',
    summary: "Your organization's leaves of the log",
    description:
      "Every leaf the log holds for a record of the caller's organization, in log order, with its key and salt: an " +
      "organization's own view of the log, to check that each of its decisions and outcomes is there (and, with the " +
      'inclusion proofs, in the tree the checkpoints sign). Any token of an active organization.',
    parameters: ['CursorQuery', 'LimitQuery'],
  },
}, async ({ c, principal }) => {
  const limit = pageLimit(c);
  const cursor = querySingle(c, 'cursor');
  // The cursor is the last leaf index of the page before (none: from the log's start).
  const after = cursor === undefined ? -1 : Number(decodeCursor(cursor));
  if (cursor !== undefined && !(Number.isSafeInteger(after) && after >= 0)) throw badCursor();
  const leaves = await logOf(c).leavesOf(principal.organizationId, after, limit + 1);
  const items = leaves.slice(0, limit).map(leafBody);
  return c.json({ items, nextCursor: leaves.length > limit ? encodeCursor(String(items[items.length - 1].leafIndex)) : null });
});
