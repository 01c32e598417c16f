// The transparency log end to end on both engines (docs/transparency-log.md): every decision,
// tender revision and decision, commitment digest, handover acknowledgement and outcome (a
// correction and the record it superseded included) is a leaf, which its organizations prove with
// the SDK's TransparencyMonitor against a checkpoint it verified, and nobody else is shown; the
// checkpoints only ever grow, consistently.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connector, db, expectProblem, freshOrgs, postgresOnly, testEnv } from './helpers';
import { ROOT } from './stack';
import { get, waitFor } from './matching-fixtures';
import { acceptedMatch } from './tenders.fixtures';
import { commitment, handoverBody } from './execution-handovers.fixtures';
import { MemoryCheckpointStore, PcxClient, TransparencyError, TransparencyMonitor, cosign, generateNoteKey, noteVerifier, openNote, parseCheckpoint } from '../sdk/src';
import { noteSigner } from '../core/transparency-log-key';

/** The verifier key of a witness's signer key. */
const cosignerOf = (signerKey: string) => noteSigner(signerKey).verifierKey;

const monitorOf = (c: Connector, store = new MemoryCheckpointStore()) =>
  new TransparencyMonitor(new PcxClient({ baseUrl: testEnv().baseUrl, clientId: c.org.clientId, clientSecret: c.org.secret }), { store });

const proofOf = (c: Connector, recordKey: string) => c.get(`/transparency-log/inclusion-proofs?recordKey=${encodeURIComponent(recordKey)}`);

async function leavesOf(c: Connector): Promise<string[]> {
  const keys: string[] = [];
  for (let cursor: string | null = ''; cursor !== null; ) {
    const page: any = (await c.get(`/transparency-log/leaves?limit=200${cursor ? `&cursor=${cursor}` : ''}`)).body;
    keys.push(...page.items.map((l: any) => l.recordKey));
    cursor = page.nextCursor;
  }
  return keys;
}

/** `pcx verify` as an auditor runs it, with the organization's credentials and a state folder of its own. */
function pcxVerify(c: Connector, state: string, args = ['--json', 'verify']): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, PCX_BASE_URL: testEnv().baseUrl, PCX_CLIENT_ID: c.org.clientId, PCX_CLIENT_SECRET: c.org.secret, PCX_CONFIG_DIR: state, NO_COLOR: '1' };
    const child = spawn(join(ROOT, 'bin', 'pcx'), args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the transparency log', () => {
  test("a match's decisions and a tender's revision and decision: in the log, proven by both organizations, hidden from others", async () => {
    const m = await acceptedMatch();
    const outsider = await Connector.of(freshOrgs(1)[0]);
    const proposal = await get(m.shipper, `/match-proposals/${m.proposal.id}`);
    expect(proposal.decisions).toHaveLength(2);
    const keys = [`match-proposals/${proposal.id}#/decisions/0`, `match-proposals/${proposal.id}#/decisions/1`];
    for (const c of [m.shipper, m.carrier]) {
      const monitor = monitorOf(c);
      const seen = await get(c, `/match-proposals/${proposal.id}`);
      for (const key of keys) expect(await monitor.verifyRecord(key, seen)).toMatchObject({ recordKey: key });
      expect(await leavesOf(c)).toEqual(expect.arrayContaining(keys));
    }
    // Anyone else: no proof, no leaf, as if the record did not exist.
    for (const key of keys) expectProblem(await proofOf(outsider, key), 404, 'RESOURCE_NOT_FOUND');
    expect(await leavesOf(outsider)).toEqual([]);

    // A record read with one member changed does not verify.
    const forged = structuredClone(proposal);
    forged.decisions[0].decision = 'reject';
    await expect(monitorOf(m.shipper).verifyRecord(keys[0], forged)).rejects.toThrow(TransparencyError);

    // A direct tender (INITIATOR_ONLY: the executor's accept commits it).
    const { issuer, executor, tender: settled } = await commitment();
    const monitor = monitorOf(executor);
    const tender = await get(issuer, `/transport-tenders/${settled.id}`);
    await monitor.verifyRecord(`transport-tenders/${tender.id}#/revisions/0`, tender);
    await monitor.verifyRecord(`transport-tenders/${tender.id}#/decisions/0`, tender);
    const c = await get(executor, `/transport-commitments/${tender.commitmentId}`);
    await monitor.verifyRecord(`transport-commitments/${c.id}#/digest`, c);
    expectProblem(await proofOf(outsider, `transport-commitments/${c.id}#/digest`), 404, 'RESOURCE_NOT_FOUND');
  });

  test("a handover's acknowledgement, and an outcome with its correction, proven; the checkpoints only grow", async () => {
    const { issuer, executor, commitment: c } = await commitment();
    const store = new MemoryCheckpointStore();
    const monitor = monitorOf(executor, store);
    const first = await monitor.refresh();

    const h = (await issuer.post('/execution-handovers', handoverBody(c))).body;
    const acknowledged = (await executor.post(`/execution-handovers/${h.id}/acknowledgements`, { outcome: 'imported', destinationExternalReference: { system: 'executor-tms', type: 'trip', value: 'T-0815' } })).body;
    expect(acknowledged.status).toBe('imported');
    await monitorOf(issuer).verifyRecord(`execution-handovers/${h.id}#/acknowledgements/0`, acknowledged);
    await monitor.verifyRecord(`execution-handovers/${h.id}#/acknowledgements/0`, await get(executor, `/execution-handovers/${h.id}`));

    // The reference of an accepted match, an outcome and its correction.
    const m = await acceptedMatch();
    const reference = await waitFor('the execution reference', async () => (await m.carrier.get(`/execution-references?proposal=${m.proposal.id}`)).body.items?.[0]);
    const now = Date.now();
    const recorded = await m.carrier.post('/execution-outcomes', { executionReferenceId: reference.id, status: 'disputed', deduplicationKey: 'o-1', schemaVersion: 'v0', operationalDeviations: [{ code: 'LATE_PICKUP' }] });
    expect(recorded.status).toBe(201);
    const correction = await m.carrier.post(`/execution-outcomes/${recorded.body.id}/corrections`, {
      observedOutcomeVersion: recorded.body.resourceVersion, correctionReason: 'the driver reported late', correctionReasonCode: 'LATE_INFORMATION', deduplicationKey: 'o-2', status: 'completed', schemaVersion: 'v0',
      actualTimeRange: { start: new Date(now - 60_000).toISOString(), end: new Date(now - 20_000).toISOString() },
    });
    if (correction.status !== 201) throw new Error(`correction: ${correction.status} ${JSON.stringify(correction.body)}`);
    const shipperMonitor = monitorOf(m.shipper);
    // The superseded record has changed since it was logged (who superseded it); it still verifies as it was made.
    const superseded = await get(m.shipper, `/execution-outcomes/${recorded.body.id}`);
    expect(superseded.supersededByOutcomeId).toBe(correction.body.id);
    await shipperMonitor.verifyRecord(`execution-outcomes/${recorded.body.id}`, superseded);
    await shipperMonitor.verifyRecord(`execution-outcomes/${correction.body.id}`, await get(m.shipper, `/execution-outcomes/${correction.body.id}`));

    // The executor's monitor kept the first checkpoint, then later ones, each proven to extend it.
    const latest = await monitor.refresh();
    expect(latest.size).toBeGreaterThan(first.size);
    const keys = (await get(executor, '/.well-known/transparency-log/keys'));
    const note = (await fetch(`${testEnv().baseUrl}/.well-known/transparency-log/checkpoint`).then((r) => r.text()));
    const opened = parseCheckpoint(openNote(note, keys.keys.map((k: any) => noteVerifier(k.verifierKey))).text);
    expect(opened.size).toBeGreaterThanOrEqual(latest.size);
    expect(opened.origin).toBe(keys.origin);
  });

  test('bad questions are refused with problems', async () => {
    const { issuer } = await commitment();
    expectProblem(await issuer.get('/transparency-log/inclusion-proofs'), 400, 'VALIDATION_FAILED');
    expectProblem(await issuer.get('/transparency-log/inclusion-proofs?recordKey=nothing'), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await issuer.get('/transparency-log/consistency-proofs'), 400, 'VALIDATION_FAILED');
    expectProblem(await issuer.get('/transparency-log/consistency-proofs?from=abc'), 400, 'VALIDATION_FAILED');
    expectProblem(await issuer.get('/transparency-log/consistency-proofs?from=2&to=1'), 400, 'VALIDATION_FAILED');
    expectProblem(await issuer.get('/transparency-log/consistency-proofs?from=99999999999'), 400, 'VALIDATION_FAILED');
    expectProblem(await issuer.get('/transparency-log/leaves?cursor=LTE'), 400, 'VALIDATION_FAILED');
    expectProblem(await issuer.get('/transparency-log/leaves?limit=0'), 400, 'VALIDATION_FAILED');
  });

  test('pcx verify proves every record of the organization, and the log grown since its last run', async () => {
    const { executor, tender } = await commitment();
    const state = mkdtempSync(join(testEnv().dir, 'pcx-verify-'));
    const first = await pcxVerify(executor, state);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    // Its revision, its decision and the commitment's digest at least (a fresh organization).
    expect(JSON.parse(first.stdout)).toMatchObject({ verified: 3, unreadable: [] });
    const again = await pcxVerify(executor, state);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/consistent with the one kept/);
    // Reads verified as they are made: pcx --verify <collection> get.
    const read = await pcxVerify(executor, state, ['--json', '--verify', 'tenders', 'get', tender.id]);
    expect({ code: read.code, stderr: read.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(read.stdout).id).toBe(tender.id);
  });

  postgresOnly('a decision rewritten in the database: pcx verify fails and names it', async () => {
    const { executor, tender } = await commitment();
    const state = mkdtempSync(join(testEnv().dir, 'pcx-verify-'));
    expect((await pcxVerify(executor, state)).code).toBe(0);
    const key = `transport-tenders/${tender.id}#/decisions/0`;
    await db().query(`update transparency_log_leaves set record_digest = repeat('a', 64) where record_key = $1`, [key]);
    const run = await pcxVerify(executor, state);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(key);
  });

  test("a witness cosigns what it checked; a reader that trusts it believes only cosigned checkpoints; nobody else's signature is taken", async () => {
    const { issuer, executor, tender } = await commitment();
    const WITNESS_KEY = join(ROOT, 'test', 'fixtures', 'transparency', 'witness-key.txt');
    const witness = cosignerOf(readFileSync(WITNESS_KEY, 'utf8'));
    const keys = await get(issuer, '/.well-known/transparency-log/keys');
    expect(keys.witnesses).toEqual([witness]);

    // The issuer's organization runs the witness: it verifies the latest checkpoint, then cosigns it.
    const state = mkdtempSync(join(testEnv().dir, 'pcx-witness-'));
    const run = await pcxVerify(issuer, state, ['witness', '--key-file', WITNESS_KEY]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/cosigned the checkpoint of \d+ leaves/) });
    const witnessed = await get(executor, '/transparency-log/checkpoint?witnessed=1');
    const lines = witnessed.note.split('\n').filter((l: string) => l.startsWith('\u2014 '));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^\u2014 test-witness\.example /);

    // A reader that trusts the witness proves the executor's records in the cosigned checkpoint.
    const trusting = new TransparencyMonitor(new PcxClient({ baseUrl: testEnv().baseUrl, clientId: executor.org.clientId, clientSecret: executor.org.secret }), { witnesses: { keys: [witness] } });
    const t = await get(executor, `/transport-tenders/${tender.id}`);
    expect(await trusting.verifyRecord(`transport-tenders/${t.id}#/decisions/0`, t)).toMatchObject({ treeSize: witnessed.treeSize });
    // A newer checkpoint nobody cosigned is not believed by it.
    await commitment();
    const uncosigned = await get(executor, '/transparency-log/checkpoint');
    expect(uncosigned.treeSize).toBeGreaterThan(witnessed.treeSize);
    await expect(trusting.observe(uncosigned)).rejects.toThrow(/cosigned by 0 of the witnesses/);

    // Cosignatures the log does not take: by a key it does not list, over another checkpoint, of a size never signed.
    const stranger = generateNoteKey('stranger.example');
    const textOf = (note: string) => note.slice(0, note.indexOf('\n\n') + 1);
    expectProblem(await executor.post('/transparency-log/cosignatures', { treeSize: uncosigned.treeSize, signature: cosign(textOf(uncosigned.note), stranger.signerKey) }), 400, 'VALIDATION_FAILED');
    expectProblem(await executor.post('/transparency-log/cosignatures', { treeSize: uncosigned.treeSize, signature: cosign(textOf(witnessed.note), readFileSync(WITNESS_KEY, 'utf8')) }), 400, 'VALIDATION_FAILED');
    expectProblem(await executor.post('/transparency-log/cosignatures', { treeSize: 99999999, signature: lines[1] }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await executor.post('/transparency-log/cosignatures', { treeSize: uncosigned.treeSize, signature: 'not a signature' }), 400, 'VALIDATION_FAILED');
    expect((await get(executor, `/transparency-log/checkpoint`)).note).toBe(uncosigned.note);
  });

  test("a client whose reads are verified: each get and list proves the records in it, and a record changed on the way fails the read", async () => {
    const { executor, tender } = await commitment();
    const pcx = new PcxClient({ baseUrl: testEnv().baseUrl, clientId: executor.org.clientId, clientSecret: executor.org.secret });
    const monitor = new TransparencyMonitor(pcx);
    const proven: string[] = [];
    pcx.onRead = async (collection, document) => {
      proven.push(...(await monitor.verifyDocument(collection, document)).map((v) => v.recordKey));
    };
    const t: any = await pcx.resource('transport-tenders').get(tender.id);
    await pcx.resource('transport-commitments').get(t.commitmentId);
    expect(proven).toEqual([`transport-tenders/${t.id}#/revisions/0`, `transport-tenders/${t.id}#/decisions/0`, `transport-commitments/${t.commitmentId}#/digest`]);
    // A list's items too (this fresh organization has the one tender).
    proven.length = 0;
    for await (const listed of pcx.resource('transport-tenders').list()) expect((listed as any).id).toBe(t.id);
    expect(proven).toEqual([`transport-tenders/${t.id}#/revisions/0`, `transport-tenders/${t.id}#/decisions/0`]);
    // A broker (or a proxy) that changed a decision on the way: the read fails.
    const tampering = new PcxClient({
      baseUrl: testEnv().baseUrl, clientId: executor.org.clientId, clientSecret: executor.org.secret,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (!String(input instanceof Request ? input.url : input).includes(`/transport-tenders/${t.id}`)) return response;
        const body = await response.json();
        body.decisions[0].decision = 'reject';
        return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
      },
    });
    tampering.onRead = new TransparencyMonitor(tampering).verifyReads();
    await expect(tampering.resource('transport-tenders').get(t.id)).rejects.toThrow(TransparencyError);
  });
});
