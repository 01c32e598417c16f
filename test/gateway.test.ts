// The adapter gateway against the running broker (its own database on PostgreSQL here; on PGlite,
// its default, in test/gateway-crash.test.ts): a shipper's real IFTMIN dropped into
// its mailbox, or sent over HTTP with its own exchange token, becomes its published load request
// and comes back as CONTRL and APERAK; a message that cannot be acted on is quarantined with its
// reason and position and changes nothing at the exchange; every organization sees only its own
// messages, acknowledgements and quarantine, and a message can never act for another organization.
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayConfig } from '../gateway/config';
import { startGateway } from '../gateway/main';
import { Webhook } from 'standardwebhooks';
import { Connector, db, ENGINE, freshOrgs, listAll, sleep, testEnv } from './helpers';
import { testCertificates } from './tls';
import { startReceiver, type Receiver } from './webhook-receiver';
import { asInterchange, BARGE, fixture, moved } from './edifact-fixtures';

jest.setTimeout(120_000);

/** The barge instruction moved into the coming weeks, its contradicting latest delivery (DTM+63) left out. */
const bargeNextMonth = (reference: string) => {
  const days = Math.ceil((Date.now() - Date.UTC(2019, 8, 20)) / 86_400_000) + 10;
  return asInterchange(moved(fixture(BARGE), days, [/DTM\+63:[^']*'\n?/]).replace('BGM+340+467332+9', `BGM+340+${reference}+9`), reference);
};

const [shipper, other, lonely] = freshOrgs(3);
const dir = mkdtempSync(join(tmpdir(), 'pcx-gateway-'));
// Push targets: a local HTTPS receiver (a test authority's certificate; 127.0.0.1 allowed as the webhooks' rules allow it in tests).
const certificates = testCertificates();
writeFileSync(join(dir, 'ca.pem'), certificates.ca);
const PUSH_SECRET = `whsec_${Buffer.from('gateway-push-test-secret-0123456789').toString('base64')}`;
const env = testEnv();
const config: GatewayConfig = {
  brokerUrl: env.baseUrl,
  host: '127.0.0.1',
  port: 0,
  dataDir: join(dir, 'gateway'),
  databaseUrl: ENGINE === 'postgres' ? env.databaseUrl : undefined,
  mailboxRoot: join(dir, 'mailboxes'),
  mailboxPollMs: 100,
  workflowBundleFile: process.env.GATEWAY_WORKFLOW_BUNDLE_FILE || undefined,
  temporal: { address: env.temporalAddress, namespace: 'default', taskQueue: `gateway-test-${ENGINE}-${process.pid}` },
  maxMessageBytes: 200_000,
  push: { allowCidrs: ['127.0.0.1/32'], caFile: join(dir, 'ca.pem') },
  consoleOrigins: [],
  operatorOrganizations: ['org-operator'],
  feedPollMs: 200,
  contentRetentionDays: 365,
  organizations: [
    {
      organizationId: shipper.id,
      clientId: shipper.clientId,
      clientSecret: shipper.secret,
      edifact: { senderIds: ['ICT'] },
      loadRequests: { publish: true, visibility: { mode: 'open' }, bodyTypes: ['curtainsider'], goodsCategory: 'chemicals', timeZone: 'Europe/Amsterdam', pointTimeMinutes: 120 },
      epcis: { glns: ['4012345000009'] },
    },
    {
      organizationId: other.id,
      clientId: other.clientId,
      clientSecret: other.secret,
      edifact: { senderIds: ['OTHER-GLN'] },
      loadRequests: { publish: false },
      epcis: { glns: ['9110000000007'] },
      spreadsheet: { publish: false, timeZone: 'Europe/Vienna', columns: { reference: 'Truck', origin: 'From', destination: 'To', availableFrom: 'Free from', availableUntil: 'Free until', pallets: 'Pallets' }, bodyType: 'curtainsider' },
    },
    {
      // Publishes to named partners it has no relationship with: the exchange refuses the publish.
      organizationId: lonely.id,
      clientId: lonely.clientId,
      clientSecret: lonely.secret,
      edifact: { senderIds: ['LONELY'] },
      loadRequests: { publish: true, visibility: { mode: 'partners', organizationIds: [shipper.id] }, bodyTypes: ['curtainsider'], goodsCategory: 'chemicals', timeZone: 'Europe/Amsterdam', pointTimeMinutes: 120 },
      spreadsheet: { publish: true, visibility: { mode: 'partners', organizationIds: [shipper.id] }, timeZone: 'Europe/Vienna', columns: { reference: 'Truck', origin: 'From', destination: 'To', availableFrom: 'Free from', availableUntil: 'Free until', pallets: 'Pallets' }, bodyType: 'curtainsider' },
    },
  ],
};

let gateway: Awaited<ReturnType<typeof startGateway>>;
let a: Connector;
let b: Connector;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver(certificates);
  // The shipper's notices go to the receiver; the other's to a private address the rules refuse.
  (config.organizations[0] as any).outbound = { push: { url: receiver.url('/edi'), secret: PUSH_SECRET } };
  (config.organizations[1] as any).outbound = { push: { url: 'https://10.1.2.3/edi' } };
  gateway = await startGateway(config);
  [a, b] = await Promise.all([Connector.of(shipper), Connector.of(other)]);
});
afterAll(async () => {
  await gateway?.stop();
  await receiver?.close();
});

/** A call to the gateway; a message given as text is sent as the bytes the fixture had (read as ISO 8859-1, one character per byte). */
const gw = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${gateway.url}${path}`, { ...init, ...(typeof init.body === 'string' ? { body: Buffer.from(init.body, 'latin1') } : {}), headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
const requestsOf = async (c: Connector, reference: string) =>
  (await listAll(c, '/load-requests')).filter((r: any) => (r.externalReferences ?? []).some((x: any) => x.type === 'BGM+340' && x.value === reference));

/** Drops a file into an organization's mailbox as SFTP senders do: written under a dot name, then renamed. */
function drop(org: string, name: string, content: string) {
  writeFileSync(join(config.mailboxRoot, org, 'in', `.${name}`), content, 'latin1');
  renameSync(join(config.mailboxRoot, org, 'in', `.${name}`), join(config.mailboxRoot, org, 'in', name));
}

async function waitForFile(path: string, ms = 60_000): Promise<string> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (existsSync(path)) return readFileSync(path, 'utf8');
    await sleep(100);
  }
  throw new Error(`no ${path} after ${ms} ms`);
}

test('an IFTMIN dropped into the mailbox becomes the published load request; CONTRL and APERAK come back', async () => {
  const reference = `MB${Date.now()}`;
  drop(shipper.id, 'barge.edi', bargeNextMonth(reference));
  const out = join(config.mailboxRoot, shipper.id, 'out');
  const contrl = await waitForFile(join(out, 'barge.contrl.edi'));
  const aperak = await waitForFile(join(out, 'barge.aperak.edi'));
  expect(contrl).toContain(`UCI+${reference.slice(-14)}+ICT+DCH+7'`);
  expect(aperak).toMatch(/BGM\+313\+[^']*\+29'/);
  const [request] = await requestsOf(a, reference);
  expect(aperak).toContain(`load request ${request.id} published`);
  expect(request).toEqual(
    expect.objectContaining({
      status: 'published',
      ownerOrganizationId: shipper.id,
      pickupArea: { kind: 'unlocode', code: 'NLRTM' },
      deliveryArea: { kind: 'unlocode', code: 'ZADUR' },
      requiredCapacity: { weight: { value: 10010, unitCode: 'KGM' } },
    }),
  );
  expect(request.externalReferences).toEqual(expect.arrayContaining([{ system: 'edifact:ICT', type: 'BGM+340', value: reference }]));
  expect(readdirSync(join(config.mailboxRoot, shipper.id, 'in'))).toEqual([]); // taken
});

test('over HTTP with the organization token: the entry and its acknowledgements; a retry is the same entry and creates nothing more', async () => {
  const reference = `HT${Date.now()}`;
  const body = bargeNextMonth(reference);
  const first = await gw('/messages/edifact', a.token, { method: 'POST', body, headers: { 'idempotency-key': reference } });
  expect(first.status).toBe(200);
  const entry = await first.json();
  expect(entry).toEqual(expect.objectContaining({ status: 'acknowledged', transport: 'http', submitted: expect.objectContaining({ kind: 'created' }) }));
  expect(entry.acknowledgements.map((x: any) => x.kind)).toEqual(['contrl', 'aperak']);
  const again = await gw('/messages/edifact', a.token, { method: 'POST', body, headers: { 'idempotency-key': reference } });
  expect((await again.json()).id).toBe(entry.id);
  expect(await requestsOf(a, reference)).toHaveLength(1);
  // The same key with another message is a conflict, not a second message.
  const conflict = await gw('/messages/edifact', a.token, { method: 'POST', body: body.replace(reference, `${reference}X`), headers: { 'idempotency-key': reference } });
  expect(conflict.status).toBe(409);
});

test('a message that cannot be acted on is quarantined with its reason and position, answered, and changes nothing', async () => {
  // The barge instruction as published: its estimated arrival lies after its latest delivery.
  const contradicting = fixture(BARGE).replace('BGM+340+467332+9', `BGM+340+Q${Date.now()}+9`);
  const reply = await gw('/messages/edifact', a.token, { method: 'POST', body: contradicting });
  const entry = await reply.json();
  expect(entry.status).toBe('acknowledged');
  expect(entry.quarantine).toEqual([expect.objectContaining({ code: 'WINDOW_CONFLICT', position: 'segment 5 (DTM), element 1' })]);
  expect(entry.acknowledgements.find((x: any) => x.kind === 'aperak').content).toMatch(/BGM\+313\+[^']*\+27'.*ERC\+12'/s);
  const quarantine = await (await gw('/quarantine', a.token)).json();
  expect(quarantine.items).toEqual(expect.arrayContaining([expect.objectContaining({ inboxId: entry.id, reasons: entry.quarantine })]));
  // A real sender's syntax error: CONTRL rejects it at the segment.
  const nl = await (await gw('/messages/edifact', a.token, { method: 'POST', body: fixture('iftmin_d96a_nl-road-delivery_assimbly.edi') })).json();
  expect(nl.acknowledgements.map((x: any) => x.kind)).toEqual(['contrl']);
  expect(nl.acknowledgements[0].content).toContain("UCS+25+29'");

  // Correct and release: the corrected message takes the path of a new one; the held one points at it.
  const reference = `RL${Date.now()}`;
  expect((await gw(`/quarantine/${entry.id}/release`, b.token, { method: 'POST', body: bargeNextMonth(reference) })).status).toBe(404); // not the other's
  const released = await gw(`/quarantine/${entry.id}/release`, a.token, { method: 'POST', body: bargeNextMonth(reference) });
  expect(released.status).toBe(200);
  const replacement = await released.json();
  expect(replacement).toEqual(expect.objectContaining({ status: 'acknowledged', submitted: expect.objectContaining({ kind: 'created' }) }));
  expect(await requestsOf(a, reference)).toHaveLength(1);
  const after = (await (await gw('/quarantine', a.token)).json()).items.find((i: any) => i.inboxId === entry.id);
  expect(after).toEqual(expect.objectContaining({ state: 'released', releasedAs: replacement.id }));
  expect((await gw(`/quarantine/${entry.id}/release`, a.token, { method: 'POST', body: bargeNextMonth(reference) })).status).toBe(409);
  // Or discarded, for good.
  const discarded = await gw(`/quarantine/${nl.id}/discard`, a.token, { method: 'POST' });
  expect(((await discarded.json()) as any).state).toBe('discarded');
});

test('the same interchange again under another file name is held as a duplicate (CONTRL 26) and creates nothing more', async () => {
  const reference = `DUP${Date.now()}`;
  const out = join(config.mailboxRoot, shipper.id, 'out');
  drop(shipper.id, 'first.edi', bargeNextMonth(reference));
  await waitForFile(join(out, 'first.aperak.edi'));
  // The sender's system resends it, regenerated (another preparation time) under another name.
  drop(shipper.id, 'again.edi', bargeNextMonth(reference).replace(/(UNB\+[^+]*\+[^+]*\+[^+]*\+)\d{6}:\d{4}/, '$1261206:2359'));
  const contrl = await waitForFile(join(out, 'again.contrl.edi'));
  expect(contrl).toContain(`UCI+${reference.slice(-14)}+ICT+DCH+4+26'`);
  expect(existsSync(join(out, 'again.aperak.edi'))).toBe(false);
  expect(await requestsOf(a, reference)).toHaveLength(1);
  const held = (await (await gw('/quarantine', a.token)).json()).items.find((i: any) => i.name === 'again.edi' && i.reasons[0].code === 'DUPLICATE_TRANSMISSION');
  expect(held.reasons[0]).toEqual(expect.objectContaining({ position: 'segment 1 (UNB), element 5', message: expect.stringContaining(`interchange ${reference.slice(-14)} of sender ICT`) }));
  // Over HTTP, the same: one interchange reference of a sender is acted on once, whatever the channel.
  const http = await (await gw('/messages/edifact', a.token, { method: 'POST', body: bargeNextMonth(reference), headers: { 'idempotency-key': `${reference}-http` } })).json();
  expect(http.quarantine).toEqual([expect.objectContaining({ code: 'DUPLICATE_TRANSMISSION' })]);
  expect(await requestsOf(a, reference)).toHaveLength(1);
});

test('a load request the exchange refuses to publish is withdrawn before the refusal is answered: no draft stays behind', async () => {
  const reference = `NP${Date.now()}`;
  const c = await Connector.of(lonely);
  // The barge instruction as the lonely shipper's own (its identity wherever the shipper's ICT was).
  const message = bargeNextMonth(reference).replace(/([+:])ICT([+:'])/g, '$1LONELY$2');
  const entry = await (await gw('/messages/edifact', c.token, { method: 'POST', body: message, headers: { 'idempotency-key': reference } })).json();
  expect({ quarantine: entry.quarantine, submitted: entry.submitted }).toEqual({ quarantine: undefined, submitted: expect.objectContaining({ kind: 'refused', problem: expect.objectContaining({ code: 'RELATIONSHIP_INACTIVE' }) }) });
  expect(entry.acknowledgements.find((x: any) => x.kind === 'aperak').content).toMatch(/BGM\+313\+[^']*\+27'/);
  const left = await requestsOf(c, reference);
  expect(left.map((r: any) => r.status)).toEqual(['withdrawn']);
  // A spreadsheet's row the same: its offer's publish refused, its draft withdrawn.
  const truck = `T${Date.now()}`;
  const sheet = `Truck;From;To;Free from;Free until;Pallets\n${truck};DEHAM;NLRTM;2031-06-01;2031-06-02;33\n`;
  const rows = await (await gw('/messages/spreadsheet', c.token, { method: 'POST', body: sheet, headers: { 'x-message-name': 'trucks.csv' } })).json();
  expect(rows.submitted).toEqual(expect.objectContaining({ kind: 'refused', problem: expect.objectContaining({ code: 'RELATIONSHIP_INACTIVE' }) }));
  const offers = (await listAll(c, '/capacity-offers')).filter((o: any) => (o.externalReferences ?? []).some((x: any) => x.value === truck));
  expect(offers.map((o: any) => o.status)).toEqual(['withdrawn']);
  // The sender corrects its partners and resends under the same interchange reference: it was not acted on, so it is no duplicate.
  const again = await (await gw('/messages/edifact', c.token, { method: 'POST', body: message, headers: { 'idempotency-key': `${reference}-2` } })).json();
  expect(again.quarantine ?? []).toEqual([]);
});

test('settings through the API: read by the organization, replaced against their version, in force for the next message without a restart; identities stay the operator’s', async () => {
  const first = await gw('/settings', a.token);
  expect(first.headers.get('etag')).toMatch(/^"\d+"$/);
  const view = await first.json();
  expect(view).toEqual(expect.objectContaining({ organizationId: shipper.id, identities: expect.objectContaining({ edifactSenderIds: ['ICT'], epcisGlns: ['4012345000009'] }) }));
  expect(view.settings.loadRequests).toEqual(expect.objectContaining({ publish: true, timeZone: 'Europe/Amsterdam' }));
  expect(view.settings.edifact).toBeUndefined(); // its sender ids are identities, not settings
  // The other organization sees its own.
  expect((await (await gw('/settings', b.token)).json()).organizationId).toBe(other.id);

  const version = first.headers.get('etag')!;
  const drafts = { ...view.settings, loadRequests: { ...view.settings.loadRequests, publish: false } };
  const put = (body: unknown, headers: Record<string, string> = { 'if-match': version }, token = a.token) => gw('/settings', token, { method: 'PUT', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const readOnly = await Connector.of(shipper, 'loads:read');
  expect((await put(drafts, { 'if-match': version }, readOnly.token)).status).toBe(403);
  expect((await put(drafts, {})).status).toBe(428);
  const claim = await put({ ...drafts, edifact: { senderIds: ['OTHER-GLN'] } });
  expect(claim.status).toBe(400);
  expect((await claim.json()).errors).toEqual([expect.objectContaining({ pointer: '/edifact/senderIds' })]);
  const zone = await put({ ...drafts, loadRequests: { ...drafts.loadRequests, timeZone: 'Mars/Olympus' } });
  expect((await zone.json()).errors).toEqual([expect.objectContaining({ pointer: '/loadRequests/timeZone' })]);
  expect((await gw('/settings', a.token, { method: 'PUT', headers: { 'if-match': version, 'content-type': 'application/json' }, body: '{' })).status).toBe(400);

  const changed = await put(drafts);
  expect(changed.status).toBe(200);
  const next = changed.headers.get('etag')!;
  expect(next).not.toBe(version);
  expect((await put(drafts)).status).toBe(409); // the version read is gone
  // The next instruction becomes a draft: the change is in force, no restart.
  const reference = `ST${Date.now()}`;
  const entry = await (await gw('/messages/edifact', a.token, { method: 'POST', body: bargeNextMonth(reference), headers: { 'idempotency-key': reference } })).json();
  expect(entry.submitted).toEqual(expect.objectContaining({ kind: 'created', resources: [expect.objectContaining({ status: 'draft' })] }));
  // And back, for the tests after this one.
  expect((await put(view.settings, { 'if-match': next })).status).toBe(200);
});

test('isolation: a message acts only for the organization of its credential or mailbox; nobody sees another organization\'s messages', async () => {
  const reference = `ISO${Date.now()}`;
  // The shipper's interchange (sender ICT) sent with the other organization's token: quarantined for the other, nothing created.
  const sent = await (await gw('/messages/edifact', b.token, { method: 'POST', body: bargeNextMonth(reference) })).json();
  expect(sent.quarantine).toEqual([expect.objectContaining({ code: 'SENDER_NOT_ORGANIZATION' })]);
  expect(await requestsOf(a, reference)).toHaveLength(0);
  expect(await requestsOf(b, reference)).toHaveLength(0);
  // Dropped into the other organization's mailbox: the same.
  drop(other.id, 'foreign.edi', bargeNextMonth(`${reference}M`));
  await waitForFile(join(config.mailboxRoot, other.id, 'out', 'foreign.contrl.edi'));
  expect(await requestsOf(a, `${reference}M`)).toHaveLength(0);
  // Each sees its own entries and quarantine only.
  const mine = await (await gw('/quarantine', a.token)).json();
  expect(mine.items.every((i: any) => i.organizationId === shipper.id)).toBe(true);
  expect((await gw(`/messages/edifact/${sent.id}`, a.token)).status).toBe(404);
  expect((await gw(`/messages/edifact/${sent.id}`, b.token)).status).toBe(200);
  // Hostile requests: a body over the limit (refused as it streams in), an empty one, an unknown format.
  const huge = await gw('/messages/edifact', a.token, { method: 'POST', body: Buffer.alloc(config.maxMessageBytes + 1, 0x41) as any });
  expect(huge.status).toBe(413);
  expect((await huge.json()).code).toBe('PAYLOAD_TOO_LARGE');
  expect((await gw('/messages/edifact', a.token, { method: 'POST', body: '   ' })).status).toBe(400);
  expect((await gw('/messages/x12', a.token, { method: 'POST', body: 'ISA*00*' })).status).toBe(404);
  // Binary bytes (a NUL among them) over HTTP: held as no text and answered, never a 500.
  for (const format of ['edifact', 'epcis', 'spreadsheet']) {
    const binary = await gw(`/messages/${format}`, a.token, { method: 'POST', body: Buffer.concat([Buffer.from("UNA:+.? 'UNB+UNOC:3+ICT+PCX+261206:1200+B1'"), Buffer.alloc(32), Buffer.from('x')]) as any, headers: { 'idempotency-key': `binary-${format}-${Date.now()}`, 'x-message-name': format === 'spreadsheet' ? 'trucks.csv' : 'x' } });
    expect({ format, status: binary.status }).toEqual({ format, status: 200 });
    const held = await binary.json();
    expect(held.status).toBe('acknowledged');
    if (format !== 'spreadsheet') expect(held.quarantine).toEqual([expect.objectContaining({ code: 'NOT_TEXT' })]);
  }
  // Without a token, with a token the exchange refuses, or of an organization the gateway does not serve.
  expect((await fetch(`${gateway.url}/quarantine`)).status).toBe(401);
  expect((await gw('/quarantine', 'not-a-token')).status).toBe(401);
  const [stranger] = freshOrgs(1);
  expect((await gw('/quarantine', (await Connector.of(stranger)).token)).status).toBe(403);
});

test('isolation, per format and endpoint: an organization’s EPCIS and spreadsheets act only for it, never with another’s identities or mappings; its status, mappings and quarantine are its own', async () => {
  // A movement the gateway knows for the shipper only (as the feed would have taught it).
  const value = `ISO-TRIP-${Date.now()}`;
  await db().query(
    `insert into gateway_mapping (organization_id, system, type, value, resource_kind, resource_id, inbox_id) values ($1, 'tms', 'trip', $2, 'execution-reference', '01a00000-0000-7000-8000-000000000001', 'test')`,
    [shipper.id, value],
  );
  // Dated now: a status is what has happened (one dated ahead is held, below).
  const event = (gln: string, eventTime = new Date().toISOString()) => ({
    '@context': ['https://ref.gs1.org/standards/epcis/epcis-context.jsonld'],
    type: 'EPCISDocument',
    schemaVersion: '2.0',
    creationDate: eventTime,
    epcisBody: { eventList: [{ type: 'ObjectEvent', eventTime, eventTimeZoneOffset: '+00:00', epcList: [], action: 'OBSERVE', bizStep: 'departing', readPoint: { id: `https://id.gs1.org/414/${gln}` }, bizTransactionList: [{ type: 'bol', bizTransaction: `urn:epcglobal:cbv:bt:0614141000005:${value}` }] }] },
  });
  // The other organization names the shipper's trip: no movement of its own is found.
  const foreign = await (await gw('/messages/epcis', b.token, { method: 'POST', body: JSON.stringify(event('9110000000007')) })).json();
  expect(foreign.quarantine).toEqual([expect.objectContaining({ code: 'UNKNOWN_REFERENCE', position: '/epcisBody/eventList/0' })]);
  // ... and a read point that is the shipper's own location: quarantined as naming another organization.
  const naming = await (await gw('/messages/epcis', b.token, { method: 'POST', body: JSON.stringify(event('4012345000009')) })).json();
  expect(naming.quarantine).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'NAMES_OTHER_ORGANIZATION', position: '/epcisBody/eventList/0/readPoint/id' })]));
  // The shipper's own event finds its movement (the exchange then answers for that reference).
  const own = await (await gw('/messages/epcis', a.token, { method: 'POST', body: JSON.stringify(event('4012345000009')) })).json();
  expect(own.submitted.milestones).toEqual([expect.objectContaining({ executionReferenceId: '01a00000-0000-7000-8000-000000000001', problem: expect.objectContaining({ status: 404 }) })]);
  // The same event dated in 2031: held before anything is sent (the exchange records what has happened).
  const ahead = await (await gw('/messages/epcis', a.token, { method: 'POST', body: JSON.stringify(event('4012345000009', '2031-06-01T08:00:00Z')) })).json();
  expect(ahead.quarantine).toEqual([expect.objectContaining({ code: 'TIME_IN_FUTURE', position: '/epcisBody/eventList/0', message: expect.stringContaining('at 2031-06-01T08:00:00Z, after the gateway\'s now') })]);
  expect(ahead.submitted).toBeUndefined();

  // A spreadsheet naming the shipper's EDIFACT identity is quarantined at the cell; nothing is offered.
  const sheet = `Truck;From;To;Free from;Free until;Pallets\nT-1;DEHAM;NLRTM;2031-06-01;2031-06-02;33\nICT;DEHAM;NLRTM;2031-06-01;2031-06-02;33\n`;
  const csv = await (await gw('/messages/spreadsheet', b.token, { method: 'POST', body: sheet, headers: { 'x-message-name': 'trucks.csv' } })).json();
  expect(csv.quarantine).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'NAMES_OTHER_ORGANIZATION', position: 'A3' })]));
  // The shipper's credential lacks nothing but cannot read the other's held messages, mappings or status.
  expect((await gw(`/quarantine/${csv.id}`, a.token)).status).toBe(404);
  expect((await gw(`/quarantine/${csv.id}`, b.token)).status).toBe(200);
  expect((await gw(`/messages/spreadsheet/${csv.id}`, a.token)).status).toBe(404);
  const [request] = await listAll(a, '/load-requests');
  expect((await (await gw(`/mappings?resourceId=${request.id}`, b.token)).json()).items).toEqual([]);
  const status = await (await gw('/status', b.token)).json();
  expect(status.organizationId).toBe(other.id);
  expect(status.adapters.map((x: any) => x.format).sort()).toEqual(['edifact', 'epcis', 'spreadsheet']);
  const reconciled = await (await gw('/reconcile', b.token, { method: 'POST' })).json();
  expect(reconciled.organizationId).toBe(other.id);
});

test('the protocol operator lists, inspects, releases and discards every organization’s held messages, and does nothing else', async () => {
  const operator = await Connector.of({ id: 'org-operator', clientId: 'client-operator', secret: 'secret-o' });
  const reference = `OP${Date.now()}`;
  const held = await (await gw('/messages/edifact', a.token, { method: 'POST', body: fixture(BARGE).replace('BGM+340+467332+9', `BGM+340+${reference}+9`) })).json();
  expect(held.quarantine).toEqual([expect.objectContaining({ code: 'WINDOW_CONFLICT' })]);
  expect(held.status).toBe('acknowledged');
  const all = (await (await gw('/quarantine', operator.token)).json()).items;
  expect(new Set(all.map((q: any) => q.organizationId))).toEqual(new Set([shipper.id, other.id]));
  const theirs = (await (await gw(`/quarantine?organization=${other.id}`, operator.token)).json()).items;
  expect(theirs.length).toBeGreaterThan(0);
  expect(theirs.every((q: any) => q.organizationId === other.id)).toBe(true);
  expect((await (await gw(`/quarantine/${held.id}`, operator.token)).json()).content).toContain(reference);
  // Released by the operator: processed for the shipper, whose message it was.
  const released = await (await gw(`/quarantine/${held.id}/release`, operator.token, { method: 'POST', body: bargeNextMonth(reference) })).json();
  expect(released.submitted.kind).toBe('created');
  expect(await requestsOf(a, reference)).toHaveLength(1);
  // Nothing else: no messages, status or mappings of its own here.
  expect((await gw('/messages/edifact', operator.token, { method: 'POST', body: bargeNextMonth(`${reference}X`) })).status).toBe(403);
  expect((await gw('/status', operator.token)).status).toBe(403);
  // A participant holding exchange:admin is no operator.
  const pretender = await Connector.of({ id: 'org-special', clientId: 'client-pretender', secret: 'secret-p' });
  expect((await gw('/quarantine', pretender.token)).status).toBe(403);
});

test('notices go into the mailbox and, signed, to the organization’s HTTPS target under the webhooks’ target rules', async () => {
  const notice = (org: string, id: string) =>
    db().query(`insert into gateway_outbox (organization_id, inbox_id, kind, name, content) values ($1, $2, 'notice', $3, $4)`, [org, `update-${id}`, `${id}.iftsta.edi`, `UNB+UNOC:3+PCX-GATEWAY+ICT+310601:1000+${id.slice(-14)}'`]);
  const id = `push${Date.now()}`;
  await notice(shipper.id, id);
  await notice(other.id, `${id}x`);
  const [pushed] = await receiver.waitFor(1, 20_000);
  expect(pushed.path).toBe('/edi');
  expect(pushed.headers['content-type']).toBe('application/EDIFACT');
  expect(pushed.body).toContain(id.slice(-14));
  // Signed as webhooks are (Standard Webhooks): the receiver verifies with the organization's secret.
  // (Verified by signing again: the library's verify parses the body as JSON, and an IFTSTA is not.)
  const at = new Date(Number(pushed.headers['webhook-timestamp']) * 1000);
  expect(pushed.headers['webhook-signature']).toBe(new Webhook(PUSH_SECRET).sign(String(pushed.headers['webhook-id']), at, pushed.body));
  // Both in their mailboxes.
  expect(await waitForFile(join(config.mailboxRoot, shipper.id, 'out', `${id}.iftsta.edi`))).toContain('UNB+');
  expect(await waitForFile(join(config.mailboxRoot, other.id, 'out', `${id}x.iftsta.edi`))).toContain('UNB+');
  // The private address is refused and never connected to; the organization sees why, and it waits.
  let status: any;
  for (let t = 0; t < 50 && !status?.push?.lastError; t++) status = await (await gw('/status', b.token)).json().then((x) => (x.push?.lastError ? x : (sleep(100), x)));
  expect(status.push).toEqual(expect.objectContaining({ pending: 1, lastError: expect.stringMatching(/^WEBHOOK_TARGET_/) }));
  expect(receiver.requests).toHaveLength(1);
});

test('diagnostics name the gateway version and every profile; health answers', async () => {
  const diagnostics = await (await fetch(`${gateway.url}/diagnostics`)).json();
  expect(diagnostics.gateway.version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(diagnostics.formats).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'edifact', profiles: expect.arrayContaining([expect.objectContaining({ id: 'IFTMIN D.04A' })]) })]));
  const health = await (await fetch(`${gateway.url}/health`)).json();
  const mine = health.organizations.find((o: any) => o.organizationId === shipper.id);
  expect(mine.adapters).toEqual(expect.arrayContaining([expect.objectContaining({ format: 'edifact', waiting: 0, received: expect.any(Number), lastReceivedAt: expect.any(String) })]));
  expect(mine.feed).toEqual(expect.objectContaining({ lagSeconds: expect.any(Number), eventsApplied: expect.any(Number) }));
  // The same in Prometheus' text format, per organization and format.
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  expect(metrics).toMatch(new RegExp(`pcx_gateway_inbox_backlog\\{organization="${shipper.id}",format="edifact"\\} 0`));
  expect(metrics).toContain(`pcx_gateway_feed_lag_seconds{organization="${shipper.id}"}`);
  expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);
});
