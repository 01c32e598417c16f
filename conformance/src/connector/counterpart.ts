// The synthetic counterpart: the kit plays the other organization of a connector profile's
// scenario (the shipper, to a carrier's connector) through the same broker, step by step as the
// connector's steps make room for it. What it learns (the decoy proposal, the match, the execution
// reference) the connector checks read as their evidence.
import { Party } from '../traffic';
import { KIT_SYSTEM, SHARING_SCOPES, endOpenRelationships, must } from '../broker/world';
import { stepOf, type Scenario } from './scenario';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(Date.now() + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the counterpart saw happen, for the checks. */
export interface CounterpartLog {
  /** The connector's offer of this run. */
  offerId?: string;
  /**
   * A proposal the counterpart rejected so soon after it was made that the connector's feed (held
   * back by the sandbox's event disorder) can only have shown it together with its rejection, the
   * newer version first: a connector that applies a stale event decides it.
   */
  decoyProposalId?: string;
  /** Why there is no usable decoy (it took longer than the hold to reject it, say). */
  decoyUnusable?: string;
  /** The proposal both accepted. */
  proposalId?: string;
  tenderId?: string;
  handoverId?: string;
  executionReferenceId?: string;
  /** Where the counterpart stopped waiting, when it did. */
  stalled?: string;
}

export class Counterpart {
  readonly log: CounterpartLog = {};
  private stopped = false;

  constructor(
    /** The organization the kit plays. */
    readonly me: Party,
    /** The connector's organization, with credentials the kit uses for the set-up only (the relationship). */
    readonly connectorOrganization: Party,
    readonly scenario: Scenario,
    readonly holdSeconds: number,
    private readonly say: (line: string) => void,
  ) {}

  stop(): void {
    this.stopped = true;
  }

  /** An active relationship of the two, granting every sharing scope; what earlier runs left open ended first. */
  async setUp(): Promise<void> {
    const [x, y] = [this.connectorOrganization, this.me];
    await endOpenRelationships(x, y);
    const loads = await must(y.get(`/load-requests?owner=${encodeURIComponent(y.id)}&status=published&status=proposed&limit=200`), 200, 'list open loads');
    for (const l of loads.items as any[]) {
      if ((l.externalReferences ?? []).some((r: any) => r.system === KIT_SYSTEM)) await y.post(`/load-requests/${l.id}/withdraw`, { reason: 'left open by an earlier conformance run' }, l.resourceVersion);
    }
    const draft = await must(x.post('/partner-relationships', { requestingOrganizationId: x.id, acceptingOrganizationId: y.id, scopes: SHARING_SCOPES }), 201, 'invite the counterpart');
    const requested = await must(x.post(`/partner-relationships/${draft.id}/request`, undefined, draft.resourceVersion), 200, 'request');
    await must(y.post(`/partner-relationships/${draft.id}/accept`, undefined, requested.resourceVersion), 200, 'the counterpart accepts');
  }

  /** Plays the counterpart's part of the scenario until it is done or stopped. */
  async play(startedAt: string): Promise<void> {
    try {
      await this.playSteps(startedAt);
    } catch (err) {
      this.log.stalled = (err as Error).message;
      this.say(`counterpart: ${this.log.stalled}`);
    }
  }

  private async playSteps(startedAt: string): Promise<void> {
    const offer = await this.until('the connector to publish its capacity', async () => {
      const page = await must(this.me.get(`/capacity-offers?owner=${encodeURIComponent(this.connectorOrganization.id)}&status=published&status=partiallyMatched&limit=200`), 200, 'list the connector organization offers');
      return (page.items as any[]).find((o) => o.createdAt >= startedAt);
    });
    this.log.offerId = offer.id;
    this.say(`counterpart: the connector published offer ${offer.id}`);
    if (!stepOf(this.scenario, 'acceptProposals')) return;

    // The decoy: proposed and rejected at once, so that the connector is shown it only as rejected.
    const decoyLoad = await this.publishLoad(offer);
    const decoy = await this.proposalFor(decoyLoad.id, offer.id, 100);
    const rejected = await this.me.post(`/match-proposals/${decoy.id}/decisions`, { decision: 'reject', comment: 'the kit: a decoy, rejected at once' }, decoy.resourceVersion);
    const tookMs = Date.parse(rejected.body?.rejectedAt ?? '') - Date.parse(decoy.createdAt);
    if (rejected.status !== 200) this.log.decoyUnusable = `the counterpart's reject of the decoy was answered ${rejected.status}`;
    else if (!(tookMs < this.holdSeconds * 1000 - 200)) this.log.decoyUnusable = `the decoy was rejected ${tookMs} ms after it was made, not within the feed's hold of ${this.holdSeconds} s`;
    else this.log.decoyProposalId = decoy.id;
    await this.me.post(`/load-requests/${decoyLoad.id}/withdraw`, { reason: 'the decoy is done' }, (await must(this.me.get(`/load-requests/${decoyLoad.id}`), 200, 'read the decoy load')).resourceVersion);
    this.say(`counterpart: decoy proposal ${decoy.id} rejected after ${tookMs} ms`);

    // The match: the counterpart accepts first, then waits for the connector's accept.
    const load = await this.publishLoad(offer);
    const proposal = await this.proposalFor(load.id, offer.id, 250);
    await this.acceptProposal(proposal);
    this.log.proposalId = proposal.id;
    this.say(`counterpart: accepted proposal ${proposal.id}; waiting for the connector's decision`);
    await this.until('the connector to accept the proposal', async () => {
      const p = await must(this.me.get(`/match-proposals/${proposal.id}`), 200, 'read the proposal');
      if (['rejected', 'withdrawn', 'expired', 'superseded'].includes(p.status)) throw new Error(`the proposal ended ${p.status}`);
      return p.status === 'accepted' ? p : undefined;
    });
    if (!stepOf(this.scenario, 'acceptTenders')) return;

    const draft = await must(this.me.post('/transport-tenders', { executingOrganizationId: this.connectorOrganization.id, originatingProposalId: proposal.id, movementScope: 'fullTransport', expiresAt: iso(20 * HOUR) }), 201, 'create the tender');
    const issued = await must(this.me.post(`/transport-tenders/${draft.id}/issue`, undefined, draft.resourceVersion), 200, 'issue the tender');
    this.log.tenderId = issued.id;
    const decided = await this.until('the connector to accept the tender', async () => {
      const t = await must(this.me.get(`/transport-tenders/${issued.id}`), 200, 'read the tender');
      return (t.decisions ?? []).some((d: any) => d.organizationId === this.connectorOrganization.id) ? t : undefined;
    });
    const accepted = await must(this.me.post(`/transport-tenders/${issued.id}/decisions`, { decision: 'accept', revision: decided.currentRevision }, decided.resourceVersion), 200, 'the counterpart accepts the tender');
    const handover = await must(
      this.me.post('/execution-handovers', {
        commitmentId: accepted.commitmentId,
        package: {
          stops: [
            { sequence: 1, role: 'pickup', timeWindow: { start: load.pickupWindow.start, end: load.pickupWindow.end }, location: { address: { lines: ['Kaistrasse 7'], postalCode: '20457', city: 'Hamburg', countryCode: 'DE' } } },
            { sequence: 2, role: 'delivery', timeWindow: { start: load.deliveryWindow.start, end: load.deliveryWindow.end }, location: { address: { lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' } } },
          ],
          cargo: { description: 'ten pallets', weight: { value: 8, unitCode: 'TNE' }, palletSpaces: 10 },
        },
        sourceExternalReferences: [{ system: KIT_SYSTEM, type: 'shipment', value: this.scenario.scenarioId }],
      }),
      201,
      'hand over the execution package',
    );
    this.log.handoverId = handover.id;
    this.say(`counterpart: tender ${issued.id} accepted by both, handover ${handover.id}; waiting for the connector's execution reports`);
    const reference = await this.until('the connector to complete the execution reference', async () => {
      const page = await must(this.me.get(`/execution-references?proposal=${proposal.id}`), 200, 'list execution references');
      const r = page.items[0];
      if (r) this.log.executionReferenceId = r.id;
      return r?.status === 'completed' ? r : undefined;
    });
    this.say(`counterpart: execution reference ${reference.id} completed`);
  }

  /**
   * The counterpart's accept of the proposal on the version it last read; when the connector's own
   * decision changed it meanwhile (409 STALE_RESOURCE_VERSION), read again and accept on the new
   * version, as a careful connector would: the race is the connector's right, not its fault.
   */
  private async acceptProposal(proposal: any): Promise<void> {
    let current = proposal;
    for (let attempt = 1; ; attempt++) {
      const answer = await this.me.post(`/match-proposals/${proposal.id}/decisions`, { decision: 'accept' }, current.resourceVersion);
      if (answer.status === 200) return;
      if (answer.status !== 409 || answer.body?.code !== 'STALE_RESOURCE_VERSION' || attempt >= 5) {
        await must(Promise.resolve(answer), 200, 'the counterpart accepts the proposal');
        return;
      }
      current = await must(this.me.get(`/match-proposals/${proposal.id}`), 200, 'read the proposal again');
    }
  }

  /** A load of the counterpart's that the offer can carry, published. */
  private async publishLoad(offer: any): Promise<any> {
    const start = Date.parse(offer.availabilityWindow.start) - Date.now();
    const body = {
      pickupArea: { kind: 'unlocode', code: offer.originArea.code ?? 'DEHAM' },
      pickupWindow: { start: iso(start + 2 * HOUR), end: iso(start + 6 * HOUR) },
      deliveryArea: offer.destinationArea,
      deliveryWindow: { start: iso(start + 10 * HOUR), end: iso(start + 36 * HOUR) },
      requiredCapacity: { weight: { value: 8, unitCode: 'TNE' }, palletSpaces: 10 },
      vehicleRequirements: { bodyTypes: [offer.vehicleProfile?.bodyType ?? 'curtainsider'] },
      goodsProfile: { category: 'retail' },
      expiresAt: iso(Math.max(2 * HOUR, start - 2 * HOUR)),
      visibility: { mode: 'partners', organizationIds: [this.connectorOrganization.id] },
      restrictedDetails: { deliveryAddress: { lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' } },
      externalReferences: [{ system: KIT_SYSTEM, type: 'run', value: this.scenario.scenarioId }],
    };
    const draft = await must(this.me.post('/load-requests', body), 201, 'create a load');
    return must(this.me.post(`/load-requests/${draft.id}/publish`, undefined, draft.resourceVersion), 200, 'publish the load');
  }

  /** The open proposal of the load with the offer, polled every `everyMs`. */
  private proposalFor(loadId: string, offerId: string, everyMs: number): Promise<any> {
    return this.until(
      `a proposal of the load ${loadId} with the connector's offer`,
      async () => {
        const page = await must(this.me.get(`/match-proposals?request=${loadId}&status=open`), 200, 'list proposals');
        return (page.items as any[]).find((p) => p.capacityOfferId === offerId);
      },
      everyMs,
    );
  }

  private async until<T>(what: string, probe: () => Promise<T | undefined>, everyMs = 500): Promise<T> {
    for (;;) {
      if (this.stopped) throw new Error(`stopped while waiting for ${what}`);
      const value = await probe();
      if (value !== undefined) return value;
      await sleep(everyMs);
    }
  }
}
