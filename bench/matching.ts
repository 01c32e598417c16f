// `npm run bench:matching`: the candidate search and the way from a published load request to a
// readable match proposal, in markets of N open capacity offers (N = 1,000, 10,000, 100,000), on
// PGlite and on PostgreSQL.
//
// The market is seeded straight into the read model with SQL (seeding 100,000 offers through
// Temporal would take hours): capacity_offers rows whose columns are computed by the product's own
// projection (projectCapacityOffer, captured and bulk-inserted), and active partner_relationships
// rows written by projectPartnerRelationship. 20 carrier organizations offer; 10 shipper
// organizations are partners of all of them. Offers lie in Europe (circles, lon 0..25, lat 42..58),
// are available within the next 60 days, and never have the body type the measured requests ask
// for, so every seeded offer the index returns fails compatibility and matching never reserves one.
//
// Per N, both engines:
//   1. the candidate query alone: offersFor (activities/matching.ts) in this process against the
//      seeded database, with random requests and a shipper's partners;
//   2. publish-to-proposal latency: a real broker (test/stack.ts) on the seeded database, a Temporal
//      dev server; for each request of the stream a real offer is first created and published
//      through the API where that request will look (not timed); then the request is published and
//      GET /match-proposals?request=<id> is polled until the proposal is readable;
//   3. proposals per second: bursts of requests published at concurrency 8.
// Engines are interleaved (blocks of queries, rounds of the stream, bursts). The report goes into
// docs/benchmarks.md between the bench-matching markers (the hand-written analysis outside them is
// kept) and to stdout. BENCH_MATCHING_SIZES (e.g. "1000,10000") narrows the sizes for a quick try.
import { claimDataFolder } from '../core/data-folder';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { exitGuard, f1, f2, machine, median, percentile, publishReport, runBench, treeCpuMs, type Cleanups } from './common';
import { UNLIMITED } from './load';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { projectCapacityOffer } from '../read-model/capacity-offer';
import { DEFAULT_MATCHING, offersFor } from '../read-model/matching';
import { partnershipsInForce, projectPartnerRelationship } from '../read-model/partner-relationship';
import { draftKey, pairKey } from '../api/relationship-pairs';
import type { Db, Queryable } from '../core/db';
import { openReadModel } from '../read-model/database';
import { MATCHING_SCOPES } from '../domain/matching';
import { startBroker, startTemporal, writeTestRegistry, type BrokerHandle } from '../test/stack';
import type { CapacityOffer } from '../domain/capacity-offer';
import type { LoadRequest } from '../domain/load-request';
import type { PartnerRelationship } from '../domain/partner-relationship';

const SIZES = (process.env.BENCH_MATCHING_SIZES ?? '1000,10000,100000').split(',').map(Number).filter((n) => n > 0);
const ENGINES = ['pglite', 'postgres'] as const;
type Engine = (typeof ENGINES)[number];
const ENGINE_NAMES: Record<Engine, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

const CARRIERS = Array.from({ length: 20 }, (_, i) => `org-${101 + i}`);
const SHIPPERS = Array.from({ length: 10 }, (_, i) => `org-${201 + i}`);
/** Owns the real offers; partnered through the API with the shippers of the stream. */
const REAL_CARRIER = 'org-301';
/** The latency stream's shipper, and one shipper per burst (so a burst's proposals list alone). */
const STREAM_SHIPPER = SHIPPERS[0];
const SCOPES = ['capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide'];

/** Candidate queries per engine and N, in blocks alternating between the engines. */
const QUERY_BLOCKS = 8;
const QUERIES_PER_BLOCK = 50;
/** The latency stream: rounds alternating between the engines, requests one at a time. */
const ROUNDS = 4;
const PER_ROUND = 40;
/** Throughput: bursts of requests published at a concurrency, alternating between the engines. */
const BURSTS = 3;
const BURST_SIZE = 48;
const BURST_CONCURRENCY = 8;
const BURST_SHIPPERS = SHIPPERS.slice(1, 1 + BURSTS);
/** How often the stream polls for its proposal, and the burst poller for its list. */
const POLL_MS = 10;
const BURST_POLL_MS = 50;
const PROPOSAL_TIMEOUT_MS = 30_000;
const WATCHDOG_MINUTES = 30;
const PG_URL = process.env.PCX_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stderr.write(`[bench:matching] ${msg}\n`);

/** A small deterministic generator (mulberry32): both engines get the very same market and requests. */
function rng(seed: number) {
  let s = seed | 0;
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Object.assign(next, {
    between: (a: number, b: number) => a + next() * (b - a),
    int: (a: number, b: number) => Math.floor(a + next() * (b - a + 1)),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)],
  });
}
type Rng = ReturnType<typeof rng>;

// ---------------------------------------------------------------------------------------------
// The market.

/** Every body type but the one the measured requests ask for (and 'other', which needs a description). */
const SEEDED_BODY_TYPES = ['box', 'refrigerated', 'insulated', 'tanker', 'silo', 'flatbed', 'lowLoader', 'tipper', 'containerChassis', 'carTransporter', 'walkingFloor', 'van'];
const WANTED_BODY_TYPE = 'curtainsider';
const EUROPE = { lon: [0, 25], lat: [42, 58] } as const;
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const somewhere = (r: Rng): [number, number] => [round4(r.between(EUROPE.lon[0], EUROPE.lon[1])), round4(r.between(EUROPE.lat[0], EUROPE.lat[1]))];

function seededOffer(r: Rng, now: number): CapacityOffer {
  const start = now + Math.round(r.between(0, 60 * DAY) / 60000) * 60000;
  const end = start + Math.round(r.between(1, 4) * 24) * HOUR;
  const direction = r.pick(['oneWay', 'oneWay', 'oneWay', 'oneWay', 'oneWay', 'oneWay', 'roundTrip', 'eitherWay']);
  return {
    id: randomUUID(),
    resourceVersion: 2,
    ownerOrganizationId: r.pick(CARRIERS),
    createdAt: iso(now),
    updatedAt: iso(now),
    status: 'published',
    publishedAt: iso(now),
    availabilityWindow: { start: iso(start), end: iso(end), timeZone: 'Europe/Berlin' },
    originArea: { kind: 'circle', center: somewhere(r), radiusKm: r.int(10, 60) },
    destinationArea: { kind: 'circle', center: somewhere(r), radiusKm: r.int(10, 60) },
    direction,
    vehicleProfile: { bodyType: r.pick(SEEDED_BODY_TYPES), vehicleCategory: 'articulated', equipment: ['straps'] },
    availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, loadingMetres: { value: 13.6, unitCode: 'MTR' }, palletSpaces: 33 },
    maximumDetour: { kilometres: r.int(20, 150) },
    expiresAt: iso(end),
    visibility: { mode: 'open' },
    restrictedDetails: { price: { amount: r.int(400, 2500), currency: 'EUR' }, vehicleRegistration: 'HH-PC 1234' },
    allocations: [],
    proposedRequestIds: [],
  };
}

/** A random request anywhere in the market (the candidate-query benchmark). */
function randomRequest(r: Rng, now: number): LoadRequest {
  const start = now + Math.round(r.between(1 * DAY, 59 * DAY) / 60000) * 60000;
  return {
    id: randomUUID(),
    resourceVersion: 2,
    ownerOrganizationId: STREAM_SHIPPER,
    createdAt: iso(now),
    updatedAt: iso(now),
    status: 'published',
    pickupArea: { kind: 'circle', center: somewhere(r), radiusKm: r.int(5, 30) },
    pickupWindow: { start: iso(start), end: iso(start + r.int(4, 24) * HOUR) },
    deliveryArea: { kind: 'circle', center: somewhere(r), radiusKm: r.int(5, 30) },
    deliveryWindow: { start: iso(start + 6 * HOUR), end: iso(start + 3 * DAY) },
    requiredCapacity: { weight: { value: 12000, unitCode: 'KGM' }, palletSpaces: 12 },
    vehicleRequirements: { bodyTypes: [WANTED_BODY_TYPE] },
    goodsProfile: { category: 'general' },
    proposalIds: [],
    openProposalIds: [],
  };
}

/**
 * One pair of the stream: a real offer and the request that will find it. Each pair has a grid
 * cell of its own (0.5 degree) for its origin and pickup, and the reach of a real offer (5 km
 * circle, 10 km detour) stays inside its cell, so a request finds its own real offer and no other.
 */
interface Pair {
  offer: Record<string, unknown>;
  request: Record<string, unknown>;
}

function pairs(count: number, seed: number, now: number): Pair[] {
  const r = rng(seed);
  const columns = 50; // lon 0..25 by 0.5
  const rows = 32; // lat 42..58 by 0.5
  if (count > columns * rows) throw new Error(`at most ${columns * rows} pairs per phase`);
  const cells = Array.from({ length: columns * rows }, (_, i) => i);
  for (let i = cells.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [cells[i], cells[j]] = [cells[j], cells[i]];
  }
  const centre = (cell: number): [number, number] => [0.25 + 0.5 * (cell % columns), 42.25 + 0.5 * Math.floor(cell / columns)];
  return Array.from({ length: count }, (_, k) => {
    const origin = centre(cells[k]);
    const destination = centre(r.int(0, columns * rows - 1));
    const t = now + Math.round(r.between(2 * DAY, 56 * DAY) / 60000) * 60000;
    return {
      offer: {
        availabilityWindow: { start: iso(t - 6 * HOUR), end: iso(t + 3 * DAY), timeZone: 'Europe/Berlin' },
        originArea: { kind: 'circle', center: origin, radiusKm: 5 },
        destinationArea: { kind: 'circle', center: destination, radiusKm: 5 },
        direction: 'oneWay',
        vehicleProfile: { bodyType: WANTED_BODY_TYPE, vehicleCategory: 'articulated', equipment: ['straps', 'tailLift'] },
        availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, loadingMetres: { value: 13.6, unitCode: 'MTR' }, palletSpaces: 33 },
        maximumDetour: { kilometres: 10 },
        expiresAt: iso(t + 3 * DAY),
        visibility: { mode: 'open' },
        restrictedDetails: { price: { amount: 950, currency: 'EUR' } },
      },
      request: {
        pickupArea: { kind: 'circle', center: origin, radiusKm: 2 },
        pickupWindow: { start: iso(t), end: iso(t + 4 * HOUR) },
        deliveryArea: { kind: 'circle', center: destination, radiusKm: 2 },
        deliveryWindow: { start: iso(t + 4 * HOUR), end: iso(t + 3 * DAY) },
        requiredCapacity: { weight: { value: 12000, unitCode: 'KGM' }, palletSpaces: 12 },
        vehicleRequirements: { bodyTypes: [WANTED_BODY_TYPE] },
        goodsProfile: { category: 'general' },
        expiresAt: iso(t + 3 * DAY),
        visibility: { mode: 'open' },
        restrictedDetails: { customer: { name: 'Bench Retail' } },
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Seeding the read model with SQL.

/** The statement projectListing runs, with its parameters in this order (checked at run time). */
const LISTING_COLUMNS = [
  'id', 'resource_version', 'owner_organization_id', 'status', 'visibility_mode', 'visibility_organization_ids', 'visibility_groups',
  'window_start', 'window_end', 'origin_box', 'destination_box', 'created_at', 'updated_at', 'doc',
  'match_origin', 'match_destination', 'match_window_start', 'match_window_end', 'reversible', 'counterparts',
] as const;

/** The row projectCapacityOffer would write: its own computation (boxes, reach, window), captured instead of executed. */
async function offerRow(offer: CapacityOffer): Promise<Record<string, unknown>> {
  let captured: { sql: string; params: unknown[] } | undefined;
  const capture: Queryable = {
    async query(sql: string, params?: unknown[]) {
      captured = { sql, params: params ?? [] };
      return { rows: [], rowCount: 0 };
    },
  };
  await projectCapacityOffer(capture, offer);
  if (!captured || !/insert into capacity_offers\s*\(id, resource_version, owner_organization_id, status, visibility_mode/.test(captured.sql.replace(/\s+/g, ' ')) || captured.params.length !== LISTING_COLUMNS.length) {
    throw new Error('projectListing changed its statement: update LISTING_COLUMNS in bench/matching.ts');
  }
  const row: Record<string, unknown> = {};
  LISTING_COLUMNS.forEach((name, i) => (row[name] = name === 'doc' ? JSON.parse(captured!.params[i] as string) : captured!.params[i]));
  return row;
}

const INSERT_OFFERS = `insert into capacity_offers
    (id, resource_version, owner_organization_id, status, visibility_mode, visibility_organization_ids, visibility_groups,
     window_start, window_end, origin_box, destination_box, created_at, updated_at, doc,
     match_origin, match_destination, match_window, reversible, counterparts)
  select id, resource_version, owner_organization_id, status, visibility_mode, visibility_organization_ids, visibility_groups,
     window_start, window_end, origin_box, destination_box, created_at, updated_at, doc,
     match_origin::box, match_destination::box,
     case when match_window_start is null then null else tstzrange(match_window_start, match_window_end, '[]') end, reversible, counterparts
    from jsonb_to_recordset($1::jsonb) as r(id uuid, resource_version integer, owner_organization_id text, status text, visibility_mode text,
      visibility_organization_ids text[], visibility_groups text[], window_start timestamptz, window_end timestamptz, origin_box float8[],
      destination_box float8[], created_at timestamptz, updated_at timestamptz, doc jsonb, match_origin text, match_destination text,
      match_window_start timestamptz, match_window_end timestamptz, reversible boolean, counterparts text[])`;

/** Active relationships: every carrier with every shipper, as the relationship workflow leaves them after accept. */
async function seedRelationships(db: Db, now: number) {
  await db.transaction(async (tx) => {
    for (const carrier of CARRIERS) {
      for (const shipper of SHIPPERS) {
        const at = iso(now - DAY);
        const relationship: PartnerRelationship = {
          id: randomUUID(),
          resourceVersion: 3,
          ownerOrganizationId: carrier,
          createdAt: at,
          updatedAt: at,
          status: 'active',
          requestingOrganizationId: carrier,
          acceptingOrganizationId: shipper,
          requestedScopes: [...SCOPES].sort(),
          scopes: [...SCOPES].sort(),
          visibilityPolicy: { groups: [] },
          decisionPolicy: { mode: 'BILATERAL_REQUIRED' },
          effectiveFrom: at,
          submittedAt: at,
          activatedAt: at,
          reasons: [],
        };
        await projectPartnerRelationship(tx, relationship);
        // The claims the API takes on create and request (api/relationship-pairs.ts).
        for (const key of [draftKey(carrier, shipper), pairKey(carrier, shipper)]) {
          await tx.query('insert into relationship_pairs (pair_key, relationship_id, requesting_organization_id) values ($1, $2, $3)', [key, relationship.id, carrier]);
        }
      }
    }
  });
}

async function seedOffers(db: Db, n: number, seed: number, now: number) {
  const r = rng(seed);
  const BATCH = 1000;
  for (let from = 0; from < n; from += BATCH) {
    const rows: Array<Record<string, unknown>> = [];
    for (let i = from; i < Math.min(n, from + BATCH); i++) rows.push(await offerRow(seededOffer(r, now)));
    await db.query(INSERT_OFFERS, [JSON.stringify(rows)]);
  }
  await db.query('analyze capacity_offers');
  await db.query('analyze partner_relationships');
}

// ---------------------------------------------------------------------------------------------
// HTTP as a connector.

interface Reply {
  status: number;
  body: any;
}

async function call(base: string, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function expectOk(reply: Promise<Reply>, status: number, what: string): Promise<any> {
  const r = await reply;
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
  return r.body;
}

async function tokenOf(base: string, org: string): Promise<string> {
  const n = org.slice('org-'.length);
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: `client-${n}`, client_secret: `secret-${n}` });
  const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: form, signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new Error(`token for ${org}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as any).access_token;
}

/** Runs `fn` over `items` with at most `concurrency` at a time. */
async function pool<T, U>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<U>): Promise<U[]> {
  const out: U[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

// ---------------------------------------------------------------------------------------------
// CPU time per process tree, from /proc (as in bench/relationships.ts).


// ---------------------------------------------------------------------------------------------
// One engine's stack for one N: a broker on the seeded database, tokens, real relationships.

interface Stack {
  engine: Engine;
  broker: BrokerHandle;
  tokens: Map<string, string>;
}

async function partnerThroughApi(stack: Stack, shipper: string) {
  const { baseUrl } = stack.broker;
  const carrierToken = stack.tokens.get(REAL_CARRIER)!;
  const created = await expectOk(
    call(baseUrl, 'POST', '/partner-relationships', carrierToken, { requestingOrganizationId: REAL_CARRIER, acceptingOrganizationId: shipper, scopes: SCOPES }),
    201,
    'create relationship',
  );
  await expectOk(call(baseUrl, 'POST', `/partner-relationships/${created.id}/request`, carrierToken, undefined, { 'if-match': '"1"' }), 200, 'request relationship');
  await expectOk(call(baseUrl, 'POST', `/partner-relationships/${created.id}/accept`, stack.tokens.get(shipper)!, undefined, { 'if-match': '"2"' }), 200, 'accept relationship');
}

/** Real offers published and requests created as drafts (not timed); returns the ids. */
async function prepare(stack: Stack, shipper: string, batch: Pair[]): Promise<Array<{ offerId: string; requestId: string }>> {
  const { baseUrl } = stack.broker;
  const carrierToken = stack.tokens.get(REAL_CARRIER)!;
  const shipperToken = stack.tokens.get(shipper)!;
  return pool(batch, 8, async (pair) => {
    const offer = await expectOk(call(baseUrl, 'POST', '/capacity-offers', carrierToken, pair.offer), 201, 'create offer');
    await expectOk(call(baseUrl, 'POST', `/capacity-offers/${offer.id}/publish`, carrierToken, undefined, { 'if-match': '"1"' }), 200, 'publish offer');
    const request = await expectOk(call(baseUrl, 'POST', '/load-requests', shipperToken, pair.request), 201, 'create request');
    return { offerId: offer.id, requestId: request.id };
  });
}

/** Waits until no matching flow runs (the real offers' own matching is over before a request is published). */
async function flowsIdle(temporal: TemporalClient) {
  await sleep(300);
  const deadline = Date.now() + 60_000;
  let quiet = 0;
  while (quiet < 2) {
    const { count } = await temporal.workflow.count(`WorkflowType = 'matchListingFlow' AND ExecutionStatus = 'Running'`);
    quiet = count === 0 ? quiet + 1 : 0;
    if (Date.now() > deadline) throw new Error(`matching flows still running after 60 s (${count})`);
    await sleep(150);
  }
}

interface StreamSample {
  engine: Engine;
  n: number;
  round: number;
  requestId: string;
  offerId: string;
  publishMs: number;
  /** performance.now() and Date.now() when the publish answer arrived. */
  answeredAt: number;
  answeredWall: number;
  latencyMs: number;
  ok: boolean;
  wrongOffer: boolean;
}

async function stream(stack: Stack, n: number, round: number, prepared: Array<{ offerId: string; requestId: string }>): Promise<StreamSample[]> {
  const { baseUrl } = stack.broker;
  const token = stack.tokens.get(STREAM_SHIPPER)!;
  const out: StreamSample[] = [];
  for (const { offerId, requestId } of prepared) {
    const t0 = performance.now();
    await expectOk(call(baseUrl, 'POST', `/load-requests/${requestId}/publish`, token, undefined, { 'if-match': '"1"' }), 200, 'publish request');
    const answeredAt = performance.now();
    const answeredWall = Date.now();
    let found: any;
    while (!found && performance.now() - answeredAt < PROPOSAL_TIMEOUT_MS) {
      const list = await expectOk(call(baseUrl, 'GET', `/match-proposals?request=${requestId}`, token), 200, 'list proposals');
      if (list.items.length) found = list.items[0];
      else await sleep(POLL_MS);
    }
    const latencyMs = performance.now() - answeredAt;
    out.push({ engine: stack.engine, n, round, requestId, offerId, publishMs: answeredAt - t0, answeredAt, answeredWall, latencyMs, ok: !!found, wrongOffer: !!found && found.capacityOfferId !== offerId });
    await sleep(20); // let the flow close before the next request
  }
  return out;
}

interface Burst {
  engine: Engine;
  n: number;
  proposals: number;
  requests: number;
  seconds: number;
  latencies: number[];
  cpu: { broker: number; temporal: number };
  wrongOffer: number;
}

async function burst(stack: Stack, temporalPid: number, n: number, shipper: string, prepared: Array<{ offerId: string; requestId: string }>): Promise<Burst> {
  const { baseUrl } = stack.broker;
  const token = stack.tokens.get(shipper)!;
  const answered = new Map<string, number>();
  const seen = new Map<string, number>();
  const offerOf = new Map(prepared.map((p) => [p.requestId, p.offerId]));
  let wrongOffer = 0;
  const cpu0 = { broker: treeCpuMs(stack.broker.process.pid!), temporal: treeCpuMs(temporalPid) };
  const started = performance.now();
  let publishing = true;
  const poller = (async () => {
    while (seen.size < prepared.length && performance.now() - started < 60_000) {
      await sleep(BURST_POLL_MS);
      const list = await expectOk(call(baseUrl, 'GET', `/match-proposals?role=shipper&limit=200`, token), 200, 'list proposals');
      const now = performance.now();
      for (const p of list.items) {
        if (seen.has(p.loadRequestId)) continue;
        seen.set(p.loadRequestId, now);
        if (offerOf.get(p.loadRequestId) !== p.capacityOfferId) wrongOffer++;
      }
      if (!publishing && seen.size >= prepared.length) break;
    }
  })();
  await pool(prepared, BURST_CONCURRENCY, async ({ requestId }) => {
    await expectOk(call(baseUrl, 'POST', `/load-requests/${requestId}/publish`, token, undefined, { 'if-match': '"1"' }), 200, 'publish request');
    answered.set(requestId, performance.now());
  });
  publishing = false;
  await poller;
  const last = seen.size ? Math.max(...seen.values()) : performance.now();
  const cpu1 = { broker: treeCpuMs(stack.broker.process.pid!), temporal: treeCpuMs(temporalPid) };
  return {
    engine: stack.engine,
    n,
    proposals: seen.size,
    requests: prepared.length,
    seconds: (last - started) / 1000,
    latencies: [...seen.entries()].map(([id, at]) => at - answered.get(id)!),
    cpu: { broker: cpu1.broker - cpu0.broker, temporal: cpu1.temporal - cpu0.temporal },
    wrongOffer,
  };
}

// ---------------------------------------------------------------------------------------------
// Where the time goes: the matching flow's history (Temporal event times) against the publish answer.

const MILESTONES = ['flow started', 'findMatches done', 'pair proposed', 'flow closed', 'readable'] as const;
/** The flow's two activities, each: waiting for the flow to schedule it, queued until a worker starts it, running. */
const STEPS = ['findMatches', 'reserve + propose + create'] as const;
type StepPart = `${(typeof STEPS)[number]} ${'wait' | 'queued' | 'run'}`;
type Milestones = Partial<Record<(typeof MILESTONES)[number] | StepPart, number>>;

const eventMs = (t: any) => Number(String(t?.seconds ?? 0)) * 1000 + (t?.nanos ?? 0) / 1e6;

async function breakdown(temporal: TemporalClient, samples: StreamSample[]): Promise<Map<string, Milestones>> {
  const byRequest = new Map(samples.map((s) => [s.requestId, s]));
  const since = iso(Math.min(...samples.map((s) => s.answeredWall)) - 5000);
  const out = new Map<string, Milestones>();
  for await (const info of temporal.workflow.list({ query: `WorkflowType = 'matchListingFlow' AND StartTime >= '${since}'` })) {
    if (!info.workflowId.startsWith('load-request/')) continue;
    const requestId = info.workflowId.split('/')[1];
    const sample = byRequest.get(requestId);
    if (!sample) continue;
    const history = await temporal.workflow.getHandle(info.workflowId, info.runId).fetchHistory();
    const scheduled = new Map<string, { step?: (typeof STEPS)[number]; at: number }>();
    const started = new Map<string, number>();
    const m: Milestones = {};
    const at = (e: any) => eventMs(e.eventTime) - sample.answeredWall;
    // The pair's three commands go in one activity (workflows/flows/commands.ts, inOrder).
    const stepOf = (type: string) => (type === 'findMatches' ? 'findMatches' : type === 'sendInOrder' ? 'reserve + propose + create' : undefined);
    const MILESTONE_OF = { findMatches: 'findMatches done', 'reserve + propose + create': 'pair proposed' } as const;
    let previous: number | undefined; // the flow's start, then the last activity's completion
    for (const e of history.events ?? []) {
      if (e.workflowExecutionStartedEventAttributes) previous = m['flow started'] = at(e);
      const s = e.activityTaskScheduledEventAttributes;
      if (s) {
        const step = stepOf(s.activityType?.name ?? '');
        scheduled.set(String(e.eventId), { step, at: at(e) });
        if (step && m[`${step} wait`] === undefined && previous !== undefined) m[`${step} wait`] = at(e) - previous;
      }
      const st = e.activityTaskStartedEventAttributes;
      if (st) {
        started.set(String(st.scheduledEventId), at(e));
        const sch = scheduled.get(String(st.scheduledEventId));
        if (sch?.step && m[`${sch.step} queued`] === undefined) m[`${sch.step} queued`] = at(e) - sch.at;
      }
      const c = e.activityTaskCompletedEventAttributes;
      if (c) {
        const sch = scheduled.get(String(c.scheduledEventId));
        previous = at(e);
        if (sch?.step && m[MILESTONE_OF[sch.step]] === undefined) {
          m[MILESTONE_OF[sch.step]] = at(e);
          m[`${sch.step} run`] = at(e) - (started.get(String(c.scheduledEventId)) ?? at(e));
        }
      }
      if (e.workflowExecutionCompletedEventAttributes) m['flow closed'] = at(e);
    }
    m.readable = sample.latencyMs;
    out.set(requestId, m);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Statistics and the report.

const range = (xs: number[], f = f1) => (xs.length ? `${f(Math.min(...xs))}–${f(Math.max(...xs))}` : '–');
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

interface QuerySample {
  engine: Engine;
  n: number;
  block: number;
  ms: number;
  rows: number;
}

interface Results {
  machine: string[];
  versions: Partial<Record<Engine, string>>;
  seeding: Array<{ engine: Engine; n: number; seconds: number }>;
  queries: QuerySample[];
  streams: StreamSample[];
  bursts: Burst[];
  milestones: Array<{ engine: Engine; n: number; m: Milestones }>;
  plans: Partial<Record<Engine, string[]>>;
  /** The machine's 1-minute load average when each part of each N began and ended (other sessions share it). */
  load: Array<{ n: number; part: string; start: number; end: number }>;
  seconds: number;
}

// The report, one function per section; each returns its lines, a blank line before its heading.
const queriesOf = (x: Results, e: Engine, n: number) => x.queries.filter((s) => s.engine === e && s.n === n);
const streamsOf = (x: Results, e: Engine, n: number) => x.streams.filter((s) => s.engine === e && s.n === n);
const okLatencies = (x: Results, e: Engine, n: number) => streamsOf(x, e, n).filter((s) => s.ok).map((s) => s.latencyMs);
const milestonesOf = (x: Results, e: Engine, n: number) => x.milestones.filter((v) => v.engine === e && v.n === n).map((v) => v.m);
const milestoneCol = (ms: Milestones[], k: keyof Milestones) => f1(median(ms.map((m) => m[k]).filter((v): v is number => v !== undefined)));
const sizeEngineRows = (row: (n: number, e: Engine) => string) => SIZES.flatMap((n) => ENGINES.map((e) => row(n, e)));

function report(x: Results): string {
  return [
    ...machineAndMethod(x),
    ...candidateQueryTable(x),
    ...latencyTable(x),
    ...burstTable(x),
    ...breakdownTables(x),
    ...targets(x),
    ...seedingTable(x),
    ...loadTable(x),
    ...planBlocks(x),
  ].join('\n');
}

function machineAndMethod(x: Results): string[] {
  return [
    '### Machine',
    '',
    ...x.machine,
    ...ENGINES.map((e) => `- ${ENGINE_NAMES[e]}: ${x.versions[e] ?? 'unknown'}`),
    `- Whole run: ${(x.seconds / 60).toFixed(1)} min`,
    '',
    '### Reproduce and method',
    '',
    '```sh',
    `npm run bench:matching${process.env.BENCH_MATCHING_SIZES ? `  # with BENCH_MATCHING_SIZES=${process.env.BENCH_MATCHING_SIZES}` : ''}`,
    '```',
    '',
    `- **The market is seeded with SQL, not through Temporal** (100,000 offers through the API would take hours): for each N and engine a`,
    `  fresh database (a PGlite data directory, a PostgreSQL schema of its own) gets N \`capacity_offers\` rows whose columns are computed by`,
    `  the product's projection (\`projectCapacityOffer\`, captured and bulk-inserted; status \`published\`, \`match_*\` columns, \`reversible\`, the`,
    `  document), and ${CARRIERS.length * SHIPPERS.length} active \`partner_relationships\` rows (\`projectPartnerRelationship\`, scopes including capacity:publish and`,
    `  loads:read, with their \`relationship_pairs\` claims): ${CARRIERS.length} carriers (${CARRIERS[0]}..${CARRIERS[CARRIERS.length - 1]}), each a partner of all ${SHIPPERS.length} shippers`,
    `  (${SHIPPERS[0]}..${SHIPPERS[SHIPPERS.length - 1]}). The PGlite data directory is seeded with \`openDb\` while no broker runs, then closed and handed to the broker.`,
    `- Seeded offers: origin and destination circles (10–60 km) anywhere in lon ${EUROPE.lon.join('..')}, lat ${EUROPE.lat.join('..')}; availability windows of 1–4 days`,
    `  starting within the next 60 days; maximum detour 20–150 km; 25 % round trip or either way; body types other than ${WANTED_BODY_TYPE}. Every`,
    `  request measured here asks for ${WANTED_BODY_TYPE}, so each seeded offer the index returns fails compatibility (bodyType) and is never reserved.`,
    `- **Candidate query**: \`offersFor\` (activities/matching.ts) called in the bench process on the seeded database (PGlite in-process behind the`,
    `  product's mutex, PostgreSQL through a pg pool), with the partners of ${STREAM_SHIPPER} as \`partnershipsInForce\` returns them (${CARRIERS.length}) and the`,
    `  product's candidate limit (${DEFAULT_MATCHING.candidateLimit}); random requests (pickup and delivery circles of 5–30 km anywhere, pickup windows of 4–24 h within the 60`,
    `  days); ${QUERY_BLOCKS} blocks of ${QUERIES_PER_BLOCK} per engine, alternating engines. "rows" is what the index returned (all seeded, all incompatible).`,
    `- **Publish-to-proposal**: a real broker (\`test/stack.ts\` startBroker, rate limits out of the way) on the seeded database and a Temporal`,
    `  dev server; both engines' brokers run side by side and take turns (${ROUNDS} rounds of ${PER_ROUND} requests each, alternating). ${REAL_CARRIER} is`,
    `  partnered with the stream's shippers **through the API** (create, request, accept), so the proposals rest on real relationship`,
    `  workflows. Before each round, and not timed, one real offer per request is created and published through the API where that request`,
    `  will look (its own 0.5° grid cell, 5 km circle, 10 km detour, ${WANTED_BODY_TYPE}), and the bench waits until no matching flow runs.`,
    `  Then the requests are published one at a time: latency runs from the publish answer until \`GET /match-proposals?request=<id>\``,
    `  returns the proposal (polled every ${POLL_MS} ms, so figures include up to ${POLL_MS} ms of polling plus one GET).`,
    `- **Proposals per second**: ${BURSTS} bursts per engine and N of ${BURST_SIZE} requests published at concurrency ${BURST_CONCURRENCY} (real offers prepared as above, a`,
    `  shipper of their own per burst); the rate is proposals over the time from the first publish to the last proposal readable (one`,
    `  poller lists the shipper's proposals every ${BURST_POLL_MS} ms). CPU per proposal counts the broker and the Temporal server processes (not PostgreSQL's).`,
    '',
  ];
}

function candidateQueryTable(x: Results): string[] {
  return [
    '### Candidate query (offersFor; ms)',
    '',
    '| N | engine | p50 | p95 | p99 | block p50 min–max | block p95 median (min–max) | rows per query (mean / max) | n |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|',
    ...sizeEngineRows((n, e) => {
      const s = queriesOf(x, e, n);
      const ms = s.map((v) => v.ms);
      const blocks = [...new Set(s.map((v) => v.block))].map((b) => s.filter((v) => v.block === b).map((v) => v.ms));
      return `| ${n.toLocaleString('en')} | ${ENGINE_NAMES[e]} | ${f2(percentile(ms, 50))} | ${f2(percentile(ms, 95))} | ${f2(percentile(ms, 99))} | ${range(blocks.map(median), f2)} | ${f2(median(blocks.map((b) => percentile(b, 95))))} (${range(blocks.map((b) => percentile(b, 95)), f2)}) | ${f1(mean(s.map((v) => v.rows)))} / ${Math.max(0, ...s.map((v) => v.rows))} | ${s.length} |`;
    }),
  ];
}

function latencyTable(x: Results): string[] {
  return [
    '',
    '### Publish-to-proposal latency (ms, requests one at a time)',
    '',
    '| N | engine | p50 | p95 | p99 | round p50 min–max | round p95 min–max | publish answer p50 | n | failed |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...sizeEngineRows((n, e) => {
      const s = streamsOf(x, e, n);
      const ok = okLatencies(x, e, n);
      const rounds = [...new Set(s.map((v) => v.round))].map((r) => s.filter((v) => v.round === r && v.ok).map((v) => v.latencyMs));
      const failed = s.filter((v) => !v.ok || v.wrongOffer).length;
      return `| ${n.toLocaleString('en')} | ${ENGINE_NAMES[e]} | ${f1(percentile(ok, 50))} | ${f1(percentile(ok, 95))} | ${f1(percentile(ok, 99))} | ${range(rounds.map(median))} | ${range(rounds.map((r) => percentile(r, 95)))} | ${f1(median(s.map((v) => v.publishMs)))} | ${ok.length} | ${failed} |`;
    }),
  ];
}

function burstTable(x: Results): string[] {
  const rate = (b: Burst) => b.proposals / b.seconds;
  return [
    '',
    `### Proposals per second (bursts of ${BURST_SIZE} requests at concurrency ${BURST_CONCURRENCY})`,
    '',
    '| N | engine | proposals/s median (min–max) | latency under load p50 / p95 (ms) | CPU-ms per proposal: broker / Temporal | proposals / requests |',
    '|---:|---|---:|---:|---:|---:|',
    ...sizeEngineRows((n, e) => {
      const b = x.bursts.filter((v) => v.engine === e && v.n === n);
      const lat = b.flatMap((v) => v.latencies);
      return `| ${n.toLocaleString('en')} | ${ENGINE_NAMES[e]} | ${f1(median(b.map(rate)))} (${range(b.map(rate))}) | ${f1(percentile(lat, 50))} / ${f1(percentile(lat, 95))} | ${f1(median(b.map((v) => v.cpu.broker / v.proposals)))} / ${f1(median(b.map((v) => v.cpu.temporal / v.proposals)))} | ${b.reduce((a, v) => a + v.proposals, 0)} / ${b.reduce((a, v) => a + v.requests, 0)}${b.some((v) => v.wrongOffer) ? ` (${b.reduce((a, v) => a + v.wrongOffer, 0)} with another offer)` : ''} |`;
    }),
  ];
}

/** Where the time goes: the milestones, then the same flows step by step. */
function breakdownTables(x: Results): string[] {
  return [
    '',
    '### Where publish-to-proposal time goes (median ms after the publish answer; Temporal event times of the request\'s matching flow)',
    '',
    `From the last two rounds of the stream. A negative value happened before the publish answer reached the client (the flow starts`,
    'inside the publish Update).',
    '',
    `| N | engine | ${MILESTONES.join(' | ')} | n |`,
    `|---:|---|${MILESTONES.map(() => '---:').join('|')}|---:|`,
    ...sizeEngineRows((n, e) => {
      const ms = milestonesOf(x, e, n);
      return `| ${n.toLocaleString('en')} | ${ENGINE_NAMES[e]} | ${MILESTONES.map((k) => milestoneCol(ms, k)).join(' | ')} | ${ms.length} |`;
    }),
    '',
    'The same flows step by step (median ms): *wait* from the previous step\'s completion (or the flow\'s start) until the flow schedules',
    'the activity (a workflow task), *queued* until a worker starts it, *run* until it completes. findMatches reads the partners, the',
    'request and the candidates (`offersFor`) and evaluates them; the pair\'s three commands go in one activity (sendInOrder):',
    'reserve and propose are Updates of the offer and of the request, create starts the proposal\'s workflow (update-with-start);',
    'each sender writes its transition.',
    '',
    `| N | engine | ${STEPS.map((s) => `${s}: wait / queued / run`).join(' | ')} |`,
    `|---:|---|${STEPS.map(() => '---:').join('|')}|`,
    ...sizeEngineRows((n, e) => {
      const ms = milestonesOf(x, e, n);
      return `| ${n.toLocaleString('en')} | ${ENGINE_NAMES[e]} | ${STEPS.map((s) => (['wait', 'queued', 'run'] as const).map((p) => milestoneCol(ms, `${s} ${p}`)).join(' / ')).join(' | ')} |`;
    }),
  ];
}

/** The issue's targets, each only when the run covered the sizes it names. */
function targets(x: Results): string[] {
  const largest = Math.max(...SIZES);
  const smallest = Math.min(...SIZES);
  const met = (b: boolean) => (b ? '**met**' : '**not met**');
  const lines = ['', '### Targets', ''];
  if (largest === 100000) {
    for (const e of ENGINES) {
      const p95 = percentile(queriesOf(x, e, largest).map((v) => v.ms), 95);
      lines.push(`- Candidate query p95 ≤ 5 ms at N = 100,000, ${ENGINE_NAMES[e]}: ${f2(p95)} ms, ${met(p95 <= 5)}.`);
    }
  }
  if (SIZES.includes(10000)) {
    for (const e of ENGINES) {
      const p95 = percentile(okLatencies(x, e, 10000), 95);
      lines.push(`- Publish-to-proposal p95 ≤ 150 ms at N = 10,000, ${ENGINE_NAMES[e]}: ${f1(p95)} ms, ${met(p95 <= 150)}.`);
    }
  }
  if (largest === 100000 && smallest === 1000) {
    for (const e of ENGINES) {
      const a = percentile(okLatencies(x, e, 1000), 95);
      const b = percentile(okLatencies(x, e, 100000), 95);
      const ra = median(okLatencies(x, e, 1000));
      const rb = median(okLatencies(x, e, 100000));
      lines.push(
        `- Publish-to-proposal p95 at N = 100,000 ≤ 1.25 × the N = 1,000 figure, ${ENGINE_NAMES[e]}: ${f1(b)} against ${f1(a)} ms, ratio ${f2(b / a)}, ${met(b <= 1.25 * a)} (p50 ratio ${f2(rb / ra)}).`,
      );
    }
  }
  return lines;
}

function seedingTable(x: Results): string[] {
  return [
    '',
    '### Seeding (s)',
    '',
    `| N | ${ENGINES.map((e) => ENGINE_NAMES[e]).join(' | ')} |`,
    `|---:|${ENGINES.map(() => '---:').join('|')}|`,
    ...SIZES.map((n) => `| ${n.toLocaleString('en')} | ${ENGINES.map((e) => f1(x.seeding.find((s) => s.engine === e && s.n === n)?.seconds ?? NaN)).join(' | ')} |`),
  ];
}

function loadTable(x: Results): string[] {
  const parts = [...new Set(x.load.map((l) => l.part))];
  return [
    '',
    '### Load average (1 min) at the start and end of each part',
    '',
    'The machine is shared: other sessions\' test suites run beside the benchmark. 2 cores; a load above 2 means waiting for a core.',
    '',
    `| N | ${parts.join(' | ')} |`,
    `|---:|${parts.map(() => '---:').join('|')}|`,
    ...SIZES.map((n) => `| ${n.toLocaleString('en')} | ${parts.map((p) => x.load.find((l) => l.n === n && l.part === p)).map((l) => (l ? `${l.start.toFixed(1)} → ${l.end.toFixed(1)}` : '–')).join(' | ')} |`),
  ];
}

function planBlocks(x: Results): string[] {
  const largest = Math.max(...SIZES);
  return ENGINES.filter((e) => x.plans[e]).flatMap((e) => [
    '',
    `### Plan of the candidate query at N = ${largest.toLocaleString('en')}, ${ENGINE_NAMES[e]} (EXPLAIN ANALYZE, BUFFERS; one random request; conditions elided)`,
    '',
    '```',
    ...x.plans[e]!,
    '```',
  ]);
}

// ---------------------------------------------------------------------------------------------

/** The candidate query's plan for one request, without the long condition lines. */
async function plan(db: Db, request: LoadRequest, partners: string[]): Promise<string[]> {
  // offersFor's statement, run under EXPLAIN: a Queryable that prefixes it.
  let lines: string[] = [];
  const explaining: Queryable = {
    async query(sql: string, params?: unknown[]) {
      const r = await db.query<Record<string, string>>(`explain (analyze, buffers) ${sql}`, params);
      lines = r.rows.map((row) => Object.values(row)[0]);
      return { rows: [], rowCount: 0 };
    },
  };
  await offersFor(explaining, request, partners, DEFAULT_MATCHING.candidateLimit);
  return lines.filter((l) => !/^\s*(Recheck Cond|Filter|Index Cond|Join Filter|Output):/.test(l));
}

/** What every N shares: one Temporal dev server, the registry, the PostgreSQL admin connection. */
interface Bench {
  dir: string;
  results: Results;
  cleanups: Cleanups;
  temporal: Awaited<ReturnType<typeof startTemporal>>;
  temporalClient: TemporalClient;
  registry: ReturnType<typeof writeTestRegistry>;
  admin: PgClient;
}

/** One N: its markets' databases (a PostgreSQL schema, a PGlite data directory). */
interface Size {
  n: number;
  now: number;
  last: boolean;
  databaseUrl: string;
  pgliteDir: string;
}

/** Runs one part of one N, recording the machine's load average before and after (the machine is shared). */
async function part<T>(results: Results, n: number, name: string, fn: () => Promise<T>): Promise<T> {
  const start = loadavg()[0];
  const out = await fn();
  results.load.push({ n, part: name, start, end: loadavg()[0] });
  return out;
}

async function setUp(dir: string, results: Results, cleanups: Cleanups): Promise<Bench> {
  const temporal = await startTemporal();
  cleanups.push(() => temporal.stop());
  const connection = await Connection.connect({ address: temporal.address });
  cleanups.push(() => connection.close());
  const temporalClient = new TemporalClient({ connection });
  const registry = writeTestRegistry(join(dir, 'registry'));
  const admin = new PgClient({ connectionString: PG_URL });
  await admin.connect();
  cleanups.push(() => admin.end());
  return { dir, results, cleanups, temporal, temporalClient, registry, admin };
}

/** Both engines seeded with identical markets (same generator seed); the databases stay open for the candidate queries. */
async function seedEngines(b: Bench, z: Size): Promise<Record<Engine, Db>> {
  const dbs = {} as Record<Engine, Db>;
  for (const engine of ENGINES) {
    const t0 = performance.now();
    // The PGlite folder is claimed in this version's format first, as the broker that later opens it expects (core/data-folder.ts).
    if (engine === 'pglite') claimDataFolder(z.pgliteDir);
    const db = engine === 'pglite' ? await openReadModel({ dataDir: z.pgliteDir }) : await openReadModel({ databaseUrl: z.databaseUrl, dataDir: join(b.dir, 'unused'), poolSize: 4 });
    dbs[engine] = db;
    b.results.versions[engine] ??= ((await db.query<{ v: string }>('select version() as v')).rows[0].v ?? '').split(',')[0];
    await seedRelationships(db, z.now);
    await seedOffers(db, z.n, 1000 + z.n, z.now);
    const seconds = (performance.now() - t0) / 1000;
    b.results.seeding.push({ engine, n: z.n, seconds });
    log(`N=${z.n} ${engine}: seeded in ${seconds.toFixed(1)} s`);
  }
  return dbs;
}

/** 1. The candidate query alone, engines alternating by block; the same requests on both. At the last N, also its plans. */
async function measureCandidateQueries(b: Bench, z: Size, dbs: Record<Engine, Db>) {
  const { n, now } = z;
  const results = b.results;
  const partners: Record<Engine, string[]> = {} as any;
  for (const engine of ENGINES) partners[engine] = (await partnershipsInForce(dbs[engine], STREAM_SHIPPER, MATCHING_SCOPES)).map((p) => p.organizationId);
  const requests = (() => {
    const r = rng(7 + n);
    return Array.from({ length: QUERY_BLOCKS * QUERIES_PER_BLOCK }, () => randomRequest(r, now));
  })();
  for (const engine of ENGINES) for (const request of requests.slice(0, 20)) await offersFor(dbs[engine], request, partners[engine], DEFAULT_MATCHING.candidateLimit); // warm-up
  await part(results, n, 'candidate queries', async () => {
    for (let block = 0; block < QUERY_BLOCKS; block++) {
      const order = block % 2 === 0 ? ENGINES : [...ENGINES].reverse();
      for (const engine of order) {
        for (const request of requests.slice(block * QUERIES_PER_BLOCK, (block + 1) * QUERIES_PER_BLOCK)) {
          const t0 = performance.now();
          const rows = await offersFor(dbs[engine], request, partners[engine], DEFAULT_MATCHING.candidateLimit);
          results.queries.push({ engine, n, block, ms: performance.now() - t0, rows: rows.length });
        }
      }
    }
  });
  for (const engine of ENGINES) {
    const s = results.queries.filter((v) => v.engine === engine && v.n === n).map((v) => v.ms);
    log(`N=${n} ${engine}: candidate query p50 ${f2(median(s))} p95 ${f2(percentile(s, 95))} ms`);
  }
  if (z.last) for (const engine of ENGINES) results.plans[engine] = await plan(dbs[engine], requests[0], partners[engine]);
}

/** 2 and 3 run on real brokers on the seeded databases, one per engine, partnered with the shippers through the API. */
async function startStacks(b: Bench, z: Size): Promise<Record<Engine, Stack>> {
  const { n } = z;
  const stacks = {} as Record<Engine, Stack>;
  for (const engine of ENGINES) {
    const broker = await startBroker(
      {
        TEMPORAL_ADDRESS: b.temporal.address,
        TEMPORAL_TASK_QUEUE: `pcx-bench-matching-${process.pid}-${engine}-${n}`,
        DATABASE_URL: engine === 'postgres' ? z.databaseUrl : '',
        ORGANIZATIONS_FILE: b.registry.organizationsFile,
        CONNECTORS_FILE: b.registry.connectorsFile,
        ...UNLIMITED,
      },
      engine === 'pglite' ? z.pgliteDir : join(b.dir, `postgres-broker-${n}`),
      join(b.dir, `broker-${engine}-${n}.log`),
    );
    b.cleanups.push(() => broker.stop());
    const tokens = new Map<string, string>();
    for (const org of [REAL_CARRIER, STREAM_SHIPPER, ...BURST_SHIPPERS]) tokens.set(org, await tokenOf(broker.baseUrl, org));
    const stack: Stack = { engine, broker, tokens };
    for (const shipper of [STREAM_SHIPPER, ...BURST_SHIPPERS]) await partnerThroughApi(stack, shipper);
    stacks[engine] = stack;
    log(`N=${n} ${engine}: broker on ${broker.baseUrl}`);
  }
  return stacks;
}

/** 2. Publish-to-proposal, rounds alternating between the engines; returns the last two rounds' samples (for the breakdown). */
async function measureStream(b: Bench, n: number, stacks: Record<Engine, Stack>, all: Pair[]): Promise<Record<Engine, StreamSample[]>> {
  const lastRound: Record<Engine, StreamSample[]> = { pglite: [], postgres: [] };
  await part(b.results, n, 'publish-to-proposal stream', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ENGINES : [...ENGINES].reverse();
      for (const engine of order) {
        const prepared = await prepare(stacks[engine], STREAM_SHIPPER, all.slice(round * PER_ROUND, (round + 1) * PER_ROUND));
        await flowsIdle(b.temporalClient);
        const samples = await stream(stacks[engine], n, round, prepared);
        b.results.streams.push(...samples);
        if (round === ROUNDS - 1 || round === ROUNDS - 2) lastRound[engine].push(...samples);
        const ms = samples.filter((s) => s.ok).map((s) => s.latencyMs);
        log(`N=${n} ${engine} round ${round + 1}/${ROUNDS}: publish-to-proposal p50 ${f1(median(ms))} p95 ${f1(percentile(ms, 95))} ms (${samples.length - ms.length} failed; load ${loadavg()[0].toFixed(2)})`);
      }
    }
  });
  return lastRound;
}

/** 3. Proposals per second: bursts alternating between the engines, on the pairs after the stream's. */
async function measureBursts(b: Bench, n: number, stacks: Record<Engine, Stack>, all: Pair[]) {
  await part(b.results, n, 'bursts', async () => {
    for (let k = 0; k < BURSTS; k++) {
      const order = k % 2 === 0 ? ENGINES : [...ENGINES].reverse();
      for (const engine of order) {
        const from = ROUNDS * PER_ROUND + k * BURST_SIZE;
        const prepared = await prepare(stacks[engine], BURST_SHIPPERS[k], all.slice(from, from + BURST_SIZE));
        await flowsIdle(b.temporalClient);
        const result = await burst(stacks[engine], b.temporal.process.pid!, n, BURST_SHIPPERS[k], prepared);
        b.results.bursts.push(result);
        log(`N=${n} ${engine} burst ${k + 1}/${BURSTS}: ${result.proposals}/${result.requests} proposals in ${result.seconds.toFixed(2)} s = ${(result.proposals / result.seconds).toFixed(1)}/s`);
      }
    }
  });
}

/** One N, both engines: seeding, the three measurements, where the time goes; then its databases are dropped. */
async function benchSize(b: Bench, n: number, last: boolean) {
  const now = Date.now();
  const schema = `pcx_bench_matching_${process.pid}_${n}`;
  const databaseUrl = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const z: Size = { n, now, last, databaseUrl, pgliteDir: join(b.dir, `pglite-${n}`) };
  await b.admin.query(`drop schema if exists ${schema} cascade`);
  await b.admin.query(`create schema ${schema}`);
  const dropSchema = () => b.admin.query(`drop schema if exists ${schema} cascade`);
  b.cleanups.push(dropSchema);

  const dbs = await seedEngines(b, z);
  await measureCandidateQueries(b, z, dbs);
  for (const engine of ENGINES) await dbs[engine].close();

  const stacks = await startStacks(b, z);
  // The same pairs on both engines: the stream's, then the bursts'.
  const all = pairs(ROUNDS * PER_ROUND + BURSTS * BURST_SIZE, 99 + n, now);
  const lastRound = await measureStream(b, n, stacks, all);
  await measureBursts(b, n, stacks, all);
  // Where the time goes: the last two rounds' flows (not timed).
  for (const engine of ENGINES) {
    const found = await breakdown(b.temporalClient, lastRound[engine]);
    for (const m of found.values()) b.results.milestones.push({ engine, n, m });
  }
  for (const engine of ENGINES) await stacks[engine].broker.stop();
  await dropSchema();
  rmSync(z.pgliteDir, { recursive: true, force: true });
}

async function main() {
  const startedAt = performance.now();
  const machineLines = machine('(`server start-dev`, in-memory SQLite)');
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-matching-'));
  const guard = exitGuard(dir, log, { minutes: WATCHDOG_MINUTES, kept: 'broker logs' });
  const results: Results = { machine: machineLines, versions: {}, seeding: [], queries: [], streams: [], bursts: [], milestones: [], plans: {}, load: [], seconds: 0 };
  try {
    log(`temp dir ${dir}; sizes ${SIZES.join(', ')}`);
    const bench = await setUp(dir, results, guard.cleanups);
    for (const [sizeIndex, n] of SIZES.entries()) await benchSize(bench, n, sizeIndex === SIZES.length - 1);

    results.seconds = (performance.now() - startedAt) / 1000;
    publishReport('bench:matching', '## Matching: candidate search and publish-to-proposal', report(results), log);
    guard.succeed();
  } finally {
    await guard.cleanup();
  }
}

runBench(log, main);
