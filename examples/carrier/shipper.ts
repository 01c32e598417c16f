// The shipper's side for the example carrier connector (connector.ts beside it): Baltic, through
// the SDK, does what its own system would: a load the connector's truck can carry, its accept of
// the proposal, a tender, its accept, the handover; then it waits for the connector's outcome to
// complete the execution reference. Before that, the demo's set-up: a partnership of Alpine and
// Baltic (with both demo connectors' credentials, as the README's walkthrough does).
//
//   npx tsx examples/carrier/shipper.ts [--base-url http://localhost:8080] [--planner]
// then start the connector; this waits for its offer. test/walkthrough.test.ts runs both. With
// --planner, Baltic's accept of the proposal is left to a planner in the console (bruno), and
// test/console.test.ts runs that path.
import { PcxClient, waitFor } from '../../sdk/src';
import { commandLine } from '../command-line';

/** The shipper's system, in the external references of its loads (theirs alone to see). */
const SYSTEM = 'example-shipper';

const at = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Ends open Alpine-Baltic relationships, then makes a new active one; returns its id. */
export async function partnership(alpine: PcxClient, baltic: PcxClient): Promise<string> {
  for await (const old of alpine.relationships.list({ counterpart: 'org-baltic-shippers', status: ['draft', 'requested', 'active', 'suspended'] })) {
    const r = old;
    const end = r.status === 'active' || r.status === 'suspended' ? 'terminate' : r.requestingOrganizationId === 'org-alpine-freight' ? 'withdraw' : 'reject';
    await alpine.relationships.command(end, r, { reason: 'left over' });
  }
  const draft = await alpine.relationships.create({
    requestingOrganizationId: 'org-alpine-freight',
    acceptingOrganizationId: 'org-baltic-shippers',
    scopes: ['capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide', 'tenders:read', 'tenders:decide'],
  });
  const requested = await alpine.relationships.request(draft);
  await baltic.relationships.accept(requested);
  return draft.id;
}

/**
 * Baltic's part, from its load to the completed execution reference. Its load may be proposed with
 * several of Alpine's offers (one an earlier run left open, say); Baltic accepts the one the
 * carrier connector accepted, which is the proposal for the connector's truck.
 */
export async function shipTheLoad(baltic: PcxClient, say: (text: string) => void = () => undefined, options: { plannerDecides?: boolean } = {}): Promise<{ proposal: string; reference: any }> {
  // An earlier run stopped halfway may have left a load of ours open: withdrawn first, so that the
  // carrier's truck is proposed for this one.
  for await (const open of baltic.requests.list({ owner: 'org-baltic-shippers', status: ['published', 'proposed'] })) {
    const r = open;
    if (!(r.externalReferences ?? []).some((x: any) => x.system === SYSTEM)) continue;
    await baltic.requests.withdraw(r, { reason: 'left over from an earlier run' }, { redecideOnStale: true });
    say(`withdrew load ${r.id}, left over from an earlier run`);
  }
  const load = await baltic.requests.create({
    pickupArea: { kind: 'subdivision', code: 'DE-HH' },
    pickupWindow: { start: at(24), end: at(27) },
    deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
    deliveryWindow: { start: at(30), end: at(36) },
    requiredCapacity: { weight: { value: 8, unitCode: 'TNE' }, palletSpaces: 10 },
    vehicleRequirements: { bodyTypes: ['curtainsider'] },
    goodsProfile: { category: 'retail', packaging: 'pallets' },
    expiresAt: at(20),
    visibility: { mode: 'partners', organizationIds: ['org-alpine-freight'] },
    restrictedDetails: { deliveryAddress: { lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' } },
    externalReferences: [{ system: SYSTEM, type: 'shipment', value: `S-${Date.now()}` }],
  });
  await baltic.requests.publish(load);
  say(`load ${load.id} published; waiting for the carrier to accept a proposal for it`);
  const proposal = await waitFor(
    'a proposal for the load that the carrier connector accepted',
    async () => {
      for await (const p of baltic.proposals.list({ request: load.id, status: ['open'] })) {
        if (((p).decisions ?? []).some((d: any) => d.organizationId === 'org-alpine-freight' && d.decision === 'accept')) return p;
      }
      return undefined;
    },
    { timeoutMs: 300_000 },
  );
  // Baltic's accept completes the policy (both must accept): the proposal is committed. With
  // --planner, a planner of Baltic's decides in the console (docs/console.md); this waits for it.
  if (options.plannerDecides) {
    say(`proposal ${proposal.id}: waiting for a Baltic planner to accept it in the console (sign in as bruno)`);
    await waitFor(
      "a Baltic planner's accept in the console",
      async () => {
        const p = (await baltic.proposals.get(proposal.id));
        if (p.status !== 'open' && p.status !== 'accepted') throw new Error(`the proposal was ${p.status} in the console`);
        return p.status === 'accepted' ? p : undefined;
      },
      { timeoutMs: 3_600_000 },
    );
    say(`proposal ${proposal.id} accepted by the planner`);
  } else {
    const decided = (await baltic.proposals.decisions(proposal, { decision: 'accept' }, { redecideOnStale: true }));
    say(`proposal ${proposal.id} (offer ${proposal.capacityOfferId}) accepted by both: ${decided.decisionState ?? decided.status}`);
  }
  const tender = await baltic.tenders.create({ executingOrganizationId: 'org-alpine-freight', originatingProposalId: proposal.id, movementScope: 'fullTransport', expiresAt: at(20) });
  await baltic.tenders.issue(tender);
  const acceptedByCarrier = await waitFor('the connector accepting the tender', async () => {
    const t = (await baltic.tenders.get(tender.id));
    return (t.decisions ?? []).some((d: any) => d.organizationId === 'org-alpine-freight' || d.decidedBy?.organizationId === 'org-alpine-freight') ? t : undefined;
  });
  const accepted = (await baltic.tenders.decisions(acceptedByCarrier, { decision: 'accept', revision: acceptedByCarrier.currentRevision }, { redecideOnStale: true }));
  const commitmentId = accepted.commitmentId;
  if (!commitmentId) throw new Error(`tender ${tender.id} accepted without a commitment`);
  say(`tender ${tender.id} accepted by both: commitment ${commitmentId}`);
  await baltic.handovers.create({
    commitmentId,
    package: {
      stops: [
        { sequence: 1, role: 'pickup', timeWindow: { start: at(25), end: at(26) }, location: { address: { lines: ['Kaistrasse 7'], postalCode: '20457', city: 'Hamburg', countryCode: 'DE' } } },
        { sequence: 2, role: 'delivery', timeWindow: { start: at(31), end: at(35) }, location: { address: { lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' } } },
      ],
      cargo: { description: 'ten pallets', weight: { value: 8, unitCode: 'TNE' }, palletSpaces: 10 },
    },
    sourceExternalReferences: [{ system: 'baltic-erp', type: 'shipment', value: `S-${proposal.id.slice(-8)}` }],
  });
  say('execution package handed over; waiting for the carrier to report the outcome');
  const reference = await waitFor(
    'the execution reference completed by the connector',
    async () => {
      for await (const r of baltic.references.list({ proposal: proposal.id })) if ((r).status === 'completed') return r;
      return undefined;
    },
    { timeoutMs: 90_000 },
  );
  return { proposal: proposal.id, reference };
}

const USAGE = `
Usage: npx tsx examples/carrier/shipper.ts [options]

Baltic's side of the example: a partnership of Alpine and Baltic, then a load the carrier
connector's truck can carry, the accept, a tender and the handover; it waits for the completed
execution reference. Start the carrier connector once this has printed the partnership.

Options:
  --base-url URL   the broker (default: PCX_BASE_URL or http://localhost:8080)
  --planner        leave Baltic's accept of the proposal to a planner in the console (bruno)
  -h, --help       this text
`;

async function main(): Promise<void> {
  const values = commandLine(USAGE, {
    'base-url': { type: 'string', default: process.env.PCX_BASE_URL ?? 'http://localhost:8080' },
    planner: { type: 'boolean', default: false },
  });
  const baseUrl = values['base-url']!;
  const alpine = new PcxClient({ baseUrl, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
  const baltic = new PcxClient({ baseUrl, clientId: 'baltic-erp', clientSecret: 'baltic-demo-secret' });
  const say = (text: string) => void process.stdout.write(`[shipper] ${text}\n`);
  say(`partnership of Alpine and Baltic: ${await partnership(alpine, baltic)} active`);
  const { reference } = await shipTheLoad(baltic, say, { plannerDecides: values.planner });
  say(`execution reference ${reference.id}: ${reference.status}`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`[shipper] failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
