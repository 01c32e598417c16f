// The conformance kit (conformance/) against this broker, on both engines: every mandatory check of
// the Broker profile conformant. Then the kit must be able to fail: behind a proxy that breaks the
// broker in one known way, it reports exactly the checks that rest on that behaviour, and no other.
import { writeFileSync } from 'node:fs';
import { Connector, freshOrgs, testEnv } from './helpers';
import { generateConnectorKey } from '../sdk/src/keys';
import { SCOPES } from '../domain/scopes';
import { runBrokerProfile } from '../conformance/src/broker/run';
import { exitCodeOf, markdown, writeReport } from '../conformance/src/report';
import { brokerChecks } from '../conformance/src/broker/checks';
import { brokenBroker, MUTANTS } from './conformance-mutants';
import { CONNECTOR_MUTANTS, type ConnectorMutant } from './conformance-connector-mutants';
import { runConnectorProfile, type ConnectorProfile } from '../conformance/src/connector/run';
import type { Report } from '../conformance/src/report';
import { ROOT } from './stack';
import type { ClientsFile } from '../conformance/src/broker/world';
import { join } from 'node:path';

function clients(): ClientsFile {
  const orgs = freshOrgs(3).map((o) => ({ organizationId: o.id, clientId: o.clientId, clientSecret: o.secret }));
  return { organizations: [orgs[0], orgs[1], orgs[2]], operator: { organizationId: 'org-operator', clientId: 'client-operator', clientSecret: 'secret-o' } };
}

const nonConformant = (report: Awaited<ReturnType<typeof runBrokerProfile>>) =>
  report.families.flatMap((f) => f.checks).filter((c) => c.verdict === 'non-conformant').map((c) => c.id).sort();

// One engine is enough for the broken brokers: the proxy, not the engine, is under test.
const onPglite = testEnv().engine === 'pglite' ? test : test.skip;

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
  // The optional transparency-log check (an extension of rule 10): this broker keeps the log.
  expect(report.families.flatMap((f) => f.checks).find((c) => c.id === 'OC-3')?.verdict).toBe('conformant');
  // The evidence is kept, tokens redacted.
  expect(report.exchanges.length).toBeGreaterThan(100);
  const everything = JSON.stringify(report);
  expect(everything).not.toMatch(/Bearer ey/);
  expect(everything).not.toMatch(/client_secret=secret/);
  expect(files.markdown).toMatch(/report\.md$/);
}, 240000);

// Every check of the Broker profile can fail: for each, a broker with one plausible bug (the
// cheapest wrong reading of the passage the check quotes, test/conformance-mutants.ts), and the kit
// must report exactly that check non-conformant, in its family, and nothing else: neither another
// check (a verdict on the wrong evidence) nor none (a bug that goes through).
describe('the kit fails a broken broker on exactly the check its bug breaks, for every check', () => {
  onPglite('every check of the profile has its broken broker', () => {
    const ids = [...brokerChecks().map((c) => c.id), 'IS-4', 'FD-3', 'SV-2', 'ER-3'].sort();
    expect(MUTANTS.map((m) => m.check).sort()).toEqual(ids);
  });

  (testEnv().engine === 'pglite' ? test.concurrent.each : test.skip.each)(MUTANTS.map((m) => [m.check, m.bug, m] as const))('%s: %s', async (check, _bug, mutant) => {
    const parties = clients();
    const names = Object.fromEntries(parties.organizations.map((o, i) => [o.clientId, 'ABC'[i]]));
    const proxy = await brokenBroker(testEnv().baseUrl, mutant, names);
    let report;
    try {
      report = await runBrokerProfile({ baseUrl: proxy.url, clients: parties, only: mutant.only ?? [check], ...(mutant.settings ? { settings: mutant.settings } : {}) });
    } finally {
      await proxy.close();
    }
    const found = nonConformant(report);
    if (found.join() !== check) throw new Error(`expected ${check} alone non-conformant, got [${found.join(', ')}]\n${markdown(report).slice(0, 6000)}`);
    const family = report.families.find((f) => f.checks.some((c) => c.id === check))!;
    expect(['non-conformant', 'partial']).toContain(family.verdict);
    expect(report.families.filter((f) => f.verdict === 'non-conformant' || f.verdict === 'partial').map((f) => f.family)).toEqual([family.family]);
    // A mandatory check's failure fails the run; the optional expiry check (PR-2) is reported only.
    const mandatory = family.checks.find((c) => c.id === check)!.mandatory;
    expect(report.failedMandatory.includes(check)).toBe(mandatory);
  }, 120000);
});

// The connector profiles can fail too: the example carrier connector (which conforms, also here:
// its first run) behind a proxy that makes it misbehave in one way per check
// (test/conformance-connector-mutants.ts), each run with organizations of its own against this
// stack's sandbox, so that they run at once. Each must be non-conformant on exactly its check.
describe('the connector profiles fail a broken connector on exactly the check its bug breaks', () => {
  const runConnector = async (profile: ConnectorProfile, seconds: number, mutant?: ConnectorMutant) => {
    const [own, other] = freshOrgs(2);
    const organization = { organizationId: own.id, clientId: own.clientId, clientSecret: own.secret };
    const counterpart = { organizationId: other.id, clientId: other.clientId, clientSecret: other.secret };
    const proxy = mutant ? await brokenBroker(testEnv().baseUrl, mutant, {}) : undefined;
    try {
      return await runConnectorProfile(profile, {
        baseUrl: testEnv().baseUrl,
        operator: { organizationId: 'org-operator', clientId: 'client-operator', clientSecret: 'secret-o' },
        organization,
        counterpart,
        connectorClientId: own.clientId,
        command: [process.execPath, '--import', 'tsx', join(ROOT, 'examples', 'carrier', 'connector.ts'), '--base-url', proxy?.url ?? testEnv().baseUrl, '--client-id', own.clientId],
        env: { PCX_CLIENT_SECRET: own.secret },
        seconds,
        cwd: ROOT,
      });
    } finally {
      await proxy?.close();
    }
  };
  const connectorVerdicts = (report: Report) => Object.fromEntries(report.families.flatMap((f) => f.checks).map((c) => [c.id, c.verdict]));

  (testEnv().engine === 'pglite' ? test.concurrent.each : test.skip.each)([['example', undefined], ...CONNECTOR_MUTANTS.map((m) => [`${m.check}: ${m.bug}`, m])] as Array<[string, ConnectorMutant | undefined]>)('%s', async (_name, mutant) => {
    const report = await runConnector(mutant?.profile ?? 'full', mutant?.seconds ?? 120, mutant);
    const verdicts = connectorVerdicts(report);
    const found = Object.entries(verdicts).filter(([, v]) => v === 'non-conformant').map(([id]) => id).sort();
    if (found.join() !== (mutant?.check ?? '')) throw new Error(`expected ${mutant?.check ?? 'nothing'} non-conformant, got [${found.join(', ')}]\n${markdown(report).slice(0, 5000)}`);
    if (!mutant) expect(report.failedMandatory).toEqual([]);
  }, 200000);
});

// Evidence rules: no verdict without evidence, and the exit codes docs/conformance.md gives.
describe('no verdict on no evidence; the exit codes', () => {
  onPglite('an unreachable broker: not run, every check no traffic, exit 2', async () => {
    const report = await runBrokerProfile({ baseUrl: 'http://127.0.0.1:9', clients: clients(), only: ['LT-1'] });
    expect(report.notRun).toMatch(/could not be reached/);
    expect(report.families.flatMap((f) => f.checks).every((c) => c.verdict === 'no traffic')).toBe(true);
    expect(exitCodeOf(report)).toBe(2);
  });

  onPglite('credentials the broker refuses: the set-up fails, not run, exit 2', async () => {
    const parties = clients();
    parties.organizations[0] = { ...parties.organizations[0], clientSecret: 'wrong' };
    const report = await runBrokerProfile({ baseUrl: testEnv().baseUrl, clients: parties, only: ['LT-1'] });
    expect(report.notRun).toMatch(/set-up failed/);
    expect(exitCodeOf(report)).toBe(2);
  });

  onPglite('a check whose set-up the broker refuses is no traffic, and only the check about that step is non-conformant; no error answers: ER-3 no traffic', async () => {
    const parties = clients();
    const names = Object.fromEntries(parties.organizations.map((o, i) => [o.clientId, 'ABC'[i]]));
    // Publishing is broken: LT-1 (whose subject it is) fails; SW-1, which only needs a published offer, has no traffic.
    const proxy = await brokenBroker(testEnv().baseUrl, { check: 'LT-1', bug: 'publish refused', response: (x, a) => (x.method === 'POST' && x.path.endsWith('/publish') && x.path.startsWith('/capacity-offers') ? { ...a, status: 500, body: { ...problemBody } } : undefined) }, names);
    try {
      const report = await runBrokerProfile({ baseUrl: proxy.url, clients: parties, only: ['LT-1', 'SW-1'] });
      const verdicts = Object.fromEntries(report.families.flatMap((f) => f.checks).map((c) => [c.id, c.verdict]));
      expect(verdicts).toEqual(expect.objectContaining({ 'LT-1': 'non-conformant', 'SW-1': 'no traffic' }));
      expect(report.families.flatMap((f) => f.checks).find((c) => c.id === 'SW-1')!.evidence.join(' ')).toMatch(/set-up failed \(a published offer\)/);
      expect(exitCodeOf(report)).toBe(1);
    } finally {
      await proxy.close();
    }
    const quiet = await runBrokerProfile({ baseUrl: testEnv().baseUrl, clients: clients(), only: ['LT-1'] });
    expect(quiet.families.flatMap((f) => f.checks).find((c) => c.id === 'ER-3')!.verdict).toBe('no traffic');
  }, 120000);
});

const problemBody = { type: 'urn:exchange:protocol:error:internal', title: 'Internal error', status: 500, code: 'INTERNAL', detail: 'broken on purpose', correlationId: '00000000-0000-4000-8000-000000000000' };

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
