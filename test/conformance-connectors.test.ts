// The conformance kit's connector profiles against `npm start` (the sandbox on its embedded
// defaults, with the demo organizations; the run's shared start, test/setup/stack-setup.ts, with
// what other files left among them ended first): the example carrier connector conforms to Publisher,
// Consumer, Outcome provider and Full reference client; deliberately broken connectors are
// reported non-conformant on exactly the checks their faults break (docs/conformance.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { npmStartFor, ROOT, type NpmStartForFile } from './stack';
import { testEnv } from './helpers';
import { runConnectorProfile, type ConnectorProfile } from '../conformance/src/connector/run';
import { writeReport, type Report } from '../conformance/src/report';

const clients = JSON.parse(readFileSync(join(ROOT, 'conformance', 'demo-clients.json'), 'utf8'));
const [alpine, baltic, cargo] = clients.organizations;
/** The report's verdicts by check id; the report kept as a test artifact, as a participant would publish it. */
const verdicts = (report: Report, name = report.profile) => {
  writeReport(report, join(testEnv().dir, 'artifacts', 'conformance', `${name}-${Date.now()}`));
  return Object.fromEntries(report.families.flatMap((f) => f.checks).map((c) => [c.id, c.verdict]));
};
const conformant = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, 'conformant']));

describe("the kit's connector profiles, against npm start", () => {
  let start: NpmStartForFile | undefined;
  let base = '';

  beforeAll(async () => {
    start = await npmStartFor(testEnv(), 'conformance-connectors');
    base = start.base;
  }, 150000);

  afterAll(async () => {
    if (start) expect(await start.stop()).toBe(0);
  }, 30000);

  /** The example carrier connector (alpine-tms) under a profile, Baltic played by the kit. */
  const example = (profile: ConnectorProfile) =>
    runConnectorProfile(profile, {
      baseUrl: base,
      operator: clients.operator,
      organization: alpine,
      counterpart: baltic,
      connectorClientId: alpine.clientId,
      command: [process.execPath, '--import', 'tsx', join(ROOT, 'examples', 'carrier', 'connector.ts'), '--base-url', base, '--client-id', alpine.clientId],
      env: { PCX_CLIENT_SECRET: alpine.clientSecret },
      seconds: 90,
      cwd: ROOT,
    });

  /** A broken test double (test/fixtures/) as Cargo Co-op's connector, Baltic played by the kit. */
  const broken = (profile: ConnectorProfile, fixture: string, seconds: number) =>
    runConnectorProfile(profile, {
      baseUrl: base,
      operator: clients.operator,
      organization: cargo,
      counterpart: baltic,
      connectorClientId: cargo.clientId,
      command: [process.execPath, '--import', 'tsx', join(ROOT, 'test', 'fixtures', fixture)],
      env: { PCX_CLIENT_ID: cargo.clientId, PCX_CLIENT_SECRET: cargo.clientSecret },
      seconds,
      cwd: ROOT,
    });

  test('Publisher: the example connector conforms; a broken publisher fails exactly on its retry key and its impatience', async () => {
    const good = await example('publisher');
    expect(verdicts(good)).toEqual(conformant(['PUB-1', 'CX-1', 'CX-2', 'CX-3', 'CX-4']));
    const bad = await broken('publisher', 'broken-publisher.ts', 20);
    expect(verdicts(bad, 'broken-publisher')).toEqual({ ...conformant(['PUB-1', 'CX-3', 'CX-4']), 'CX-1': 'non-conformant', 'CX-2': 'non-conformant' });
    expect(bad.failedMandatory).toEqual(['CX-1', 'CX-2']);
  }, 150000);

  test('Consumer: the example connector conforms over a feed served late, reversed and twice; a broken consumer fails exactly on its keys, its 409s and the stale event', async () => {
    const good = await example('consumer');
    expect(verdicts(good)).toEqual(conformant(['CON-1', 'CON-2', 'CON-3', 'CON-4', 'CX-1', 'CX-2', 'CX-3', 'CX-4']));
    const bad = await broken('consumer', 'broken-consumer.ts', 60);
    expect(verdicts(bad, 'broken-consumer')).toEqual({ ...conformant(['CON-1', 'CON-4', 'CX-2', 'CX-3', 'CX-4']), 'CON-2': 'non-conformant', 'CON-3': 'non-conformant', 'CX-1': 'non-conformant' });
    expect(bad.failedMandatory.sort()).toEqual(['CON-2', 'CON-3', 'CX-1']);
  }, 200000);

  test('Outcome provider: the example connector reports milestones, an outcome retried on one key, and its correction', async () => {
    const good = await example('outcome-provider');
    expect(verdicts(good)).toEqual(conformant(['OUT-1', 'OUT-2', 'OUT-3', 'CX-1', 'CX-2', 'CX-3', 'CX-4']));
  }, 150000);

  test('Full reference client: the example connector on the SDK conforms to every connector check, from its offer to the corrected outcome', async () => {
    const good = await example('full');
    expect(verdicts(good)).toEqual(conformant(['PUB-1', 'CON-1', 'CON-2', 'CON-3', 'CON-4', 'TEN-1', 'TEN-2', 'OUT-1', 'OUT-2', 'OUT-3', 'CX-1', 'CX-2', 'CX-3', 'CX-4']));
    expect(good.summary).toMatch(/^full profile: conformant; 14 checks: 14 conformant, 0 non-conformant, 0 no traffic; mandatory failing: none$/);
  }, 150000);
});
