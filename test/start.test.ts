// `npm start` end to end: the start script brings up the Temporal dev server (SQLite file), the
// broker on PGlite and the adapter gateway beside it, Ctrl-C stops every child, and a second start
// finds the state again.
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, interrupt, ROOT, startEmbedded } from './stack';
import { sleep, testEnv } from './helpers';

async function portOpen(port: number) {
  return fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
}

test('start, Ctrl-C, start again: state survives and every child stops', async () => {
  const env = {
    PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    DATA_DIR: join(testEnv().dir, 'npm-start'),
    GATEWAY_PORT: String(await freePort()),
    // As a newcomer's start: the bundles are built at start (the suite's other stacks share prebuilt ones).
    WORKFLOW_BUNDLE_FILE: '',
    GATEWAY_WORKFLOW_BUNDLE_FILE: '',
  };
  const gateway = `http://127.0.0.1:${env.GATEWAY_PORT}`;
  const base = `http://127.0.0.1:${env.PORT}`;
  const token = async () => {
    const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'alpine-tms', client_secret: 'alpine-demo-secret' }) });
    return ((await res.json()) as any).access_token as string;
  };
  let child = await startEmbedded(env);
  // A failed expectation still stops the stack (every child, in order): no start outlives the test.
  let id: string;
  try {
    expect(await portOpen(Number(env.TEMPORAL_UI_PORT))).toBe(true);
    // It says where to go next, and the bundler's report stays out of the log.
    expect(child.output()).toContain(`[start]   API reference    http://localhost:${env.PORT}/docs`);
    expect(child.output()).toContain('bash scripts/walkthrough.sh');
    expect(child.output()).not.toMatch(/webpack|modules by path/);
    // No runtime warning: a supported Node, the development provider's storage named.
    expect(child.output()).not.toMatch(/Unsupported runtime|oidc-provider WARNING|DeprecationWarning|ExperimentalWarning|EBADENGINE/);
    const created = await fetch(`${base}/partner-relationships`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ requestingOrganizationId: 'org-alpine-freight', acceptingOrganizationId: 'org-cargo-coop', scopes: ['capacity:read'] }),
    });
    expect(created.status).toBe(201);
    id = ((await created.json()) as any).id;
    // The adapter gateway runs beside it: the README's example instruction dropped into the shipper's mailbox is answered.
    expect(child.output()).toContain(`[start]   adapter gateway  ${gateway}/diagnostics`);
    const mailbox = join(env.DATA_DIR, 'mailboxes', 'org-baltic-shippers');
    copyFileSync(join(ROOT, 'examples', 'edifact', 'transport-instruction.edi'), join(mailbox, 'in', 'transport-instruction.edi'));
    const aperak = join(mailbox, 'out', 'transport-instruction.aperak.edi');
    for (let i = 0; i < 200 && !existsSync(aperak); i++) await sleep(100);
    expect(readFileSync(aperak, 'utf8')).toMatch(/BGM\+313\+[^']*\+29'/);
  } catch (err) {
    await interrupt(child);
    throw err;
  }

  expect(await interrupt(child)).toBe(0);
  expect(await portOpen(Number(env.PORT))).toBe(false);
  expect(await portOpen(Number(env.TEMPORAL_UI_PORT))).toBe(false);
  expect(await portOpen(Number(env.GATEWAY_PORT))).toBe(false);

  // Started again as one restarts: the bundles the first start built are in the data folder.
  child = await startEmbedded({ ...env, WORKFLOW_BUNDLE_FILE: join(env.DATA_DIR, 'workflow-bundle.js'), GATEWAY_WORKFLOW_BUNDLE_FILE: join(env.DATA_DIR, 'gateway-workflow-bundle.js') });
  try {
    // The read model (PGlite) and the workflow (Temporal's SQLite file) both survived.
    const requested = await fetch(`${base}/partner-relationships/${id}/request`, { method: 'POST', headers: { authorization: `Bearer ${await token()}`, 'if-match': '"1"' } });
    expect(requested.status).toBe(200);
    expect(((await requested.json()) as any).resourceVersion).toBe(2);
    // The gateway's own database survived too.
    const health = (await (await fetch(`${gateway}/health`)).json()) as any;
    expect(health.organizations.find((o: any) => o.organizationId === 'org-baltic-shippers').adapters).toEqual([expect.objectContaining({ format: 'edifact', waiting: 0, lastReceivedAt: expect.any(String) })]);
  } finally {
    expect(await interrupt(child)).toBe(0);
  }
}, 150000);
