// The HTTP API shared by CapacityOffer and LoadRequest ("listings"): create, draft PATCH,
// publish, withdraw, operator cancel, and reads with partner visibility and field disclosure.
// api/capacity-offers.ts and api/load-requests.ts configure it for their resource.
import { Hono } from 'hono';
import { Problem, type FieldError } from '../core/problems';
import { boundingBox, parseAreaQuery, validateArea, type Area } from '../core/areas';
import { inForceSql, partnerVisibleSql, SHARING, visibleTo } from '../core/sharing';
import type { Listing } from '../workflows/listing';
import { runCommand } from './commands';
import type { AppEnv, Principal } from './context';
import { authorize, requireScope, type AccessPolicy } from './gates';
import { encodeCursor, etagOf, isUtcTimestamp, observedVersion, pageParams, readJson, type Ctx } from './http';
import { viewOf } from './views';

export interface ListingApi {
  kind: string;
  workflowType: string;
  /** Schema file name; its $defs CreateRequest and UpdateRequest validate bodies. */
  schema: string;
  statuses: readonly string[];
  publishScope: string;
  readScope: string;
  /** Scopes an operator needs, besides exchange:admin, to cancel (specification, cancel rows). */
  cancelScopes: readonly string[];
  areaFields: readonly string[];
  windowFields: readonly string[];
  handlingFields: readonly string[];
  /** Turns an accepted alternative input form into the resource form (load requests). */
  normalize?: (body: Record<string, any>, errors: FieldError[]) => Record<string, any>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ORG = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Checks JSON Schema cannot express: known codes, closed rings, ordered windows, known partners. */
function semanticErrors(c: Ctx, api: ListingApi, body: Record<string, any>): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of api.areaFields) if (body[field]) errors.push(...validateArea(body[field], `/${field}`));
  for (const field of api.windowFields) {
    const w = body[field];
    if (!w) continue;
    if (Date.parse(w.start) >= Date.parse(w.end)) errors.push({ pointer: `/${field}/end`, message: 'must be after start' });
    if (w.timeZone !== undefined && !isTimeZone(w.timeZone)) errors.push({ pointer: `/${field}/timeZone`, message: 'is not an IANA time zone' });
  }
  for (const field of api.handlingFields) {
    const t = body[field]?.temperature;
    if (t && t.minCelsius > t.maxCelsius) errors.push({ pointer: `/${field}/temperature/maxCelsius`, message: 'must not be below minCelsius' });
  }
  const partners: string[] = body.visibility?.organizationIds ?? [];
  partners.forEach((org, i) => {
    if (!c.get('services').registry.organization(org)) errors.push({ pointer: `/visibility/organizationIds/${i}`, message: 'is not a known organization' });
  });
  return errors;
}

function validated(c: Ctx, api: ListingApi, def: 'CreateRequest' | 'UpdateRequest', raw: Record<string, unknown>) {
  const body = c.get('services').schemas.assert<Record<string, any>>(`${api.schema}#/$defs/${def}`, raw);
  const errors: FieldError[] = [];
  const normalized = api.normalize ? api.normalize(body, errors) : body;
  // The rewritten body must hold in the resource form too (e.g. bodyType other needs a description).
  if (api.normalize && !errors.length) c.get('services').schemas.assert(`${api.schema}#/$defs/${def}`, normalized);
  errors.push(...semanticErrors(c, api, normalized));
  if (errors.length) throw new Problem('VALIDATION_FAILED', 'the request body is not valid', { errors });
  return normalized;
}

export function listingRouter(api: ListingApi): Hono<AppEnv> {
  const sharing = SHARING[api.kind];
  const router = new Hono<AppEnv>();

  async function load(c: Ctx): Promise<Listing | undefined> {
    const id = c.req.param('id') ?? '';
    if (!UUID.test(id)) return undefined;
    const { rows } = await c.get('services').db.query<{ doc: Listing }>(`select doc from ${sharing.table} where id = $1`, [id]);
    return rows[0]?.doc;
  }

  // Gate 4 for reads: the owner always, an operator always, partners only while the resource is
  // in a shared state (never a draft); gates 5, 7 and 8 then decide for partners.
  const readAccess: AccessPolicy<Listing> = {
    scope: api.readScope,
    load,
    role: (r, p) => {
      if (r.ownerOrganizationId === p.organizationId) return 'owner';
      if (p.operator) return 'operator';
      return sharing.partnerStatuses.includes(r.status) ? 'partner' : 'none';
    },
    partner: {
      ownerOf: (r) => r.ownerOrganizationId,
      relationshipScope: sharing.readScope,
      visible: (r, relationship, org) => visibleTo(r.visibility, relationship.visibilityPolicy?.groups ?? [], org),
    },
  };
  // Commands: only the owner (everyone else gets 404, visible or not).
  const ownerAccess: AccessPolicy<Listing> = {
    scope: api.publishScope,
    load,
    role: (r, p) => (r.ownerOrganizationId === p.organizationId ? 'owner' : 'none'),
  };
  const view = (p: Principal) => (doc: Listing) => viewOf(api.kind, doc, p);

  router.post('/', async (c) => {
    const { principal } = await authorize(c, { scope: api.publishScope });
    const body = validated(c, api, 'CreateRequest', await readJson(c));
    return runCommand(c, { kind: api.kind, name: 'create', workflowType: api.workflowType, payload: body, view: view(principal) });
  });

  router.get('/', async (c) => {
    const { principal } = await authorize(c, { scope: api.readScope });
    const { after, limit } = pageParams(c);
    const q = (name: string) => c.req.query(name);
    const invalid = (name: string, message: string) =>
      new Problem('VALIDATION_FAILED', `query parameter ${name} ${message}`, { errors: [{ pointer: `/query/${name}`, message }] });
    const statuses = q('status')?.split(',');
    if (statuses?.some((s) => !api.statuses.includes(s))) throw invalid('status', `must be one or more of ${api.statuses.join(', ')}`);
    const owner = q('owner');
    if (owner !== undefined && !ORG.test(owner)) throw invalid('owner', 'must be an organization id');
    let box: number[] | null = null;
    if (q('area') !== undefined) {
      const area = parseAreaQuery(q('area')!);
      if (!area || validateArea(area, '').length) throw invalid('area', 'must be a UN/LOCODE, country, subdivision, bbox:minLon,minLat,maxLon,maxLat or circle:lon,lat,radiusKm');
      box = boundingBox(area as Area);
    }
    const time = (name: string) => {
      const v = q(name);
      if (v === undefined) return null;
      if (!isUtcTimestamp(v)) throw invalid(name, 'must be an RFC 3339 UTC timestamp');
      return v;
    };
    const [from, to] = [time('from'), time('to')];
    const { rows } = await c.get('services').db.query<{ id: string; doc: Listing }>(
      `select x.id, x.doc from ${sharing.table} x
        where (x.owner_organization_id = $1 or $2::boolean
               or (x.status = any($3::text[]) and ${partnerVisibleSql('x', '$1', '$4')}))
          and ($5::text[] is null or x.status = any($5::text[]))
          and ($6::text is null or x.owner_organization_id = $6)
          and ($7::float8[] is null
               or (x.origin_box[1] <= $7[3] and x.origin_box[3] >= $7[1] and x.origin_box[2] <= $7[4] and x.origin_box[4] >= $7[2])
               or (x.destination_box[1] <= $7[3] and x.destination_box[3] >= $7[1] and x.destination_box[2] <= $7[4] and x.destination_box[4] >= $7[2]))
          and ($8::timestamptz is null or x.window_end > $8)
          and ($9::timestamptz is null or x.window_start < $9)
          and ($10::uuid is null or x.id > $10::uuid)
        order by x.id limit $11`,
      [principal.organizationId, principal.operator, sharing.partnerStatuses, sharing.readScope, statuses ?? null, owner ?? null, box, from, to, after ?? null, limit + 1],
    );
    const items = rows.slice(0, limit).map((r) => viewOf(api.kind, r.doc, principal));
    return c.json({ items, nextCursor: rows.length > limit ? encodeCursor(rows[limit - 1].id) : null });
  });

  router.get('/:id', async (c) => {
    const { resource, principal } = await authorize(c, readAccess);
    return c.json(viewOf(api.kind, resource, principal) as object, 200, { etag: etagOf(resource.resourceVersion) });
  });

  router.patch('/:id', async (c) => {
    const { resource, principal } = await authorize(c, ownerAccess);
    const { observedResourceVersion, ...payload } = validated(c, api, 'UpdateRequest', await readJson(c));
    const expectedVersion = observedVersion(c, { observedResourceVersion });
    return runCommand(c, { kind: api.kind, name: 'update', id: resource.id, expectedVersion, payload, view: view(principal), current: () => load(c) });
  });

  router.post('/:id/publish', async (c) => {
    const { resource, principal } = await authorize(c, ownerAccess);
    const body = c.get('services').schemas.assert<Record<string, unknown>>('common#/$defs/Command', await readJson(c));
    const expectedVersion = observedVersion(c, body);
    // Publishing to partners needs a relationship in force now (unless visibility is open).
    const anyPartner = await c.get('services').db.query(
      `select 1 from partner_relationships r
        where ${inForceSql('r')} and (r.requesting_organization_id = $1 or r.accepting_organization_id = $1) limit 1`,
      [principal.organizationId],
    );
    return runCommand(c, {
      kind: api.kind,
      name: 'publish',
      id: resource.id,
      expectedVersion,
      payload: {},
      context: { ownerHasActiveRelationship: anyPartner.rowCount > 0 },
      view: view(principal),
      current: () => load(c),
    });
  });

  router.post('/:id/withdraw', async (c) => {
    const { resource, principal } = await authorize(c, ownerAccess);
    const { observedResourceVersion, ...payload } = c.get('services').schemas.assert<Record<string, any>>('common#/$defs/ReasonedCommand', await readJson(c));
    const expectedVersion = observedVersion(c, { observedResourceVersion });
    return runCommand(c, { kind: api.kind, name: 'withdraw', id: resource.id, expectedVersion, payload, view: view(principal), current: () => load(c) });
  });

  // Administrative cancel: a protocol operator (organization role operator, scope exchange:admin).
  router.post('/:id/cancel', async (c) => {
    const principal = c.get('principal');
    for (const scope of api.cancelScopes) requireScope(principal, scope);
    const { resource } = await authorize(c, {
      scope: 'exchange:admin',
      load,
      role: (_r, p) => (p.operator ? 'operator' : 'none'),
    });
    const { observedResourceVersion, ...payload } = c.get('services').schemas.assert<Record<string, any>>('common#/$defs/ReasonedCommand', await readJson(c));
    const expectedVersion = observedVersion(c, { observedResourceVersion });
    return runCommand(c, {
      kind: api.kind,
      name: 'cancel',
      id: resource.id,
      expectedVersion,
      payload,
      actor: { kind: 'operator', organizationId: principal.organizationId, clientId: principal.clientId },
      view: view(principal),
      current: () => load(c),
    });
  });

  return router;
}
