// Route builders every resource router uses: loading a resource for gate 4, its list and its read
// (GET / and GET /:id) with their standard answers, a list one resource holds (GET /:id/<list>),
// the records organizations' admins manage, and a lifecycle command as one route (body validated
// against the command's schema, If-Match or observedResourceVersion required, the command's named
// Workflow Update sent through idempotency). A router declares its routes with these; see
// api/listings.ts.
import type { Hono } from 'hono';
import { listParticipating, loadDocument, type ParticipantListFilter } from '../read-model/projection-document';
import { isUuid } from '../domain/ids';
import { Problem } from '../domain/problems';
import type { Actor, Envelope } from '../domain/machine';
import type { Resource } from '../domain/resource';
import { runCommand, type CommandRequest } from './commands';
import type { AppEnv, Principal } from './context';
import type { AccessPolicy } from './gates';
import { operation, resourceSchema, type Body, type BodyName, type OperationDoc, type RouteDoc, observedVersionMember } from './operations';
import { encodeCursor, etagOf, observedVersion, pageParams, querySingle, queryValues, type Ctx } from './http';
import { viewOf } from '../domain/views';

/** Gate 4's loader for a resource: the read-model document named by the `:id` path parameter. */
export function loader<R>(resource: Resource<any, any>): (c: Ctx) => Promise<R | undefined> {
  return (c) => loadDocument<R>(c.get('services').db, resource, c.req.param('id') ?? '');
}

/**
 * Gate 4 for a resource only its owner and its participants see (domain/resource.ts
 * `participants`, the same list gate 9 reads): everyone else gets 404. With `operator`, a protocol
 * operator reads it too.
 */
export function participantAccess<R extends Envelope>(resource: Resource<any, any>, scope: string, options: { anyScope?: readonly string[]; operator?: boolean } = {}): AccessPolicy<R> {
  return {
    scope: options.anyScope ? [] : scope,
    ...(options.anyScope ? { anyScope: options.anyScope } : {}),
    load: loader(resource),
    role: (doc, p) => {
      if (doc.ownerOrganizationId === p.organizationId) return 'owner';
      if (resource.participants?.(doc).includes(p.organizationId)) return 'participant';
      return options.operator && p.operator ? 'operator' : 'none';
    },
  };
}

/** A kind's name in operation ids: `capacity-offer` -> `CapacityOffer`. */
const kindName = (resource: Resource<any, any>) => resource.kind.replace(/(^|-)([a-z])/g, (_m, _dash, letter: string) => letter.toUpperCase());
/** A kind's short name in the docs' sentences: `match-proposal` -> `proposal`. */
const shortName = (resource: Resource<any, any>) => resource.kind.slice(resource.kind.lastIndexOf('-') + 1);

/** The caller's view of a resource (gate 9). */
export const viewFor = (resource: Resource<any, any>, principal: Principal) => (doc: any) => viewOf(resource, doc, principal);

const invalidQuery = (name: string, message: string) => new Problem('VALIDATION_FAILED', `query parameter ${name} ${message}`, { errors: [{ pointer: `/query/${name}`, message }] });

/** `?status=`: one or more of the resource's statuses (repeated or comma-separated). */
export function statusQuery(c: Ctx, resource: Resource<any, any>): string[] | undefined {
  const statuses = queryValues(c, 'status');
  if (statuses?.some((s) => !(resource.statuses as readonly string[]).includes(s))) throw invalidQuery('status', `must be one or more of ${resource.statuses.join(', ')}`);
  return statuses;
}

/** A query parameter naming a resource by its id. */
export function idQuery(c: Ctx, name: string): string | undefined {
  const value = querySingle(c, name);
  if (value !== undefined && !isUuid(value)) throw invalidQuery(name, 'must be a resource id');
  return value;
}

/** A query parameter that takes one of a few words. */
export function choiceQuery<T extends string>(c: Ctx, name: string, choices: Readonly<Record<T, string>>): T | undefined {
  const value = querySingle(c, name);
  if (value !== undefined && !Object.prototype.hasOwnProperty.call(choices, value)) {
    throw invalidQuery(name, `must be ${Object.entries(choices).map(([k, v]) => `${k} (${v})`).join(' or ')}`);
  }
  return value as T | undefined;
}

/** One page of a list: the caller's views, and the cursor after the last when there is more. */
export function page(resource: Resource<any, any>, principal: Principal, docs: Array<{ id: string }>, limit: number) {
  return { items: docs.slice(0, limit).map(viewFor(resource, principal)), nextCursor: docs.length > limit ? encodeCursor(docs[limit - 1].id) : null };
}

export interface ListRoute {
  /** Query parameters naming a linked resource: parameter -> the document field holding its id, and what it keeps. */
  links?: Readonly<Record<string, { field: string; description: string }>>;
  /** A query parameter that keeps the resources where the caller stands in a role: value -> the document field naming it. */
  roles?: { parameter: string; fields: Readonly<Record<string, string>>; descriptions: Readonly<Record<string, string>> };
  /** Also the resources the caller owns (drafts whose participants are still empty); by default when the kind has no participants. */
  owners?: boolean;
  /** Scopes of which the caller needs one, instead of the resource's read scope. */
  anyScope?: readonly string[];
  /** A protocol operator lists every organization's (in its view: domain/disclosure.ts). */
  operatorListsAll?: boolean;
  /** Its doc; the role, link and paging parameters are added from the declaration. */
  doc: RouteDoc;
  /** Facts kept beside the read model added to the views (a connector's keys' last use). */
  decorate?: Decorate;
}

/** Adds to the caller's views what the read model's document does not hold; answers the views. */
export type Decorate = (c: Ctx, views: Array<Record<string, unknown>>) => Promise<Array<Record<string, unknown>>>;

/** `?status=`, as the frame's `<Kind>StatusQuery` components say it, for a kind that names none. */
function statusParameter(resource: Resource<any, any>) {
  const [first, second = first] = resource.statuses;
  return {
    name: 'status',
    in: 'query',
    required: false,
    description:
      `Only ${resource.collection.replace(/-/g, ' ')} in one of these statuses. Repeat the parameter (\`status=${first}&status=${second}\`) or separate the ` +
      'values with commas; both forms are accepted, also mixed. A value that is not a status of the resource answers 400 `VALIDATION_FAILED` at `/query/status`.',
    style: 'form',
    explode: true,
    schema: { type: 'array', minItems: 1, items: { type: 'string', enum: [...resource.statuses] } },
  };
}

/** The query parameters a list route declares: its status filter (the doc's, or derived), role, links, paging. */
function listParameters(resource: Resource<any, any>, route: ListRoute): OperationDoc['parameters'] {
  const roles = Object.entries(route.roles?.descriptions ?? {}).map(([role, meaning]) => `\`${role}\`: ${meaning}`);
  const role = route.roles && { name: route.roles.parameter, in: 'query', description: `${roles.join('; ')}. One value.`, schema: { type: 'string', enum: Object.keys(route.roles.fields) } };
  const links = Object.entries(route.links ?? {}).map(([name, link]) => ({ name, in: 'query', description: link.description, schema: { type: 'string', format: 'uuid' } }));
  return [...(route.doc.parameters ?? [statusParameter(resource)]), ...(role ? [role] : []), ...links, 'CursorQuery', 'LimitQuery'];
}

/**
 * GET /: the resources of the standard read model the caller takes part in, by status, by link
 * and by role, in id order, page by page. Resources with a read model of their own have list
 * routes of their own (api/listings.ts, api/partner-relationships.ts).
 */
export function listRoute(router: Hono<AppEnv>, resource: Resource<any, any>, route: ListRoute) {
  const access: AccessPolicy<undefined> = route.anyScope ? { scope: [], anyScope: route.anyScope } : { scope: resource.scopes.read };
  const doc = {
    id: `list${kindName(resource)}s`,
    ...route.doc,
    parameters: listParameters(resource, route),
    responses: { '200': `A page of ${route.doc.client?.name ?? resource.collection}.`, ...route.doc.responses },
  };
  // A kind without participants is its owner's alone: its list is what the caller owns.
  const owners = route.owners ?? !resource.participants;
  operation(router, { method: 'GET', path: '/', access, answers: [200], returns: resourceSchema(resource, 'Page'), doc }, async ({ c, principal }) => {
    const { after, limit } = pageParams(c);
    const equal: NonNullable<ParticipantListFilter['equal']> = [];
    for (const [parameter, link] of Object.entries(route.links ?? {})) {
      const value = idQuery(c, parameter);
      if (value !== undefined) equal.push({ field: link.field, value });
    }
    if (route.roles) {
      const role = choiceQuery(c, route.roles.parameter, route.roles.descriptions);
      if (role !== undefined) equal.push({ field: route.roles.fields[role], value: principal.organizationId });
    }
    const everyone = route.operatorListsAll === true && principal.operator;
    const docs = await listParticipating<Envelope>(c.get('services').db, resource, principal.organizationId, { statuses: statusQuery(c, resource), equal, after, limit }, { owners, everyone });
    const answer = page(resource, principal, docs, limit);
    return c.json(route.decorate ? { ...answer, items: await route.decorate(c, answer.items) } : answer);
  });
}

/** GET /:id: the resource as the caller may see it (gates 4 to 9), with its ETag. */
export function getRoute<R extends Envelope>(router: Hono<AppEnv>, resource: Resource<any, any>, access: AccessPolicy<R>, doc: RouteDoc, options: { decorate?: Decorate } = {}) {
  const responses = { '200': `The ${shortName(resource)}; ETag carries its resourceVersion.`, ...doc.responses };
  operation(router, { method: 'GET', path: '/:id', access, answers: [200], returns: resourceSchema(resource), doc: { id: `get${kindName(resource)}`, ...doc, responses } }, async ({ c, resource: doc, principal }) => {
    const view = viewOf(resource, doc, principal);
    return c.json(options.decorate ? (await options.decorate(c, [view]))[0] : view, 200, { etag: etagOf(doc.resourceVersion) });
  });
}

/**
 * GET /:id/<path>: a list that belongs to one resource (a proposal's decisions, a tender's
 * revisions), whole, as a single page, for whoever may read the resource.
 */
export function nestedListRoute<R extends Envelope>(router: Hono<AppEnv>, access: AccessPolicy<R>, route: { path: string; returns: BodyName; items: (c: Ctx, resource: R) => unknown[] | Promise<unknown[]>; doc: OperationDoc }) {
  operation(router, { method: 'GET', path: `/:id/${route.path}`, access, answers: [200], returns: route.returns, doc: route.doc }, async ({ c, resource }) => {
    return c.json({ items: await route.items(c, resource), nextCursor: null });
  });
}

export interface CommandRoute<R extends Envelope, N extends BodyName> {
  /** The component of the bundled document the body must match (api/operations.ts). */
  body: N;
  /** Gates 4 to 8 for this command (scope, loader, role). */
  access: AccessPolicy<R>;
  /** PATCH /:id for `update`; POST /:id/<path> otherwise. */
  method?: 'POST' | 'PATCH';
  /** The last path segment when it is not the command's name (`decisions` for `decide`). */
  path?: string;
  /** Facts the machine needs that only the read model or the registry knows. */
  context?: (c: Ctx, resource: R, principal: Principal) => Promise<unknown> | unknown;
  /** Who issues it; by default the caller's connector. */
  actor?: (principal: Principal) => Actor;
  /** Claims and quotas around the command (CommandRequest.before / refused). */
  hooks?: (c: Ctx, resource: R, payload: Record<string, unknown>) => Pick<CommandRequest, 'before' | 'refused' | 'prepare' | 'settle'>;
  /** Rewrites the validated payload (e.g. into the resource form). */
  payload?: (c: Ctx, body: Body<N>, resource: R) => Body<N> | Promise<Body<N>>;
  /** Waits for what the command started before answering (CommandRequest.settle). */
  settle?: (c: Ctx, snapshot: Envelope, commandId: string) => Promise<Envelope>;
  /** Its doc; named `<command><Kind>` (`publishCapacityOffer`) unless it says otherwise. */
  doc: RouteDoc;
}

/**
 * A record an organization's admins (`connectors:manage`) manage and the protocol operator
 * (`exchange:admin`) oversees: organizations, connectors, users. Its read access and list route
 * (the caller's organization's for its admins, every one for the operator) and the docs of its
 * read and commands, with the answers they all share. A command needs `needs` unless it says
 * otherwise, and its `extra` adds answers or words one more precisely; `notFound` says what a
 * command's 404 means for the kind.
 */
export function managedRecord<R extends Envelope>(resource: Resource<any, any>, kind: { noun: string; plural: string; needs: string; notFound?: string }) {
  const scopes = ['connectors:manage', 'exchange:admin'];
  const refused = '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.';
  return {
    reading: participantAccess<R>(resource, scopes[0], { anyScope: scopes, operator: true }),
    list: (doc: Omit<RouteDoc, 'responses'>, decorate?: Decorate): ListRoute => ({
      owners: true,
      anyScope: scopes,
      operatorListsAll: true,
      ...(decorate ? { decorate } : {}),
      doc: { ...doc, responses: { '200': `One page of ${kind.plural}; nextCursor is null on the last page.`, '400': '`VALIDATION_FAILED`: an unknown status, a limit outside 1..200 or a cursor this broker did not issue.', '403': refused } },
    }),
    read: (summary: string, description: string, found = `The ${kind.noun}, with its ETag.`): RouteDoc => ({
      summary,
      description,
      responses: { '200': found, '403': refused, '404': '`RESOURCE_NOT_FOUND`.' },
    }),
    command: (summary: string, description: string, extra: Record<string, string> = {}, needs = kind.needs): RouteDoc => ({
      summary,
      description: `${description} Needs ${needs} and the ${kind.noun}'s current ETag in If-Match.`,
      responses: {
        '200': `The ${kind.noun} after the command.`,
        '400': '`VALIDATION_FAILED`.',
        '403': '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE` or `ACTOR_NOT_PERMITTED`.',
        '404': `\`RESOURCE_NOT_FOUND\`${kind.notFound ?? ''}.`,
        '409': '`STALE_RESOURCE_VERSION`, `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.',
        '422': '`INVALID_STATE_TRANSITION`.',
        ...extra,
      },
    }),
  };
}

/** A command that takes nothing but its body: its name, its body's component, its summary and what it does. */
export type PlainCommand = readonly [name: string, body: BodyName, summary: string, description: string];

/**
 * Mounts a table of commands that need nothing but their body, one route a row, with the access,
 * actor and doc maker (a managedRecord's command) they share.
 */
export function plainCommandRoutes<R extends Envelope>(router: Hono<AppEnv>, resource: Resource<any, any>, shared: { access: AccessPolicy<R>; actor?: (principal: Principal) => Actor; doc: (summary: string, description: string) => RouteDoc }, commands: readonly PlainCommand[]) {
  for (const [name, body, summary, description] of commands) {
    commandRoute(router, resource, name, { body, access: shared.access, ...(shared.actor ? { actor: shared.actor } : {}), doc: shared.doc(summary, description) });
  }
}

/** Mounts one lifecycle command of `resource` on `router`: 200 with the resource, or its problem. */
export function commandRoute<R extends Envelope, N extends BodyName>(router: Hono<AppEnv>, resource: Resource<any, any>, name: string, route: CommandRoute<R, N>) {
  const method = route.method ?? 'POST';
  const path = method === 'PATCH' ? '/:id' : `/:id/${route.path ?? name}`;
  const declaration = { method, path, access: route.access, body: route.body, answers: [200], versioned: true, idempotent: true, returns: resourceSchema(resource), doc: { id: `${name}${kindName(resource)}`, ...route.doc } };
  operation(router, declaration, async ({ c, resource: doc, principal, body }) => {
    const expectedVersion = observedVersion(c, body as Record<string, unknown>, observedVersionMember(route.body));
    const { observedResourceVersion: _observed, ...rest } = (route.payload ? await route.payload(c, body as Body<N>, doc) : body) as Record<string, any>;
    return runCommand(c, {
      ...(route.hooks?.(c, doc, rest) ?? {}),
      resource,
      name,
      id: doc.id,
      expectedVersion,
      payload: rest,
      context: await route.context?.(c, doc, principal),
      actor: route.actor?.(principal),
      view: viewFor(resource, principal),
      current: () => loadDocument(c.get('services').db, resource, doc.id),
      ...(route.settle ? { settle: (snapshot: Envelope, commandId: string) => route.settle!(c, snapshot, commandId) } : {}),
    });
  });
}
