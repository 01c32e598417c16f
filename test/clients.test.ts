// The Python and Java clients (clients/, docs/clients.md), built from a fresh clone as a user builds
// them, checked as their languages check code, and certified by the conformance kit against
// `npm start` (the run's shared start, as test/conformance-connectors.test.ts): each client's
// example connector conforms to the four connector profiles; its broken doubles, written in that
// language on the generated client alone (test/fixtures/python, test/fixtures/java), are reported
// non-conformant on exactly the checks the TypeScript doubles fail.
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { npmStartFor, ROOT, type NpmStartForFile } from './stack';
import { testEnv } from './helpers';
import { runConnectorProfile, type ConnectorProfile } from '../conformance/src/connector/run';
import { writeReport, type Report } from '../conformance/src/report';
import { PcxClient } from '../sdk/src';
import { generateConnectorKey, publicOf, type PrivateJwk } from '../sdk/src/keys';
import { signedHeaders } from '../core/webhooks/sign';

const run = promisify(execFile);
const TOOLS = join(ROOT, '.tools', 'clients');
const PYTHON = join(TOOLS, 'bin', 'python');
const clients = JSON.parse(readFileSync(join(ROOT, 'conformance', 'demo-clients.json'), 'utf8'));
const [alpine, baltic, cargo] = clients.organizations;
const DEMO_SCOPES = JSON.parse(readFileSync(join(ROOT, 'config', 'demo-clients.json'), 'utf8')).find((c: any) => c.clientId === alpine.clientId).scopes as string[];

/** A command's output; its failure carries both streams, so a test says what the compiler said. */
async function sh(file: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
    return stdout + stderr;
  } catch (err: any) {
    throw new Error(`${file} ${args.join(' ')} failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  }
}

const verdicts = (report: Report, name: string) => {
  writeReport(report, join(testEnv().dir, 'artifacts', 'conformance', `${name}-${Date.now()}`));
  return Object.fromEntries(report.families.flatMap((f) => f.checks).map((c) => [c.id, c.verdict]));
};
const conformant = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, 'conformant']));
const PROFILE_CHECKS: Record<ConnectorProfile, string[]> = {
  publisher: ['PUB-1', 'CX-1', 'CX-2', 'CX-3', 'CX-4'],
  consumer: ['CON-1', 'CON-2', 'CON-3', 'CON-4', 'CX-1', 'CX-2', 'CX-3', 'CX-4'],
  'outcome-provider': ['OUT-1', 'OUT-2', 'OUT-3', 'CX-1', 'CX-2', 'CX-3', 'CX-4'],
  full: ['PUB-1', 'CON-1', 'CON-2', 'CON-3', 'CON-4', 'TEN-1', 'TEN-2', 'OUT-1', 'OUT-2', 'OUT-3', 'CX-1', 'CX-2', 'CX-3', 'CX-4'],
};

describe('the Python and Java clients, against npm start', () => {
  let start: NpmStartForFile | undefined;
  let base = '';

  beforeAll(async () => {
    start = await npmStartFor(testEnv(), 'clients');
    base = start.base;
  }, 150000);

  afterAll(async () => {
    if (start) expect(await start.stop()).toBe(0);
  }, 30000);

  /**
   * A connector in another language under a profile: `organization` its own, Baltic played by the
   * kit. With `connectorClientId`, a connector of the organization's that has a key and no secret
   * (its command names its client id and key file).
   */
  const certify = (profile: ConnectorProfile, command: string[], organization = alpine, seconds = 90, connectorClientId?: string) =>
    runConnectorProfile(profile, {
      baseUrl: base,
      operator: clients.operator,
      organization,
      counterpart: baltic,
      connectorClientId: connectorClientId ?? organization.clientId,
      command,
      env: connectorClientId ? { PCX_CLIENT_SECRET: '' } : { PCX_CLIENT_ID: organization.clientId, PCX_CLIENT_SECRET: organization.clientSecret },
      seconds,
      cwd: ROOT,
    });

  /**
   * A connector of Alpine's with a key and no secret, onboarded through /connectors as an admin
   * would: its private JWK in a file (as `pcx keys generate` writes it), its client id.
   */
  const keyedConnector = async (name: string, privateJwk: PrivateJwk) => {
    const clientId = `${name}-${Date.now().toString(36)}`;
    const admin = new PcxClient({ baseUrl: base, clientId: alpine.clientId, clientSecret: alpine.clientSecret });
    await admin.request('POST', '/connectors', { body: { clientId, scopes: DEMO_SCOPES.filter((s) => s !== 'connectors:manage'), publicJwk: publicOf(privateJwk) } });
    const keyFile = join(testEnv().dir, `${clientId}.key.json`);
    writeFileSync(keyFile, JSON.stringify(privateJwk), { mode: 0o600 });
    return { clientId, keyFile };
  };

  /** Publisher with the example connector authenticating by private_key_jwt only (no secret in its environment). */
  const certifyWithKey = (command: string[], connector: { clientId: string; keyFile: string }) =>
    certify('publisher', [...command, '--base-url', base, '--client-id', connector.clientId, '--key-file', connector.keyFile], alpine, 60, connector.clientId);

  /**
   * Deliveries as the broker signs them (core/webhooks/sign.ts, the code that signs every webhook)
   * of a real event of this run's feed, while a secret rotation is under way (both secrets sign):
   * one as sent, one whose body was changed on the way, one signed with a secret the receiver does
   * not have. Written to files for a receiver in another language; `secrets` are the receiver's.
   */
  const deliveries = async (name: string) => {
    const pcx = new PcxClient({ baseUrl: base, clientId: alpine.clientId, clientSecret: alpine.clientSecret });
    const { data } = await pcx.request<{ items: Array<{ id: string }> }>('GET', '/events', { query: { limit: 1 } });
    const event = data.items[0];
    expect(event).toBeDefined();
    const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
    const [previous, next, stranger] = [secret(), secret(), secret()];
    const body = JSON.stringify(event);
    const write = (kind: string, delivery: { body: string; headers: Record<string, string> }) => {
      const file = join(testEnv().dir, `${name}-${kind}-${Date.now()}.json`);
      writeFileSync(file, JSON.stringify(delivery));
      return file;
    };
    return {
      secrets: [previous, next],
      sent: write('sent', { body, headers: signedHeaders([previous, next], event.id, new Date(), body) }),
      changed: write('changed', { body: body.replace(/"resourceversion":(\d+)/, (_, v) => `"resourceversion":${Number(v) + 1}`), headers: signedHeaders([previous, next], event.id, new Date(), body) }),
      stranger: write('stranger', { body, headers: signedHeaders([stranger], event.id, new Date(), body) }),
    };
  };

  /** A receiver in another language verifies the broker's signature, and refuses what was not signed so. */
  const verifiesDeliveries = async (name: string, receive: (file: string, secrets: string[]) => Promise<string>) => {
    const d = await deliveries(name);
    expect((await receive(d.sent, d.secrets)).trim()).toBe('apply duplicate');
    expect((await receive(d.sent, [d.secrets[1]])).trim()).toBe('apply duplicate'); // after the rotation, the new secret alone
    expect((await receive(d.changed, d.secrets)).trim()).toMatch(/^refused: /);
    expect((await receive(d.stranger, d.secrets)).trim()).toMatch(/^refused: /);
  };

  /** The example conforms to every profile; the doubles fail exactly where the TypeScript ones do. */
  const certification = (language: string, example: () => string[], double: (name: 'publisher' | 'consumer') => string[]) => {
    for (const profile of ['publisher', 'consumer', 'outcome-provider', 'full'] as const) {
      test(`${language}: the example connector conforms to the ${profile} profile`, async () => {
        const report = await certify(profile, [...example(), '--base-url', base, '--client-id', alpine.clientId]);
        expect(verdicts(report, `${language}-${profile}`)).toEqual(conformant(PROFILE_CHECKS[profile]));
      }, 150000);
    }

    test(`${language}: a broken publisher on the generated client alone fails exactly on its retry key and its impatience`, async () => {
      const report = await certify('publisher', double('publisher'), cargo, 20);
      expect(verdicts(report, `${language}-broken-publisher`)).toEqual({ ...conformant(['PUB-1', 'CX-3', 'CX-4']), 'CX-1': 'non-conformant', 'CX-2': 'non-conformant' });
    }, 150000);

    test(`${language}: a broken consumer on the generated client alone fails exactly on its keys, its 409s and the stale event`, async () => {
      const report = await certify('consumer', double('consumer'), cargo, 60);
      expect(verdicts(report, `${language}-broken-consumer`)).toEqual({ ...conformant(['CON-1', 'CON-4', 'CX-2', 'CX-3', 'CX-4']), 'CON-2': 'non-conformant', 'CON-3': 'non-conformant', 'CX-1': 'non-conformant' });
    }, 200000);
  };

  describe('Python (clients/python)', () => {
    test('installs with pip from the repository (generated at build from clients/openapi.json), passes mypy --strict and its unit tests', async () => {
      await sh(PYTHON, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--no-build-isolation', '--force-reinstall', join(ROOT, 'clients', 'python')]);
      const version = await sh(PYTHON, ['-c', 'import importlib.metadata as m; print(m.version("pcx-client"))']);
      expect(version.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'clients', 'openapi.json'), 'utf8')).info.version);
      expect(await sh(PYTHON, ['-m', 'mypy', '--strict', '--config-file', join(ROOT, 'clients', 'python', 'pyproject.toml'), join(ROOT, 'clients', 'python', 'src'), join(ROOT, 'clients', 'python', 'examples')])).toMatch(/^Success: no issues found/m);
      expect(await sh(PYTHON, ['-m', 'unittest', 'discover', '-s', join(ROOT, 'clients', 'python', 'tests')])).toMatch(/\nOK/);
    }, 300000);

    test('python: the example connector gets its tokens by private_key_jwt (ES256) and conforms to the publisher profile', async () => {
      const connector = await keyedConnector('python-keyed', generateConnectorKey().privateJwk);
      const report = await certifyWithKey([PYTHON, join(ROOT, 'clients', 'python', 'examples', 'carrier_connector.py')], connector);
      expect(verdicts(report, 'python-keyed-publisher')).toEqual(conformant(PROFILE_CHECKS.publisher));
    }, 150000);

    certification(
      'python',
      () => [PYTHON, join(ROOT, 'clients', 'python', 'examples', 'carrier_connector.py')],
      (name) => [PYTHON, join(ROOT, 'test', 'fixtures', 'python', `broken_${name}.py`)],
    );

    test("python: WebhookReceiver verifies the broker's own signatures (Standard Webhooks, during a rotation) and refuses a changed body or another secret", async () => {
      await verifiesDeliveries('python', (file, secrets) => sh(PYTHON, [join(ROOT, 'test', 'fixtures', 'python', 'verify_delivery.py'), file, ...secrets]));
    }, 60000);
  });

  describe('Java (clients/java)', () => {
    let classpath = '';

    test('builds with the JDK and Debian\'s libraries (generated by openapi-generator from clients/openapi.json) and passes its self-test', async () => {
      await sh('bash', [join(ROOT, 'clients', 'java', 'build.sh')]);
      classpath = readFileSync(join(ROOT, 'clients', 'java', 'build', 'classpath.txt'), 'utf8').trim();
      const manifest = await sh('unzip', ['-p', join(ROOT, 'clients', 'java', 'build', 'pcx-client.jar'), 'META-INF/MANIFEST.MF']);
      expect(manifest).toContain(`Implementation-Version: ${JSON.parse(readFileSync(join(ROOT, 'clients', 'openapi.json'), 'utf8')).info.version}`);
      expect(await sh('java', ['-cp', classpath, 'org.pcx.connector.SelfTest'])).not.toMatch(/FAIL/);
    }, 300000);

    test('java: the example connector gets its tokens by private_key_jwt (EdDSA) and conforms to the publisher profile', async () => {
      const { privateKey } = generateKeyPairSync('ed25519');
      const jwk = privateKey.export({ format: 'jwk' }) as PrivateJwk;
      const connector = await keyedConnector('java-keyed', { ...jwk, kid: publicOf(jwk).kid, alg: 'EdDSA' } as PrivateJwk);
      const report = await certifyWithKey(['java', '-cp', classpath, 'org.pcx.examples.CarrierConnector'], connector);
      expect(verdicts(report, 'java-keyed-publisher')).toEqual(conformant(PROFILE_CHECKS.publisher));
    }, 150000);

    certification(
      'java',
      () => ['java', '-cp', classpath, 'org.pcx.examples.CarrierConnector'],
      (name) => ['java', '-cp', classpath, join(ROOT, 'test', 'fixtures', 'java', `Broken${name[0].toUpperCase()}${name.slice(1)}.java`)],
    );

    test("java: WebhookReceiver verifies the broker's own signatures (Standard Webhooks, during a rotation) and refuses a changed body or another secret", async () => {
      await verifiesDeliveries('java', (file, secrets) => sh('java', ['-cp', classpath, join(ROOT, 'test', 'fixtures', 'java', 'VerifyDelivery.java'), file, ...secrets]));
    }, 60000);
  });
});
