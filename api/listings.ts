// The HTTP API shared by CapacityOffer and LoadRequest ("listings"): create, draft PATCH,
// publish, withdraw, operator cancel, and reads with partner visibility and field disclosure.
// api/capacity-offers.ts and api/load-requests.ts configure it for their resource.
import { Hono } from 'hono';
import { listingDocs, type ListingWords } from './listing-docs';
import { operation, resourceSchema } from './operations';
import { Problem, type FieldError } from '../domain/problems';
import { boundingBox, parseAreaQuery, validateArea, type Area } from '../core/areas';
import { fieldErrors } from '../core/schemas';
import { visibleTo } from '../read-model/sharing';
import { listListings } from '../read-model/listing';
import { hasRelationshipInForce } from '../read-model/partner-relationship';
import type { Listing, ListingContext } from '../domain/listing';
import type { Resource } from '../domain/resource';
import { runCommand } from './commands';
import type { AppEnv } from './context';
import { type AccessPolicy } from './gates';
import { isUtcTimestamp, pageParams, querySingle, type Ctx } from './http';
import { isUuid } from '../domain/ids';
import { commandRoute, getRoute, loader, page, statusQuery, viewFor } from './resource-routes';


export interface ListingApi {
  resource: Resource<any, any>;
  /** The bodies of its create and its draft PATCH (components of the bundled document). */
  bodies: { create: 'CapacityOfferCreateRequest' | 'LoadRequestCreateRequest'; update: 'CapacityOfferUpdateRequest' | 'LoadRequestUpdateRequest' };
  /** Scopes an operator needs, besides exchange:admin, to cancel (specification, cancel rows). */
  cancelScopes: readonly string[];
  areaFields: readonly string[];
  windowFields: readonly string[];
  handlingFields: readonly string[];
  /** Turns an accepted alternative input form into the resource form (load requests). */
  normalize?: (body: Record<string, any>, errors: FieldError[]) => Record<string, any>;
  /** With `normalize`: the pointer into the body as sent for a pointer into its normalized form. */
  sentPointer?: (pointer: string, body: Record<string, any>) => string;
  /** What the document's texts say of this listing (api/listing-docs.ts). */
  words: ListingWords;
}

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

/** A create or PATCH body already valid against its schema: normalized, then checked for meaning. */
export function checked(c: Ctx, api: ListingApi, def: 'CreateRequest' | 'UpdateRequest', body: Record<string, any>) {
  const errors: FieldError[] = [];
  const normalized = api.normalize ? api.normalize(body, errors) : body;
  // Refusals of the normalized body name the fields as the client sent them.
  const asSent = (found: FieldError[]) => (api.sentPointer ? found.map((e) => ({ ...e, pointer: api.sentPointer!(e.pointer, body) })) : found);
  // The rewritten body must hold in the resource form too (e.g. bodyType other needs a description).
  if (api.normalize && !errors.length) {
    const validate = c.get('services').schemas.validator(`${api.resource.kind}#/$defs/${def}`);
    if (!validate(normalized)) throw new Problem('VALIDATION_FAILED', 'the request body does not match the schema', { errors: asSent(fieldErrors(validate.errors ?? [])) });
  }
  errors.push(...asSent(semanticErrors(c, api, normalized)));
  if (errors.length) throw new Problem('VALIDATION_FAILED', 'the request body is not valid', { errors });
  return normalized;
}

/**
 * Gate 4 for reads of a listing: the owner always, an operator always, an organization that
 * accepted a match with it (a counterpart) always; partners only while the listing is in a shared
 * state (never a draft), and gates 5, 7 and 8 then decide for them.
 */
export function listingReadAccess(resource: Resource<any, any>, load: (c: Ctx) => Promise<Listing | undefined>): AccessPolicy<Listing> {
  const partnerStatuses: readonly string[] = resource.partnerStatuses ?? [];
  return {
    scope: resource.scopes.read,
    load,
    role: (r, p) => {
      if (r.ownerOrganizationId === p.organizationId) return 'owner';
      if (p.operator) return 'operator';
      if (resource.counterparts?.(r).includes(p.organizationId)) return 'counterpart';
      return partnerStatuses.includes(r.status) ? 'partner' : 'none';
    },
    partner: {
      ownerOf: (r) => r.ownerOrganizationId,
      relationshipScope: resource.scopes.read,
      visible: (r, relationship, org) => visibleTo(r.visibility, relationship.visibilityPolicy?.groups ?? [], org),
    },
  };
}

export function listingRouter(api: ListingApi): Hono<AppEnv> {
  const { resource } = api;
  const router = new Hono<AppEnv>();
  const docs = listingDocs(resource, api.cancelScopes, api.words);
  const load = loader<Listing>(resource);

  const readAccess = listingReadAccess(resource, load);
  // Commands: only the owner (everyone else gets 404, visible or not).
  const ownerAccess: AccessPolicy<Listing> = {
    scope: resource.scopes.write,
    load,
    role: (r, p) => (r.ownerOrganizationId === p.organizationId ? 'owner' : 'none'),
  };

  const create = { method: 'POST', path: '/', access: { scope: resource.scopes.write }, body: api.bodies.create, answers: [201], idempotent: true, returns: resourceSchema(resource), doc: docs.create } as const;
  operation(router, create, async ({ c, principal, body: raw }) => {
    const body = checked(c, api, 'CreateRequest', raw);
    return runCommand(c, { resource, name: 'create', payload: body, view: viewFor(resource, principal) });
  });

  operation(router, { method: 'GET', path: '/', access: { scope: resource.scopes.read }, answers: [200], returns: resourceSchema(resource, 'Page'), doc: docs.list }, async ({ c, principal }) => {
    const { after, limit } = pageParams(c);
    const q = (name: string) => querySingle(c, name);
    const invalid = (name: string, message: string) =>
      new Problem('VALIDATION_FAILED', `query parameter ${name} ${message}`, { errors: [{ pointer: `/query/${name}`, message }] });
    const statuses = statusQuery(c, resource);
    const owner = q('owner');
    if (owner !== undefined && !ORG.test(owner)) throw invalid('owner', 'must be an organization id');
    const series = q('series');
    if (series !== undefined && !isUuid(series)) throw invalid('series', 'must be the UUID of a series');
    let box: number[] | undefined;
    if (q('area') !== undefined) {
      const area = parseAreaQuery(q('area')!);
      if (!area || validateArea(area, '').length) throw invalid('area', 'must be a UN/LOCODE, country, subdivision, bbox:minLon,minLat,maxLon,maxLat or circle:lon,lat,radiusKm');
      box = boundingBox(area as Area);
    }
    const time = (name: string) => {
      const v = q(name);
      if (v === undefined) return undefined;
      if (!isUtcTimestamp(v)) throw invalid(name, 'must be an RFC 3339 UTC timestamp');
      return v;
    };
    const docs = await listListings(c.get('services').db, resource, principal, { statuses, owner, series, box, from: time('from'), to: time('to'), after, limit });
    return c.json(page(resource, principal, docs, limit));
  });

  getRoute(router, resource, readAccess, docs.get);

  // The lifecycle commands a connector or operator may send, with the schema of each body.
  commandRoute(router, resource, 'update', {
    method: 'PATCH',
    body: api.bodies.update,
    access: ownerAccess,
    payload: (c, body) => checked(c, api, 'UpdateRequest', body),
    doc: docs.update,
  });
  commandRoute(router, resource, 'publish', {
    body: 'CommonCommand',
    access: ownerAccess,
    // Publishing to partners needs a relationship in force now (unless visibility is open):
    // the machine decides, the API gathers the fact.
    context: async (c, _doc, principal): Promise<ListingContext> => ({
      ownerHasActiveRelationship: await hasRelationshipInForce(c.get('services').db, principal.organizationId),
    }),
    doc: docs.publish,
  });
  commandRoute(router, resource, 'withdraw', { body: 'CommonReasonedCommand', access: ownerAccess, doc: docs.withdraw });
  // Administrative cancel: a protocol operator (organization role operator, scope exchange:admin).
  commandRoute(router, resource, 'cancel', {
    body: 'CommonReasonedCommand',
    access: { scope: ['exchange:admin', ...api.cancelScopes], load, role: (_r, p) => (p.operator ? 'operator' : 'none') },
    actor: (p) => ({ kind: 'operator', organizationId: p.organizationId, clientId: p.clientId }),
    doc: docs.cancel,
  });

  return router;
}
