// An example carrier connector on the SDK (@pcx/sdk; README "The SDK and pcx"): what a carrier's
// TMS integration does with the broker, end to end, in one small program.
//
// Its own records are two JSON files: the trucks it has (trucks.json: where each is free, from
// when, how much it carries, its price, and the rule for accepting matches) and its state (what it published,
// decided and imported, the feed cursor and the events applied), written after every change, so a
// restart goes on where it stopped and never publishes or applies anything twice (idempotency
// keys derived from its records; the feed's event ids and versions in the state).
//
// What it does:
//   1. publishes an offer for every truck that has none open;
//   2. follows its organization's event feed (from where it stopped; on the first start, from now);
//   3. a match proposal for one of its offers: accepts it when the partner is one it works with and
//      the broker's score reaches the rule's minimum, else rejects it, and says why either way;
//   4. a tender it is to execute, for a proposal it accepted: accepts the current revision;
//   5. a handover for it: imports it as a trip (acknowledgement with its trip number), then reports
//      the trip's milestones and the completed outcome, which completes the execution reference;
//      the truck is free again then, and the next start offers it anew.
//
//   npx tsx examples/carrier/connector.ts --base-url http://localhost:8080 --client-id alpine-tms \
//     [--trucks examples/carrier/trucks.json] [--state .data/carrier-state.json] [--exit-after-outcomes N]
// with the client secret in PCX_CLIENT_SECRET.
//
// Under the conformance kit (docs/conformance.md, "Scenarios"), PCX_SCENARIO names a scenario file
// that takes the place of trucks.json: the truck to publish, whose proposals and tenders to accept,
// and how to report the trip (an outcome, then its correction); its state goes beside that file.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isProblem, PcxClient, type AppliedStore, type CreateBody, type FeedEvent, type ListQuery } from '../../sdk/src';
import { commandLine } from '../command-line';

interface Truck {
  truckId: string;
  plate: string;
  origin: string;
  /** An area as the broker takes it (a UN/LOCODE, a circle, a subdivision, ...). */
  destination: NonNullable<CreateBody<'capacity-offers'>['destinationArea']>;
  availableInHours: number;
  availableForHours: number;
  bodyType: NonNullable<CreateBody<'capacity-offers'>['vehicleProfile']>['bodyType'];
  tonnes: number;
  palletSpaces: number;
  /** Who may see its offer (default: the partners of the rule). */
  partners?: string[];
  /** The trip's price, disclosed to the partner only once a match is accepted (restrictedDetails). */
  price: { amount: number; currency: string };
}
interface Records {
  carrier: string;
  rule: { minimumScore: number; partners: string[] };
  trucks: Truck[];
}
interface State {
  offers: Record<string, string>; // truckId -> offer id
  offerKeys: Record<string, string>; // truckId -> Idempotency-Key of its offer's create
  offerRequests?: Record<string, CreateBody<'capacity-offers'>>; // truckId -> the create sent with that key
  accepted: Record<string, string>; // proposal id -> truckId
  tenders: Record<string, number>; // tender id -> revision accepted
  trips: Record<string, string>; // handover id -> our trip number
  outcomes: Record<string, string>; // execution reference id -> outcome id
  cursor?: string;
  appliedIds: string[];
  versions: Record<string, number>;
}

const USAGE = `
Usage: npx tsx examples/carrier/connector.ts [options]

An example carrier connector on the SDK: publishes its trucks, decides proposals by its rule,
accepts tenders, imports handovers and reports the trips (comment at the top of this file).

Options:
  --base-url URL             the broker (default: PCX_BASE_URL or http://localhost:8080)
  --client-id ID             the connector's client id (default: PCX_CLIENT_ID or alpine-tms);
                             its secret in PCX_CLIENT_SECRET (default: the demo's)
  --trucks FILE              the trucks and the rule (default: examples/carrier/trucks.json)
  --state FILE               its records (default: .data/carrier-state.json)
  --exit-after-outcomes N    stop after reporting N outcomes
  -h, --help                 this text
`;
const args = commandLine(USAGE, {
  'base-url': { type: 'string', default: process.env.PCX_BASE_URL ?? 'http://localhost:8080' },
  'client-id': { type: 'string', default: process.env.PCX_CLIENT_ID ?? 'alpine-tms' },
  trucks: { type: 'string', default: resolve(__dirname, 'trucks.json') },
  state: { type: 'string', default: resolve(__dirname, '..', '..', '.data', 'carrier-state.json') },
  'exit-after-outcomes': { type: 'string' },
});
const log = (text: string): void => void process.stdout.write(`[carrier] ${text}\n`);

/** What the kit's scenario asks for (conformance/src/connector/scenario.ts; only the fields used here). */
interface Scenario {
  organizationId: string;
  steps: Array<
    | ({ action: 'publishCapacity'; partners: string[] } & Omit<Truck, 'truckId' | 'plate' | 'partners'>)
    | { action: 'acceptProposals'; from: string }
    | { action: 'acceptTenders'; from: string }
    | { action: 'reportExecution'; outcome: 'completed' | 'disputed'; correction?: { status: 'completed'; reason: string; reasonCode: string } }
  >;
}
const scenario: Scenario | undefined = process.env.PCX_SCENARIO ? JSON.parse(readFileSync(process.env.PCX_SCENARIO, 'utf8')) : undefined;
const step = <A extends Scenario['steps'][number]['action']>(action: A) => scenario?.steps.find((s) => s.action === action) as Extract<Scenario['steps'][number], { action: A }> | undefined;

/** The scenario as this connector's own records: its truck, and a rule that accepts the partner it names. */
function recordsOf(s: Scenario): Records {
  const publish = step('publishCapacity');
  return {
    carrier: s.organizationId,
    rule: { minimumScore: 0, partners: [step('acceptProposals')?.from].filter((p): p is string => !!p) },
    trucks: publish ? [{ truckId: 'SCENARIO-1', plate: 'KIT 1', ...publish }] : [],
  };
}

const records = scenario ? recordsOf(scenario) : (JSON.parse(readFileSync(args.trucks!, 'utf8')) as Records);
const statePath = process.env.PCX_SCENARIO && !process.argv.includes('--state') ? join(dirname(process.env.PCX_SCENARIO), 'carrier-state.json') : args.state!;
/** How the trip is reported: the outcome, and a correction of it (the scenario's; else completed, uncorrected). */
const reporting = step('reportExecution') ?? { outcome: 'completed' as const, correction: undefined };
const state: State = existsSync(statePath)
  ? JSON.parse(readFileSync(statePath, 'utf8'))
  : { offers: {}, offerKeys: {}, accepted: {}, tenders: {}, trips: {}, outcomes: {}, appliedIds: [], versions: {} };
/** Written whole to a temporary file and renamed: never half-written. */
function save(): void {
  mkdirSync(dirname(statePath), { recursive: true });
  writeFileSync(`${statePath}.tmp`, JSON.stringify(state, null, 2));
  renameSync(`${statePath}.tmp`, statePath);
}

const secret = process.env.PCX_CLIENT_SECRET;
if (!secret) throw new Error('PCX_CLIENT_SECRET is required');
const pcx = new PcxClient({ baseUrl: args['base-url']!, clientId: args['client-id']!, clientSecret: secret, userAgent: 'example-carrier/0.1' });
const hoursFromNow = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** This connector's system, in the external references of its offers and trips. */
const SYSTEM = 'example-carrier';

/** Offers that still take matches; a truck whose offer has ended (matched, expired, ...) is offered again. */
const OPEN_OFFER: NonNullable<ListQuery<'capacity-offers'>['status']> = ['draft', 'published', 'partiallyMatched'];

async function publishTrucks(): Promise<void> {
  // Reconciled with the broker first: an open offer of ours that the state does not hold (a state
  // file lost, or a start before this one that stopped between the create and its record) is
  // withdrawn, so that no partner is matched with a truck this connector does not follow.
  const known = new Set(Object.values(state.offers));
  for await (const offer of pcx.offers.list({ owner: records.carrier, status: OPEN_OFFER })) {
    const o = offer;
    if (known.has(o.id) || !(o.externalReferences ?? []).some((r: any) => r.system === SYSTEM)) continue;
    // A draft is never matched, and may be the one a kept Idempotency-Key is about to find.
    if (o.status === 'draft') continue;
    await pcx.offers.withdraw(o, { reason: 'not in the carrier system any more' }, { redecideOnStale: true });
    log(`withdrew offer ${o.id}: an offer of ours this connector has no record of`);
  }
  for (const truck of records.trucks) {
    const current = state.offers[truck.truckId];
    if (current) {
      const { status } = (await pcx.offers.get(current));
      if (OPEN_OFFER.includes(status)) {
        if (status === 'draft') await pcx.offers.publish(await pcx.offers.get(current), undefined, { redecideOnStale: true });
        continue;
      }
      log(`truck ${truck.truckId}: offer ${current} is ${status}; offering the truck again`);
      delete state.offerKeys[truck.truckId];
      delete state.offerRequests?.[truck.truckId];
    }
    // The key and the request are kept before the call: a crash between the create and the save
    // below makes the next start send the same request with the same key, which the broker
    // answers with the offer it made (the request's times are computed from now, and a key sent
    // again with another body is refused 409 IDEMPOTENCY_CONFLICT).
    const key = (state.offerKeys[truck.truckId] ??= `offer-${truck.truckId}-${randomUUID()}`);
    const request = ((state.offerRequests ??= {})[truck.truckId] ??= {
      availabilityWindow: { start: hoursFromNow(truck.availableInHours), end: hoursFromNow(truck.availableInHours + truck.availableForHours), timeZone: 'Europe/Berlin' },
      originArea: { kind: 'unlocode', code: truck.origin },
      destinationArea: truck.destination,
      vehicleProfile: { bodyType: truck.bodyType },
      availableCapacity: { weight: { value: truck.tonnes, unitCode: 'TNE' }, palletSpaces: truck.palletSpaces },
      expiresAt: hoursFromNow(Math.max(1, truck.availableInHours - 4)),
      visibility: { mode: 'partners', organizationIds: truck.partners ?? records.rule.partners },
      externalReferences: [{ system: SYSTEM, type: 'truck', value: truck.truckId }],
      restrictedDetails: { price: truck.price },
    });
    save();
    const offer = await pcx.offers.create(request, { idempotencyKey: key });
    // Recorded before it is published: a publish refused now (no active partnership yet) is tried
    // again by the next start, on this offer.
    state.offers[truck.truckId] = offer.id;
    save();
    const published = offer.status === 'draft' ? await pcx.offers.publish(offer, undefined, { redecideOnStale: true }) : offer;
    log(`truck ${truck.truckId} (${truck.plate}) offered as ${published.id}: ${published.status}`);
  }
}

/** The feed's delivery rules, kept in the state file. */
const applied: AppliedStore = {
  hasEvent: (id) => state.appliedIds.includes(id),
  appliedVersion: (subject) => state.versions[subject],
  record: (event) => {
    state.appliedIds = [...state.appliedIds.slice(-999), event.id];
    state.versions[event.subject] = Math.max(state.versions[event.subject] ?? 0, event.resourceversion);
    save();
  },
};

async function onProposal(id: string): Promise<void> {
  const proposal = (await pcx.proposals.get(id));
  const truckId = Object.keys(state.offers).find((t) => state.offers[t] === proposal.capacityOfferId);
  if (!truckId) return log(`proposal ${id} is not for one of our trucks' offers: left to a person`);
  if (proposal.status !== 'open') {
    // Decided before a crash that came before our record of it: record it now.
    const ours = (proposal.decisions ?? []).find((d: any) => d.organizationId === records.carrier && d.decision === 'accept');
    if (ours && proposal.status === 'accepted' && !state.accepted[id]) ((state.accepted[id] = truckId), save());
    return log(`proposal ${id} is ${proposal.status} already`);
  }
  if ((proposal.decisions ?? []).some((d: any) => d.organizationId === records.carrier)) return log(`proposal ${id}: decided by us already`);
  const partner = proposal.requestOwnerOrganizationId as string;
  const score = Number(proposal.score ?? 0);
  const reasons: string[] = [];
  if (!records.rule.partners.includes(partner)) reasons.push(`${partner} is not a partner we take loads from`);
  if (score < records.rule.minimumScore) reasons.push(`score ${score} is below our minimum ${records.rule.minimumScore}`);
  const accept = reasons.length === 0;
  const why = accept ? `score ${score} >= ${records.rule.minimumScore}, ${partner} is a partner we take loads from; broker: ${proposal.rationale?.summary ?? 'no summary'}` : reasons.join('; ');
  try {
    // Safe to decide again on a newer version: the rule looks at the pair, not at the version.
    await pcx.proposals.decisions(proposal, { decision: accept ? 'accept' : 'reject', comment: why }, { redecideOnStale: true });
  } catch (err) {
    if (isProblem(err, 'DECISION_TERMINAL') || isProblem(err, 'INVALID_STATE_TRANSITION')) return log(`proposal ${id} was decided already: ${(err as Error).message}`);
    throw err;
  }
  // Said before it is recorded: whoever reads the state file and sees the decision has its reason in the log.
  log(`${accept ? 'accepted' : 'rejected'} proposal ${id} for truck ${truckId}: ${why}`);
  if (accept) state.accepted[id] = truckId;
  save();
}

async function onTender(id: string): Promise<void> {
  const tender = (await pcx.tenders.get(id));
  // A tender of ours names the proposal it came from (a tender without one is not for this connector).
  if (tender.executingOrganizationId !== records.carrier || !tender.originatingProposalId || !state.accepted[tender.originatingProposalId]) return;
  if (scenario && step('acceptTenders')?.from !== tender.issuingOrganizationId) return log(`tender ${id}: the scenario asks for no accept of it`);
  if (state.tenders[id] === tender.currentRevision || tender.status !== 'issued') return;
  await pcx.tenders.decisions(tender, { decision: 'accept', revision: tender.currentRevision }, { redecideOnStale: true });
  state.tenders[id] = tender.currentRevision;
  save();
  log(`accepted tender ${id} revision ${tender.currentRevision} (for proposal ${tender.originatingProposalId}, which we accepted)`);
}

async function onHandover(id: string): Promise<void> {
  const handover = (await pcx.handovers.get(id));
  if (handover.executingOrganizationId !== records.carrier) return;
  const tender = (await pcx.tenders.get(handover.tenderId));
  const truckId = tender.originatingProposalId && state.accepted[tender.originatingProposalId];
  if (!truckId) return log(`handover ${id} is for a match we did not make here: left to a person`);
  // Each step is recorded before the next and is idempotent at the broker (the acknowledgement by
  // its Idempotency-Key, milestones and the outcome by their deduplication keys), so a crash
  // anywhere here makes the next start (which gets this event again) finish what is missing.
  let trip = state.trips[id];
  if (!trip) {
    trip = `TRIP-${id.slice(-8)}`;
    await pcx.request('POST', '/execution-handovers/{id}/acknowledgements', {
      path: { id },
      body: { outcome: 'imported', destinationExternalReference: { system: SYSTEM, type: 'trip', value: trip } },
      idempotencyKey: `ack-${id}`,
    });
    state.trips[id] = trip;
    save();
    log(`imported handover ${id} as trip ${trip} for truck ${truckId}`);
  }
  const reference = handover.executionReferenceId ?? (await referenceOf(tender.originatingProposalId!));
  if (state.outcomes[reference]) return;
  await reportTrip(reference, trip);
  // The trip is done: the truck is free again, and the next start offers it anew; what was left
  // of its offer is withdrawn (the truck has left with this load).
  if (state.offers[truckId] === tender.capacityOfferId) {
    const offer = (await pcx.offers.get(tender.capacityOfferId));
    if (OPEN_OFFER.includes(offer.status) && offer.status !== 'draft') {
      await pcx.offers.withdraw(offer, { reason: `truck ${truckId} left on trip ${trip}` }, { redecideOnStale: true });
      log(`withdrew what was left of offer ${offer.id}: truck ${truckId} left on trip ${trip}`);
    }
    delete state.offers[truckId];
    delete state.offerKeys[truckId];
    delete state.offerRequests?.[truckId];
    save();
  }
}

async function referenceOf(proposalId: string): Promise<string> {
  for await (const reference of pcx.references.list({ proposal: proposalId })) return (reference).id;
  throw new Error(`no execution reference for proposal ${proposalId}`);
}

/** Outcomes reported since this process started (--exit-after-outcomes counts these). */
let reportedThisRun = 0;

/** The trip as the TMS would report it: picked up, delivered, then the outcome (deduplicated by key). */
async function reportTrip(reference: string, trip: string): Promise<void> {
  // The times are the facts as they happen: the exchange refuses a time ahead of its clock or
  // before the movement's reference was made, so the trip runs from its pick-up to now.
  const times: Record<string, string> = {};
  for (const milestone of ['pickedUp', 'delivered']) {
    times[milestone] = hoursFromNow(0);
    await pcx.request('POST', '/execution-updates', { body: { executionReferenceId: reference, milestone, occurredAt: times[milestone], deduplicationKey: `${trip}-${milestone}` } });
    log(`trip ${trip}: ${milestone}`);
  }
  const actualTimeRange = { start: times.pickedUp, end: times.delivered };
  const outcome = await pcx.request<{ id: string; status: string; resourceVersion: number }>('POST', '/execution-outcomes', {
    body: { executionReferenceId: reference, status: reporting.outcome, deduplicationKey: `${trip}-outcome`, schemaVersion: 'v0', actualTimeRange },
  });
  log(`trip ${trip}: outcome ${outcome.data.id} ${outcome.data.status} for execution reference ${reference}`);
  const { correction } = reporting;
  if (correction) {
    // A correction of the head on the version read, never a second outcome (the chain is append-only).
    const corrected = await pcx.request<{ id: string; status: string }>('POST', '/execution-outcomes/{id}/corrections', {
      path: { id: outcome.data.id },
      body: { observedOutcomeVersion: outcome.data.resourceVersion, correctionReason: correction.reason, correctionReasonCode: correction.reasonCode, status: correction.status, deduplicationKey: `${trip}-correction`, schemaVersion: 'v0', actualTimeRange },
    });
    log(`trip ${trip}: outcome corrected to ${corrected.data.status} (${corrected.data.id}): ${correction.reason}`);
  }
  state.outcomes[reference] = outcome.data.id;
  save();
  reportedThisRun++;
}

async function handle(event: FeedEvent): Promise<void> {
  const [kind, id] = event.subject.split('/');
  if (event.type === 'pcx.match-proposal.created.v1') await onProposal(id);
  else if (event.type === 'pcx.transport-tender.issued.v1' || event.type === 'pcx.transport-tender.countered.v1') await onTender(id);
  else if (event.type === 'pcx.execution-handover.offered.v1' && kind === 'execution-handovers') await onHandover(id);
}

async function main(): Promise<void> {
  const exitAfter = args['exit-after-outcomes'] ? Number(args['exit-after-outcomes']) : undefined;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  const feed = pcx.events({
    follow: true,
    pollIntervalMs: 500,
    applied,
    signal: controller.signal,
    cursorStore: { load: () => state.cursor, save: (cursor) => ((state.cursor = cursor), save()) },
  });
  // First start: the feed from its end, taken before publishing, so that no proposal for our
  // offers can come before our place in it (what was before is another system's past).
  const resumed = state.cursor !== undefined;
  if (!resumed) await feed.skipToEnd();
  await publishTrucks();
  log(`following the feed${resumed ? ' from where it stopped' : ' from now'}`);
  try {
    for await (const event of feed) {
      await handle(event);
      if (exitAfter !== undefined && reportedThisRun >= exitAfter) break;
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  log('stopped');
}

main().catch((err) => {
  process.stderr.write(`[carrier] failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
