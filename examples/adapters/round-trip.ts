// The adapter gateway's round trip on a running `npm start` (docs/adapters.md): nobody writes a
// connector. Baltic's ERP drops its IFTMIN transport instruction into Baltic's mailbox and gets a
// published load request; Alpine's dispatcher drops its spreadsheet of free trucks into Alpine's
// mailbox and gets offers; the match is proposed. Then the two organizations decide, tender and
// hand over (here through the SDK, as their planners would in the console), Alpine's system
// imports the handover as its trip, Alpine's track-and-trace posts its EPCIS events to the gateway,
// and Baltic receives each milestone as an IFTSTA in its mailbox, carrying its own consignment
// number; the delivery reports the outcome that completes the movement.
//
//   npx tsx examples/adapters/round-trip.ts [--base-url URL] [--gateway-url URL] [--data-dir DIR]
//
// Every run is a new movement: the example files are given this run's numbers (consignment
// BS-<run>, trip TR-<run>), so it can run again and again on the same stack.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PcxClient, waitFor } from '../../sdk/src';
import { partnership } from '../carrier/shipper';
import { commandLine } from '../command-line';

const EXAMPLES = resolve(__dirname, '..');
const at = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

const USAGE = `
Usage: npx tsx examples/adapters/round-trip.ts [options]

The adapter gateway's round trip on a running npm start: IFTMIN and a spreadsheet in, a match,
a tender and a handover, EPCIS events in, IFTSTA out to the shipper, the movement completed.

Options:
  --base-url URL     the broker (default: PCX_BASE_URL or http://localhost:8080)
  --gateway-url URL  the adapter gateway (default: PCX_GATEWAY_URL or http://localhost:8090)
  --data-dir DIR     npm start's data folder, which holds the mailboxes (default: DATA_DIR or .data)
  -h, --help         this text
`;

/** An EPCIS document with its events' times moved, in their order, linearly onto from..to (in UTC). */
function retimed(text: string, from: Date, to: Date): string {
  const doc = JSON.parse(text);
  const events: Array<{ eventTime: string; eventTimeZoneOffset?: string }> = doc.epcisBody.eventList;
  const times = events.map((e) => Date.parse(e.eventTime));
  const [first, last] = [Math.min(...times), Math.max(...times)];
  for (const [i, event] of events.entries()) {
    event.eventTime = new Date(from.getTime() + ((times[i] - first) / (last - first || 1)) * (to.getTime() - from.getTime())).toISOString();
    event.eventTimeZoneOffset = '+00:00';
  }
  doc.creationDate = to.toISOString();
  return JSON.stringify(doc, null, 2);
}

/** Drops a file into an organization's mailbox as SFTP senders do: written under a dot name, then renamed. */
function drop(mailboxes: string, organization: string, name: string, content: Buffer) {
  const inDir = join(mailboxes, organization, 'in');
  mkdirSync(inDir, { recursive: true });
  writeFileSync(join(inDir, `.${name}`), content);
  renameSync(join(inDir, `.${name}`), join(inDir, name));
}

const fileIn = (path: string, what: string) => waitFor(what, async () => (existsSync(path) ? readFileSync(path, 'utf8') : undefined), { timeoutMs: 60_000 });

async function main(): Promise<void> {
  const values = commandLine(USAGE, {
    'base-url': { type: 'string', default: process.env.PCX_BASE_URL ?? 'http://localhost:8080' },
    'gateway-url': { type: 'string', default: process.env.PCX_GATEWAY_URL ?? 'http://localhost:8090' },
    'data-dir': { type: 'string', default: process.env.DATA_DIR ?? '.data' },
  });
  const baseUrl = values['base-url']!;
  const gateway = values['gateway-url']!.replace(/\/+$/, '');
  const mailboxes = join(resolve(values['data-dir']!), 'mailboxes');
  const say = (text: string) => void process.stdout.write(`[round trip] ${text}\n`);
  const alpine = new PcxClient({ baseUrl, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
  const baltic = new PcxClient({ baseUrl, clientId: 'baltic-erp', clientSecret: 'baltic-demo-secret' });

  await waitFor('the broker and the gateway to be ready', async () => {
    const ready = await Promise.all([`${baseUrl}/health/ready`, `${gateway}/health/ready`].map((u) => fetch(u).then((r) => r.ok, () => false)));
    return ready.every(Boolean) || undefined;
  }, { timeoutMs: 60_000 });
  say(`partnership of Alpine and Baltic: ${await partnership(alpine, baltic)} active`);

  const run = Date.now().toString(36).toUpperCase();
  const consignment = `BS-${run}`;
  const trip = `TR-${run}`;
  const withNumbers = (text: string) => text.replace(/BS-2031-0001/g, consignment).replace(/TR-2031-0001/g, trip);

  // 1. Baltic's ERP drops its transport instruction.
  const instruction = withNumbers(readFileSync(join(EXAMPLES, 'edifact', 'transport-instruction.edi'), 'latin1')).replace(/BALTIC0001/g, `B${run}`.slice(0, 14));
  drop(mailboxes, 'org-baltic-shippers', `instruction-${run}.edi`, Buffer.from(instruction, 'latin1'));
  const aperak = await fileIn(join(mailboxes, 'org-baltic-shippers', 'out', `instruction-${run}.aperak.edi`), "Baltic's APERAK");
  const requestId = /load request (\S+) published/.exec(aperak)?.[1];
  if (!requestId) throw new Error(`the instruction was not accepted:\n${aperak}`);
  say(`Baltic's IFTMIN ${consignment}: APERAK "accepted", load request ${requestId} published`);

  // 2. Alpine's dispatcher drops its export of free trucks.
  drop(mailboxes, 'org-alpine-freight', `free-trucks-${run}.csv`, readFileSync(join(EXAMPLES, 'spreadsheet', 'free-trucks.csv')));
  const result = await fileIn(join(mailboxes, 'org-alpine-freight', 'out', `free-trucks-${run}.result.csv`), "Alpine's result file");
  say(`Alpine's spreadsheet: ${result.split('\n').filter((l) => /published/.test(l)).length} offers published`);

  // 3. The match, decided by both; the tender, accepted by both; the handover, imported as Alpine's trip.
  const proposal = await waitFor('a proposal for the load', async () => {
    for await (const p of baltic.proposals.list({ request: requestId, status: ['open'] })) return p;
    return undefined;
  }, { timeoutMs: 60_000 });
  say(`proposal ${proposal.id}: score ${proposal.score}, ${proposal.rationale?.summary ?? ''}`);
  const byBaltic = await baltic.proposals.decisions(proposal, { decision: 'accept' }, { redecideOnStale: true });
  await alpine.proposals.decisions(byBaltic, { decision: 'accept' }, { redecideOnStale: true });
  const tender = await baltic.tenders.create({ executingOrganizationId: 'org-alpine-freight', originatingProposalId: proposal.id, movementScope: 'fullTransport', expiresAt: at(20) });
  const issued = await baltic.tenders.issue(tender);
  const byAlpine = await alpine.tenders.decisions(issued, { decision: 'accept', revision: issued.currentRevision }, { redecideOnStale: true });
  const accepted = await baltic.tenders.decisions(byAlpine, { decision: 'accept', revision: byAlpine.currentRevision }, { redecideOnStale: true });
  const commitment = await baltic.commitments.get(accepted.commitmentId!);
  say(`tender ${tender.id} accepted by both: commitment ${commitment.id}, ${commitment.acceptedRevision.terms.commercialTerms?.amount} ${commitment.acceptedRevision.terms.commercialTerms?.currency}`);
  const stops = commitment.acceptedRevision.terms.stops.map((s: any) => ({
    sequence: s.sequence,
    role: s.role,
    timeWindow: s.timeWindow,
    location: s.role === 'pickup'
      ? { name: 'Baltic DC Gothenburg', address: { lines: ['Hamnvägen 12'], postalCode: '41764', city: 'Göteborg', countryCode: 'SE' } }
      : { name: 'Baltic DC Hamburg', address: { lines: ['Kaistraße 7'], postalCode: '20457', city: 'Hamburg', countryCode: 'DE' } },
  }));
  const handover = await baltic.handovers.create({
    commitmentId: commitment.id,
    package: { stops, cargo: { description: '24 pallets of general cargo', weight: { value: 12, unitCode: 'TNE' }, palletSpaces: 24 } },
    sourceExternalReferences: [{ system: 'edifact:baltic-erp', type: 'BGM+610', value: consignment }],
  });
  await alpine.handovers.acknowledgements(handover, { outcome: 'imported', destinationExternalReference: { system: 'alpine-tms', type: 'trip', value: trip } });
  const [reference] = await waitFor('the execution reference', async () => {
    const found = [];
    for await (const r of alpine.references.list({ proposal: proposal.id })) found.push(r);
    return found.length ? found : undefined;
  });
  say(`handover ${handover.id} imported by Alpine as trip ${trip}: execution reference ${reference.id}`);

  // 4. Alpine's track-and-trace posts its EPCIS events, once the gateway knows the trip.
  const token = await alpine.accessToken();
  await waitFor('the gateway to learn the trip', async () => {
    const known = (await (await fetch(`${gateway}/mappings?resourceId=${reference.id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { items: Array<{ value: string }> };
    return known.items.some((m) => m.value === trip) || undefined;
  }, { timeoutMs: 30_000 });
  // Its events tell 1 to 3 June 2031; the exchange records only what happened since the movement
  // began and not ahead of its clock, so they are told again, in their order, since the reference.
  const events = retimed(withNumbers(readFileSync(join(EXAMPLES, 'epcis', 'track-and-trace.jsonld'), 'utf8')), new Date(reference.createdAt), new Date());
  const answer = await fetch(`${gateway}/messages/epcis`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'idempotency-key': `round-trip-${run}` }, body: events });
  const entry = (await answer.json()) as { status: string; submitted?: { milestones?: Array<{ updateId?: string }> } };
  say(`Alpine's EPCIS document: ${entry.status}, ${entry.submitted?.milestones?.filter((m) => m.updateId).length ?? 0} milestones recorded`);

  // 5. Baltic's IFTSTA, one per milestone, with its own consignment number.
  const out = join(mailboxes, 'org-baltic-shippers', 'out');
  const notices = await waitFor('five IFTSTA for Baltic', async () => {
    const mine = readdirSync(out).filter((f) => f.endsWith('.iftsta.edi')).map((f) => ({ f, text: readFileSync(join(out, f), 'utf8') })).filter((n) => n.text.includes(`CNI+1+${consignment}'`));
    return mine.length >= 5 ? mine : undefined;
  }, { timeoutMs: 60_000 });
  for (const n of notices) say(`Baltic's mailbox: ${n.f}: ${/STS\+[^']*/.exec(n.text)?.[0]} ${/DTM\+334:[^']*/.exec(n.text)?.[0]} for ${consignment}`);
  const done = await waitFor('the movement to complete', async () => {
    const r = await baltic.references.get(reference.id);
    return r.status === 'completed' ? r : undefined;
  }, { timeoutMs: 30_000 });
  say(`execution reference ${done.id}: ${done.status}, last milestone ${done.currentMilestone?.milestone}`);
}

main().catch((err) => {
  process.stderr.write(`[round trip] failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
