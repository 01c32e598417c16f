// The Broker profile's world: three organizations and an operator, as the clients file names them,
// made partners as the checks need (A and B active partners, C a stranger to both), and the
// market bodies the checks publish. Every check makes resources of its own, so that one check's
// failure leaves the others their evidence.
import { randomUUID } from 'node:crypto';
import { NoTraffic } from '../checks';
import { Party, Recorder, type Credentials, type Reply } from '../traffic';

export interface ClientsFile {
  /** The token endpoint (default `<base-url>/oauth2/token`). */
  tokenUrl?: string;
  /** Three organizations' connectors, each holding every scope the checks use. */
  organizations: [Credentials, Credentials, Credentials];
  /** The protocol operator's connector (administrative cancel), optional. */
  operator?: Credentials;
}

/** Broker settings some checks need; absent ones make those checks "no traffic". */
export interface BrokerSettings {
  /** How long a proposal stays open (the broker's configuration), for the expiry check; at most 120. */
  proposalValiditySeconds?: number;
}

/** The scopes an A-B relationship grants: every sharing scope of the specification's list. */
export const SHARING_SCOPES = [
  'capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide',
  'tenders:publish', 'tenders:read', 'tenders:decide', 'commitments:read', 'outcomes:write', 'outcomes:review',
];

/** The external reference system of what the kit creates (so that a later run can end it). */
export const KIT_SYSTEM = 'pcx-conformance';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(Date.now() + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class World {
  readonly a: Party;
  readonly b: Party;
  readonly c: Party;
  readonly operator: Party | undefined;
  relationshipId = '';
  /** Resource id (offer, request, proposal) -> the number of the exchange at which a proposal for it was accepted by both: disclosure may follow from then on (audit.ts). */
  readonly acceptedAt = new Map<string, number>();
  /** What several checks may share (the execution reference the outcome checks report on). */
  readonly shared: { reference?: Promise<any> } = {};
  /** The run's own prefix, in Idempotency-Keys and deduplication keys. */
  readonly run = randomUUID().slice(0, 8);

  constructor(
    readonly baseUrl: string,
    clients: ClientsFile,
    readonly settings: BrokerSettings,
    readonly recorder: Recorder,
  ) {
    const tokenUrl = clients.tokenUrl ?? `${baseUrl}/oauth2/token`;
    const [a, b, c] = clients.organizations;
    this.a = new Party('A', a, baseUrl, tokenUrl, recorder);
    this.b = new Party('B', b, baseUrl, tokenUrl, recorder);
    this.c = new Party('C', c, baseUrl, tokenUrl, recorder);
    this.operator = clients.operator ? new Party('operator', clients.operator, baseUrl, tokenUrl, recorder) : undefined;
  }

  key(name: string): string {
    return `conformance-${this.run}-${name}`;
  }

  /**
   * A and B active partners; no open relationship between C and either. What an earlier run left
   * open among the three is ended first (the kit is for a sandbox: it ends relationships among the
   * organizations it is given).
   */
  async setUp(): Promise<void> {
    for (const [x, y] of [[this.a, this.b], [this.a, this.c], [this.b, this.c]] as const) await endOpenRelationships(x, y);
    // Offers and requests an earlier run left open would be proposed in place of this run's.
    for (const [party, path] of [[this.a, '/capacity-offers?status=published&status=partiallyMatched'], [this.b, '/load-requests?status=published&status=proposed']] as const) {
      const open = await must(party.get(`${path}&owner=${encodeURIComponent(party.id)}&limit=200`), 200, 'list open listings');
      for (const l of open.items as any[]) {
        if (!(l.externalReferences ?? []).some((r: any) => r.system === KIT_SYSTEM)) continue;
        // The broker may still be moving it (proposals ending): re-read on a stale version.
        const collection = path.split('?')[0];
        for (let attempt = 0, version = l.resourceVersion; attempt < 5; attempt++) {
          const r = await party.post(`${collection}/${l.id}/withdraw`, { reason: 'left open by an earlier conformance run' }, version);
          if (r.status !== 409) break; // withdrawn, or no longer withdrawable (matched meanwhile): either way out of the way
          version = (await must(party.get(`${collection}/${l.id}`), 200, `read ${l.id}`)).resourceVersion;
        }
      }
    }
    const draft = await must(this.a.post('/partner-relationships', { requestingOrganizationId: this.a.id, acceptingOrganizationId: this.b.id, scopes: SHARING_SCOPES }), 201, 'A invites B');
    const requested = await must(this.a.post(`/partner-relationships/${draft.id}/request`, undefined, draft.resourceVersion), 200, 'A requests');
    await must(this.b.post(`/partner-relationships/${draft.id}/accept`, undefined, requested.resourceVersion), 200, 'B accepts');
    this.relationshipId = draft.id;
  }


  /**
   * Each market gets a slot of time of its own, 100 hours after the one before: an offer of one
   * check is never compatible with the request of another, so every check is proposed its own pair.
   */
  private slots = 0;
  nextSlot(): number {
    return this.slots++;
  }

  /** A's capacity from Hamburg to Rotterdam in `slot`, shown to B only, its price restricted. */
  offerBody(extra: Record<string, unknown> = {}, slot = this.nextSlot()) {
    const t = 24 * HOUR + slot * 100 * HOUR;
    return {
      availabilityWindow: { start: iso(t), end: iso(t + 48 * HOUR) },
      originArea: { kind: 'unlocode', code: 'DEHAM' },
      destinationArea: { kind: 'unlocode', code: 'NLRTM' },
      vehicleProfile: { bodyType: 'curtainsider' },
      availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
      expiresAt: iso(t + 24 * HOUR),
      visibility: { mode: 'partners', organizationIds: [this.b.id] },
      restrictedDetails: { price: { amount: 900, currency: 'EUR' } },
      externalReferences: [{ system: KIT_SYSTEM, type: 'run', value: this.run }],
      ...extra,
    };
  }

  /** B's load that the offer of the same slot can carry, shown to A only, its address restricted. */
  requestBody(extra: Record<string, unknown> = {}, slot = this.nextSlot()) {
    const t = 24 * HOUR + slot * 100 * HOUR;
    return {
      pickupArea: { kind: 'subdivision', code: 'DE-HH' },
      pickupWindow: { start: iso(t + 2 * HOUR), end: iso(t + 6 * HOUR) },
      deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
      deliveryWindow: { start: iso(t + 10 * HOUR), end: iso(t + 36 * HOUR) },
      requiredCapacity: { weight: { value: 8, unitCode: 'TNE' }, palletSpaces: 10 },
      vehicleRequirements: { bodyTypes: ['curtainsider'] },
      goodsProfile: { category: 'retail' },
      expiresAt: iso(t + 16 * HOUR),
      visibility: { mode: 'partners', organizationIds: [this.a.id] },
      restrictedDetails: { deliveryAddress: { lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' } },
      externalReferences: [{ system: KIT_SYSTEM, type: 'run', value: this.run }],
      ...extra,
    };
  }

  /** An offer of A's, published (a set-up step: arrange). */
  publishedOffer(extra: Record<string, unknown> = {}, slot = this.nextSlot()): Promise<any> {
    return arrange('a published offer', async () => {
      const draft = await must(this.a.post('/capacity-offers', this.offerBody(extra, slot)), 201, 'A creates an offer');
      return must(this.a.post(`/capacity-offers/${draft.id}/publish`, undefined, draft.resourceVersion), 200, 'A publishes it');
    });
  }

  /** A request of B's, published (a set-up step: arrange). */
  publishedRequest(extra: Record<string, unknown> = {}, slot = this.nextSlot(), by: Party = this.b): Promise<any> {
    return arrange('a published request', async () => {
      const draft = await must(by.post('/load-requests', this.requestBody(extra, slot)), 201, `${by.name} creates a request`);
      return must(by.post(`/load-requests/${draft.id}/publish`, undefined, draft.resourceVersion), 200, `${by.name} publishes it`);
    });
  }

  /** A published offer of A's and a published request of B's that match, and the proposal for them (a set-up step: arrange). */
  proposed(): Promise<{ offer: any; request: any; proposal: any }> {
    return arrange('a proposal for a published offer and request', () => this.propose());
  }

  private async propose(): Promise<{ offer: any; request: any; proposal: any }> {
    const slot = this.nextSlot();
    const offer = await this.publishedOffer({}, slot);
    const draft = await must(this.b.post('/load-requests', this.requestBody({}, slot)), 201, 'B creates a request');
    const request = await must(this.b.post(`/load-requests/${draft.id}/publish`, undefined, draft.resourceVersion), 200, 'B publishes it');
    // The broker may pair the request with another open offer of A's (an earlier check's): the
    // proposal names the one it chose.
    const proposal = await poll('proposal for the request', async () => {
      const page = await must(this.b.get(`/match-proposals?request=${request.id}&status=open`), 200, 'B lists proposals');
      return page.items.find((p: any) => p.capacityOfferId === offer.id) ?? page.items[0];
    });
    const chosen = proposal.capacityOfferId === offer.id ? offer : await must(this.a.get(`/capacity-offers/${proposal.capacityOfferId}`), 200, "A reads the proposal's offer");
    return { offer: chosen, request, proposal };
  }

  /** Notes that the proposal of `m` was accepted by both, as of now (the restricted details may be disclosed from here on). */
  accepted(m: { offer: { id: string }; request: { id: string }; proposal: { id: string } }): void {
    const at = this.recorder.exchanges.length;
    for (const id of [m.offer.id, m.request.id, m.proposal.id]) if (!this.acceptedAt.has(id)) this.acceptedAt.set(id, at);
  }

  /** The proposal accepted by both (the default policy needs both) (a set-up step: arrange). */
  committed(): Promise<{ offer: any; request: any; proposal: any }> {
    return arrange('a proposal accepted by both', async () => {
      const m = await this.propose();
      const first = await must(this.b.post(`/match-proposals/${m.proposal.id}/decisions`, { decision: 'accept' }, m.proposal.resourceVersion), 200, 'B accepts');
      const second = await must(this.a.post(`/match-proposals/${m.proposal.id}/decisions`, { decision: 'accept' }, first.resourceVersion), 200, 'A accepts');
      this.accepted(m);
      return { ...m, proposal: second };
    });
  }
}

/** Ends every open (draft, requested, active, suspended) relationship between x and y, as x. */
export async function endOpenRelationships(x: Party, y: Party): Promise<void> {
  const open = await must(x.get(`/partner-relationships?counterpart=${encodeURIComponent(y.id)}&status=draft&status=requested&status=active&status=suspended&limit=50`), 200, 'list relationships');
  for (const r of open.items as any[]) {
    const mine = r.requestingOrganizationId === x.id;
    const command = r.status === 'active' || r.status === 'suspended' ? 'terminate' : mine ? 'withdraw' : 'reject';
    await must(x.post(`/partner-relationships/${r.id}/${command}`, { reason: 'ended by the conformance kit' }, r.resourceVersion), 200, `end relationship ${r.id}`);
  }
}

/**
 * A step that only prepares a check (an offer published for a check about withdrawal, a proposal
 * accepted for a check about outcomes): when it fails, the check has no evidence of its own
 * subject and reports "no traffic" with the reason. The check whose subject that step is judges it
 * (publishing: LT-1; deciding: DP-1), so a deviation is non-conformant exactly once, where it was
 * observed.
 */
export async function arrange<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof NoTraffic) throw err;
    throw new NoTraffic(`set-up failed (${what}): ${(err as Error).message}`);
  }
}

/** The body of a reply of the expected status; anything else stops the step with what came. */
export async function must(reply: Promise<Reply> | Reply, status: number, what: string): Promise<any> {
  const r = await reply;
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)?.slice(0, 300)}`);
  return r.body;
}

/**
 * Polls `probe` until it gives a value, for up to `ms`: every 500 ms at first, then less often (a
 * long wait should not spend a sandbox's rate limit).
 */
export async function poll<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null) return value;
    const elapsed = Date.now() - started;
    if (elapsed > ms) throw new Error(`no ${what} within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, elapsed < 5000 ? 500 : 2000));
  }
}
