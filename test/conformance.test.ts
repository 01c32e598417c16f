// The conformance kit (conformance/) against this broker, on both engines: every mandatory check of
// the Broker profile conformant. Then the kit must be able to fail: behind a proxy that breaks the
// broker in one known way, it reports exactly the checks that rest on that behaviour, and no other.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { Connector, freshOrgs, testEnv } from './helpers';
import { generateConnectorKey } from '../sdk/src/keys';
import { SCOPES } from '../domain/scopes';
import { runBrokerProfile } from '../conformance/src/broker/run';
import { markdown, writeReport } from '../conformance/src/report';
import type { ClientsFile } from '../conformance/src/broker/world';
import { join } from 'node:path';

function clients(): ClientsFile {
  const orgs = freshOrgs(3).map((o) => ({ organizationId: o.id, clientId: o.clientId, clientSecret: o.secret }));
  return { organizations: [orgs[0], orgs[1], orgs[2]], operator: { organizationId: 'org-operator', clientId: 'client-operator', clientSecret: 'secret-o' } };
}

/** A proxy in front of the broker whose answers `mutate` may rewrite (status and JSON body). */
async function brokenBroker(mutate: (method: string, path: string, status: number, body: any) => { status: number; body: any } | undefined): Promise<{ url: string; close(): Promise<void> }> {
  const target = testEnv().baseUrl;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers.set(k, v);
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
    const text = await answer.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: passed on as it is */
    }
    const changed = typeof body === 'object' ? mutate(req.method!, new URL(req.url!, target).pathname, answer.status, body) : undefined;
    const out = changed ? JSON.stringify(changed.body) : text;
    const outHeaders: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) outHeaders[k] = v;
    });
    if (changed) outHeaders['content-type'] = 'application/json';
    res.writeHead(changed?.status ?? answer.status, outHeaders);
    res.end(answer.status === 204 || answer.status === 304 ? undefined : out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const nonConformant = (report: Awaited<ReturnType<typeof runBrokerProfile>>) =>
  report.families.flatMap((f) => f.checks).filter((c) => c.verdict === 'non-conformant').map((c) => c.id).sort();

/** The kit's run, restricted to `only`, against a proxy that breaks the broker with `mutate`; the proxy is closed after it. */
async function runAgainstBroken(mutate: Parameters<typeof brokenBroker>[0], only: string[]) {
  const proxy = await brokenBroker(mutate);
  try {
    return await runBrokerProfile({ baseUrl: proxy.url, clients: clients(), only });
  } finally {
    await proxy.close();
  }
}

// One engine is enough for the broken brokers: the proxy, not the engine, is under test.
const onPglite = testEnv().engine === 'pglite' ? test : test.skip;
// Their runs start as the file starts and go on beside the run against the broker itself (each its
// own proxy and organizations; the kit mostly waits on the broker's flows); their tests await them.
let broken: { leaking: ReturnType<typeof runAgainstBroken>; staleAccepted: ReturnType<typeof runAgainstBroken> } | undefined;
beforeAll(() => {
  if (testEnv().engine !== 'pglite') return;
  broken = {
    // A broker that leaks the restricted price to partners.
    leaking: runAgainstBroken(
      (method, path, status, body) =>
        method === 'GET' && /^\/capacity-offers\/[^/]+$/.test(path) && status === 200 ? { status, body: { ...body, restrictedDetails: { price: { amount: 900, currency: 'EUR' } } } } : undefined,
      ['FD-1', 'FD-2', 'LT-1', 'IS-1'],
    ),
    // A broker that answers a stale write with 200.
    staleAccepted: runAgainstBroken(
      (_method, _path, status, body) => (status === 409 && body?.code === 'STALE_RESOURCE_VERSION' ? { status: 200, body: { ok: true } } : undefined),
      ['SW-1', 'SW-2', 'SW-3', 'LT-1', 'ID-1', 'ID-3', 'DP-1'],
    ),
  };
  // A failed run is reported by its test, which awaits it.
  for (const run of Object.values(broken)) run.catch(() => undefined);
});

test('this broker passes every mandatory check of the Broker profile', async () => {
  const report = await runBrokerProfile({ baseUrl: testEnv().baseUrl, clients: clients() });
  const files = writeReport(report, join(testEnv().dir, 'artifacts', `conformance-${testEnv().engine}`));
  if (report.failedMandatory.length) throw new Error(`${report.summary}\n${markdown(report)}`);
  expect(report.failedMandatory).toEqual([]);
  expect(report.verdict === 'conformant' || report.verdict === 'partial').toBe(true);
  // Exercised: every family of the specification's list.
  expect(report.families.map((f) => f.family).sort()).toEqual(['decision-policy', 'disclosure', 'errors', 'events', 'idempotency', 'isolation', 'lifecycle', 'outcomes', 'proposals', 'schema-validation', 'stale-writes']);
  // The optional expiry check needs a setting this broker was not given: no traffic, never passed.
  expect(report.families.flatMap((f) => f.checks).find((c) => c.id === 'PR-2')?.verdict).toBe('no traffic');
  // The evidence is kept, tokens redacted.
  expect(report.exchanges.length).toBeGreaterThan(100);
  const everything = JSON.stringify(report);
  expect(everything).not.toMatch(/Bearer ey/);
  expect(everything).not.toMatch(/client_secret=secret/);
  expect(files.markdown).toMatch(/report\.md$/);
}, 240000);

describe('the kit fails a broken broker on exactly the checks its breakage touches', () => {
  onPglite('a broker that leaks the restricted price to partners: field-level disclosure fails, nothing else', async () => {
    const report = await broken!.leaking;
    expect(nonConformant(report)).toEqual(['FD-1']);
    expect(report.failedMandatory).toEqual(['FD-1']);
  }, 180000);

  onPglite('a broker that answers a stale write with 200: the stale-write checks fail (and the answer breaks the document), nothing else', async () => {
    const report = await broken!.staleAccepted;
    expect(nonConformant(report)).toEqual(['SV-2', 'SW-1', 'SW-2', 'SW-3']);
  }, 180000);
});

test('the kit runs with a connector that authenticates by private_key_jwt: one onboarded through /connectors, its key in a file', async () => {
  const [a, b, c] = freshOrgs(3);
  const key = generateConnectorKey();
  const clientId = `kit-keys-${a.id}-${Date.now().toString(36)}`;
  const created = await (await Connector.of(a)).post('/connectors', { clientId, scopes: SCOPES.filter((s) => s !== 'exchange:admin'), publicJwk: key.publicJwk });
  expect(created.status).toBe(201);
  const keyFile = join(testEnv().dir, `${clientId}.key.json`);
  writeFileSync(keyFile, JSON.stringify(key.privateJwk), { mode: 0o600 });
  const report = await runBrokerProfile({
    baseUrl: testEnv().baseUrl,
    clients: {
      organizations: [{ organizationId: a.id, clientId, privateKeyFile: keyFile }, { organizationId: b.id, clientId: b.clientId, clientSecret: b.secret }, { organizationId: c.id, clientId: c.clientId, clientSecret: c.secret }],
      operator: { organizationId: 'org-operator', clientId: 'client-operator', clientSecret: 'secret-o' },
    },
    only: ['LT-1', 'IS-1'],
  });
  const verdicts = Object.fromEntries(report.families.flatMap((f) => f.checks).map((check) => [check.id, check.verdict]));
  expect(verdicts).toEqual(expect.objectContaining({ 'LT-1': 'conformant', 'IS-1': 'conformant' }));
  expect(report.failedMandatory).toEqual([]);
  // Its token requests carried assertions (recorded redacted), the others their secrets.
  const forms = report.exchanges.filter((e) => e.url.endsWith('/oauth2/token')).map((e) => String(e.requestBody ?? ''));
  expect(forms.some((form) => form.includes('client_assertion=<redacted>') && !form.includes('client_secret'))).toBe(true);
  expect(forms.some((form) => form.includes('client_secret=<redacted>'))).toBe(true);
}, 120000);
