// The round trip of issue 28 through the adapter gateway, on the embedded engines (the broker's
// read model on PGlite in this project, the gateway's own database on PGlite, its default): a
// shipper's IFTMIN dropped into its mailbox becomes a published load request; a carrier's
// spreadsheet becomes offers; the match is proposed, accepted, tendered and handed over (the
// carrier's system acknowledges with its trip number); the carrier's EPCIS events and IFTSTA
// status report come back to the shipper as IFTSTA in its outbound folder, carrying the shipper's
// own consignment number; the delivery reports the outcome that completes the movement. Midway the
// gateway is stopped: a milestone the carrier's TMS reports meanwhile (JSON API) reaches the
// shipper after the restart, which also moves the shipper to EPCIS for what follows (GS1's schema
// holds every notice). Every file is one of the examples a reader drops by hand (examples/), given
// numbers of this run; the status messages' times are told again within this run's minutes, in
// their order (test/example-times.ts: the exchange records nothing before the movement or ahead
// of its clock).
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayConfig, ServedOrganization } from '../gateway/config';
import { startGateway } from '../gateway/main';
import { validator } from '../gateway/epcis/schema';
import { activeRelationship, Connector, ENGINE, freshOrgs, listAll, sleep, testEnv } from './helpers';
import { ROOT as ROOT_DIR } from './stack';
import { handoverBody } from './execution-handovers.fixtures';
import { decide, waitFor, waitProposals } from './matching-fixtures';
import { issuedTender, tenderCommand } from './tenders.fixtures';
import { retimedEdifact, retimedEpcis } from './example-times';

jest.setTimeout(180_000);

const run = Date.now().toString(36).toUpperCase();
const CONSIGNMENT = `BS-${run}`;
const TRIP = `TR-${run}`;
const example = (path: string) => readFileSync(join(ROOT_DIR, 'examples', path), 'latin1');

const [shipperOrg, carrierOrg] = freshOrgs(2);
const dir = mkdtempSync(join(tmpdir(), 'pcx-roundtrip-'));
const env = testEnv();
// The demo organizations' own settings (config/gateway.json), given this run's organizations.
const DEMO: ServedOrganization[] = JSON.parse(readFileSync(join(ROOT_DIR, 'config', 'gateway.json'), 'utf8'));
const settingsOf = (demoId: string, org: { id: string; clientId: string; secret: string }): ServedOrganization => ({ ...DEMO.find((o) => o.organizationId === demoId)!, organizationId: org.id, clientId: org.clientId, clientSecret: org.secret });
const shipperSettings = settingsOf('org-baltic-shippers', shipperOrg);
const carrierSettings = settingsOf('org-alpine-freight', carrierOrg);
const config: GatewayConfig = {
  brokerUrl: env.baseUrl,
  host: '127.0.0.1',
  port: 0,
  dataDir: join(dir, 'gateway'),
  databaseUrl: undefined,
  mailboxRoot: join(dir, 'mailboxes'),
  mailboxPollMs: 100,
  workflowBundleFile: process.env.GATEWAY_WORKFLOW_BUNDLE_FILE || undefined,
  temporal: { address: env.temporalAddress, namespace: 'default', taskQueue: `gateway-roundtrip-${ENGINE}-${process.pid}` },
  maxMessageBytes: 1_000_000,
  push: { allowCidrs: [] },
  consoleOrigins: [],
  operatorOrganizations: [],
  feedPollMs: 200,
  contentRetentionDays: 365,
  organizations: [shipperSettings, carrierSettings],
};

let gateway: Awaited<ReturnType<typeof startGateway>>;
let shipper: Connector;
let carrier: Connector;
beforeAll(async () => {
  gateway = await startGateway(config);
  [shipper, carrier] = await Promise.all([Connector.of(shipperOrg), Connector.of(carrierOrg)]);
  await activeRelationship(carrier, shipper);
});
afterAll(() => gateway?.stop());

/** Drops a file into an organization's mailbox as SFTP senders do: written under a dot name, then renamed. */
function drop(org: string, name: string, content: string | Buffer) {
  const inDir = join(config.mailboxRoot, org, 'in');
  writeFileSync(join(inDir, `.${name}`), typeof content === 'string' ? Buffer.from(content, 'latin1') : content);
  renameSync(join(inDir, `.${name}`), join(inDir, name));
}

async function waitForFile(path: string, ms = 60_000): Promise<string> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (existsSync(path)) return readFileSync(path, 'utf8');
    await sleep(100);
  }
  throw new Error(`no ${path} after ${ms} ms`);
}

const outOf = (org: string) => join(config.mailboxRoot, org, 'out');

test('IFTMIN to a published request, offers, match, tender, handover; the carrier’s status comes back to the shipper as IFTSTA with its consignment number; the delivery completes the movement', async () => {
  // 1. The shipper's transport instruction, dropped into its mailbox.
  drop(shipperOrg.id, 'instruction.edi', example('edifact/transport-instruction.edi').replace(/BS-2031-0001/g, CONSIGNMENT));
  const aperak = await waitForFile(join(outOf(shipperOrg.id), 'instruction.aperak.edi'));
  expect(aperak).toMatch(/BGM\+313\+[^']*\+29'/);
  const [request] = (await listAll(shipper, '/load-requests')).filter((r: any) => r.externalReferences?.some((x: any) => x.value === CONSIGNMENT));
  expect(request).toEqual(expect.objectContaining({ status: 'published', pickupArea: { kind: 'unlocode', code: 'SEGOT' }, deliveryArea: { kind: 'unlocode', code: 'DEHAM' } }));

  // 2. The carrier's free trucks: its daily export, dropped as it is.
  drop(carrierOrg.id, 'free-trucks.csv', readFileSync(join(ROOT_DIR, 'examples', 'spreadsheet', 'free-trucks.csv')));
  const result = await waitForFile(join(outOf(carrierOrg.id), 'free-trucks.result.csv'));
  // Five trucks, five offers published (the one for the shipper's lane may be proposed already).
  const offers = await listAll(carrier, '/capacity-offers');
  expect(offers).toHaveLength(5);
  expect(offers.every((o: any) => ['published', 'proposed', 'partiallyMatched'].includes(o.status))).toBe(true);
  const offer = offers.find((o: any) => o.originArea.code === 'SEGOT');
  expect(offer).toEqual(expect.objectContaining({ destinationArea: { kind: 'unlocode', code: 'DEHAM' }, restrictedDetails: { price: { amount: 950, currency: 'EUR' } } }));
  expect(result).toContain(offer.id);

  // 3. Proposed, accepted by both, tendered, committed, handed over; the carrier's system imports it as its trip.
  const [proposal] = await waitProposals(shipper, `request=${request.id}`);
  expect(proposal.capacityOfferId).toBe(offer.id);
  const first = (await decide(shipper, proposal, 'accept')).body;
  const accepted = (await decide(carrier, first, 'accept')).body;
  expect(accepted.decisionState).toBe('COMMITTED');
  const { tender } = await issuedTender({ shipper, carrier, proposal: accepted } as any);
  // The relationship's policy is bilateral: both accept the revision.
  const byCarrier = (await tenderCommand(carrier, tender, 'decisions', { decision: 'accept', revision: 1 })).body;
  const committed = (await tenderCommand(shipper, byCarrier, 'decisions', { decision: 'accept', revision: 1 })).body;
  expect(committed.status).toBe('accepted');
  const commitment = (await shipper.get(`/transport-commitments/${committed.commitmentId}`)).body;
  const handover = await shipper.post('/execution-handovers', handoverBody(commitment, 'Kaistraße 7, Tor 3', { sourceExternalReferences: [{ system: 'edifact:5790000000005', type: 'BGM+610', value: CONSIGNMENT }] }));
  expect(handover.status).toBe(201);
  const imported = await carrier.post(`/execution-handovers/${handover.body.id}/acknowledgements`, { outcome: 'imported', destinationExternalReference: { system: 'alpine-tms', type: 'trip', value: TRIP } });
  expect(imported.status).toBe(200);
  const [reference] = await listAll(carrier, "/execution-references", `proposal=${accepted.id}`);

  // 4. The carrier's status report (its system's IFTSTA), once the gateway knows the trip.
  await waitFor('the carrier gateway to learn the trip', async () => {
    const known = await fetch(`${gateway.url}/mappings?resourceId=${reference.id}`, { headers: { authorization: `Bearer ${carrier.token}` } }).then((r) => r.json());
    return known.items.some((m: any) => m.value === TRIP) || undefined;
  });
  // Its dispatch system's IFTSTA (picked up, delayed: the delivery is told by the track-and-trace below).
  const statusReport = example('edifact/status-report.edi').replace(/TR-2031-0001/g, TRIP).replace(/BS-2031-0001/g, CONSIGNMENT);
  const reported = statusReport.replace(/STS\+1\+21'[^]*?(?=UNT)/, '').replace('UNT+19+1', 'UNT+15+1');
  drop(carrierOrg.id, 'status.edi', retimedEdifact(reported, 'Europe/Vienna', new Date(reference.createdAt), new Date()));
  const statusAperak = await waitForFile(join(outOf(carrierOrg.id), 'status.aperak.edi'));
  expect(statusAperak).toMatch(/BGM\+313\+[^']*\+29'/);
  // The shipper is told the first report as IFTSTA: picked up and delayed.
  const iftstaOut = () => readdirSync(outOf(shipperOrg.id)).filter((f) => f.endsWith('.iftsta.edi'));
  await waitFor('two IFTSTA in the shipper’s out folder', async () => (iftstaOut().length >= 2 ? true : undefined));

  // 5. Downtime: the gateway stops; the carrier's TMS reports a milestone over the JSON API
  // meanwhile; the gateway comes back, now telling the shipper in EPCIS (its new outbound format),
  // and writes the notice it missed from where its feed cursor stopped.
  await gateway.stop();
  const missed = await carrier.post('/execution-updates', { executionReferenceId: reference.id, milestone: 'atPickup', occurredAt: new Date().toISOString(), deduplicationKey: `missed-${run}` });
  expect(missed.status).toBe(201);
  shipperSettings.outbound = { ...shipperSettings.outbound, milestones: 'epcis' };
  gateway = await startGateway(config);
  const validEpcis = validator();
  const epcisOut = () => readdirSync(outOf(shipperOrg.id)).filter((f) => f.endsWith('.epcis.json'));
  const missedNotice = JSON.parse(await waitForFile(join(outOf(shipperOrg.id), `${missed.body.id}.epcis.json`)));
  expect(validEpcis(missedNotice)).toBe(true);
  expect(missedNotice.epcisBody.eventList[0]).toEqual(expect.objectContaining({ bizStep: expect.stringContaining('atPickup'), 'pcx:executionReferenceId': reference.id }));
  expect(JSON.stringify(missedNotice.epcisBody.eventList[0].bizTransactionList)).toContain(CONSIGNMENT);

  // 6. The carrier's track-and-trace's EPCIS events, sent over HTTP with its own token (told after
  // the missed milestone: a second of this run stands for its days). Its repository writes the trip
  // and consignment numbers in lower case: the movement is found whatever the case of a reference.
  const after = Date.parse(missed.body.occurredAt) + 1;
  await sleep(Math.max(0, after + 1000 - Date.now()));
  const events = await fetch(`${gateway.url}/messages/epcis`, {
    method: 'POST',
    headers: { authorization: `Bearer ${carrier.token}`, 'content-type': 'application/ld+json' },
    body: retimedEpcis(example('epcis/track-and-trace.jsonld').replace(/TR-2031-0001/g, TRIP.toLowerCase()).replace(/BS-2031-0001/g, CONSIGNMENT.toLowerCase()), new Date(after), new Date()),
  });
  const entry = await events.json();
  expect(entry).toEqual(expect.objectContaining({ status: 'acknowledged', submitted: expect.objectContaining({ kind: 'created' }) }));
  expect(entry.submitted.milestones.map((m: any) => m.executionReferenceId)).toEqual(Array(5).fill(reference.id));

  // 7. The shipper was told each milestone once, in the format it read at the time, each with its own consignment number.
  const notices = await waitFor('six EPCIS documents in the shipper’s out folder', async () => {
    const files = epcisOut();
    return files.length >= 6 ? files.map((f) => JSON.parse(readFileSync(join(outOf(shipperOrg.id), f), 'utf8'))) : undefined;
  });
  expect(notices).toHaveLength(6);
  for (const notice of notices) {
    expect(validEpcis(notice)).toBe(true);
    expect(JSON.stringify(notice.epcisBody.eventList[0].bizTransactionList)).toContain(CONSIGNMENT);
  }
  const iftsta = iftstaOut().map((f) => readFileSync(join(outOf(shipperOrg.id), f), 'utf8'));
  expect(iftsta).toHaveLength(2);
  for (const notice of iftsta) expect(notice).toContain(`CNI+1+${CONSIGNMENT}'`);
  expect(iftsta.map((n) => /STS\+1\+(\d+)/.exec(n)?.[1]).sort()).toEqual(['13', '20']);
  // The missed one, then the track-and-trace's: picked up (the loading scan), departed and under way, arrived, delivered.
  expect(notices.map((n) => n.epcisBody.eventList[0]['pcx:milestone']).sort()).toEqual(['atDelivery', 'atPickup', 'delivered', 'inTransit', 'inTransit', 'pickedUp'].sort());

  // 8. The delivery reported the outcome: the movement is completed.
  const done = await waitFor('the reference to complete', async () => {
    const r = (await shipper.get(`/execution-references/${reference.id}`)).body;
    return r.status === 'completed' ? r : undefined;
  });
  expect(done.currentMilestone.milestone).toBe('delivered');
  const status = await fetch(`${gateway.url}/status`, { headers: { authorization: `Bearer ${shipper.token}` } }).then((r) => r.json());
  // Counted since the restart: the missed notice and the track-and-trace's.
  expect(status.feed).toEqual(expect.objectContaining({ noticesWritten: 6 }));
});
