// Route builders every resource router uses: loading a resource for gate 4, and a lifecycle
// command as one route (body validated against the command's schema, If-Match or
// observedResourceVersion required, the command's named Workflow Update sent through
// idempotency). A router declares its commands as a table; see api/listings.ts.
import type { Hono } from 'hono';
import { loadDocument } from '../activities/projection-document';
import type { Actor, Envelope } from '../domain/machine';
import type { Resource } from '../domain/resource';
import { runCommand, type CommandRequest } from './commands';
import type { AppEnv, Principal } from './context';
import { authorize, type AccessPolicy } from './gates';
import { observedVersion, readJson, type Ctx } from './http';
import { viewOf } from './views';

/** Gate 4's loader for a resource: the read-model document named by the `:id` path parameter. */
export function loader<R>(resource: Resource<any, any>): (c: Ctx) => Promise<R | undefined> {
  return (c) => loadDocument<R>(c.get('services').db, resource, c.req.param('id') ?? '');
}

/** The caller's view of a resource (gate 9). */
export const viewFor = (resource: Resource<any, any>, principal: Principal) => (doc: any) => viewOf(resource, doc, principal);

export interface CommandRoute<R extends Envelope> {
  /** JSON Schema the body must match: `<file>#/$defs/<Def>`. */
  body: string;
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
  hooks?: (c: Ctx, resource: R) => Pick<CommandRequest, 'before' | 'refused'>;
  /** Rewrites the validated payload (e.g. into the resource form). */
  payload?: (c: Ctx, body: Record<string, any>) => Record<string, any>;
  /** Waits for what the command started before answering (CommandRequest.settle). */
  settle?: (c: Ctx, snapshot: Envelope, commandId: string) => Promise<Envelope>;
}

/** Mounts one lifecycle command of `resource` on `router`. */
export function commandRoute<R extends Envelope>(router: Hono<AppEnv>, resource: Resource<any, any>, name: string, route: CommandRoute<R>) {
  const method = route.method ?? 'POST';
  router.on(method, method === 'PATCH' ? '/:id' : `/:id/${route.path ?? name}`, async (c) => {
    const { resource: doc, principal } = await authorize(c, route.access);
    const body = c.get('services').schemas.assert<Record<string, any>>(route.body, await readJson(c));
    const { observedResourceVersion, ...rest } = route.payload ? route.payload(c, body) : body;
    const expectedVersion = observedVersion(c, { observedResourceVersion });
    return runCommand(c, {
      ...(route.hooks?.(c, doc) ?? {}),
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
