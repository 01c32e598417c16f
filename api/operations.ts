// Every HTTP operation of the broker is declared once: its method and path, the access policy whose
// scope is gate 6 (and whose loader and standing are gates 4 to 8), the schema its body must match
// (a component of the bundled OpenAPI document, which names the TypeScript type the handler gets),
// the success statuses it answers, what its handler does that a client sees (versioned,
// idempotent, what it returns) and its `doc`. `operation` mounts it; the document's paths are
// generated from the declarations (api/openapi-paths.ts), so the router, the document, the SDK
// and the types cannot drift apart.
import type { Context, Hono } from 'hono';
import { FILE_SCHEMA_BASE, loadSchemaFiles } from '../core/schemas';
import { componentName } from './openapi-bundle';
import type { components } from './generated/contract';
import type { AppEnv, Principal } from './context';
import { authorize, type AccessPolicy } from './gates';
import { readJson } from './http';

/** The schemas of the bundled document by name, and their TypeScript types. */
export type Schemas = components['schemas'];
export type BodyName = keyof Schemas & string;
export type Body<N extends BodyName> = Schemas[N];

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * What only a person can say about an operation, for the document (api/openapi-paths.ts derives
 * the rest from the declaration).
 */
export interface OperationDoc {
  /** The operationId: a verb and the resource (`publishCapacityOffer`), stable for generated clients. */
  id: string;
  summary: string;
  description?: string;
  /** The tag it is listed under (the document's `tags`); by default its collection's (`/capacity-offers`: `CapacityOffers`). */
  tag?: string;
  /** On a list: the SDK's and `pcx`'s name for the collection and the columns of `pcx`'s table. */
  client?: { name: string; columns: readonly string[] };
  /** Parameters other than the derived headers: a components/parameters name or an inline parameter. */
  parameters?: ReadonlyArray<string | Record<string, unknown>>;
  /** The path's own parameters, where they are not just `{id}`. */
  pathParameters?: ReadonlyArray<Record<string, unknown>>;
  /** The request body where it is not of the standard shape (`false`: none is documented). */
  requestBody?: Record<string, unknown> | false;
  /**
   * By status: a description of that answer (a problem answer is added when it is not derived),
   * `true` for a problem answer of the standard form, `false` to leave a derived one out, or the
   * whole response object where it is not of the standard shape (X-Correlation-Id is added to its
   * headers: every answer carries it), or a `$ref` to a response of the frame.
   */
  responses?: Readonly<Record<string, string | boolean | Record<string, unknown>>>;
}

/** The doc of a route a builder makes (api/resource-routes.ts), which names it (`publishCapacityOffer`) unless it says otherwise. */
export type RouteDoc = Omit<OperationDoc, 'id'> & { id?: string };

/** What the document derives from beside the doc: facts of the handler's behaviour. */
interface Behaviour {
  /** A command on an existing resource: If-Match or observedResourceVersion required (428, 409, 422). */
  versioned?: boolean;
  /** Honours Idempotency-Key (a replay answers the first answer with Idempotent-Replayed). */
  idempotent?: boolean;
  /** The component of the bundled document its success answers carry. */
  returns?: BodyName;
}

export interface OperationSpec<R, N extends BodyName | undefined = undefined> extends Behaviour {
  method: Method;
  /** The path below the router's mount point: '/', '/:id', '/:id/publish'. */
  path: string;
  /** Gates 6, 4, 5, 7 and 8 (api/gates.ts); its scope is the one the document's security names. */
  access: AccessPolicy<R>;
  /** The component of the bundled document the body must match; absent: no body is read. */
  body?: N;
  /** The success statuses (2xx) it answers. */
  answers: readonly number[];
  doc: OperationDoc;
}

export interface Declared extends Behaviour {
  method: Method;
  path: string;
  /** Outside the gates: no token (health, the documents, the console's files, the token endpoint). */
  public?: boolean;
  scopes: readonly string[];
  anyScope?: readonly string[];
  body?: BodyName;
  answers: readonly number[];
  doc: OperationDoc;
  /** Its path names a record of a kind the retention purge removes (api/app.ts): it may answer 410 RECORD_PURGED. */
  loadsPurgeable?: boolean;
}

export interface Request<R, B> {
  c: Context<AppEnv>;
  principal: Principal;
  /** The resource gate 4 loaded (undefined for operations on a collection). */
  resource: R;
  body: B;
}

const declared = new WeakMap<Hono<AppEnv>, Declared[]>();

/** The operations declared on a router, relative to its mount point. */
export const operationsOf = (router: Hono<AppEnv>): readonly Declared[] => declared.get(router) ?? [];

/** The schema reference (`<file>#/$defs/<Def>` or `<file>`) of a component of the bundled document. */
export function schemaRefOf(name: BodyName): string {
  const ref = COMPONENTS.get(name);
  if (!ref) throw new Error(`no schema file defines the component ${name}`);
  return ref;
}

/** The component of a resource's schema (`CapacityOffer`), or of one of its definitions (`CapacityOfferPage`). */
export function resourceSchema(resource: { kind: string }, definition?: string): BodyName {
  const name = componentName(resource.kind, definition ? `/$defs/${definition}` : '');
  schemaRefOf(name as BodyName); // throws at load for a schema that does not exist
  return name as BodyName;
}

// Component name -> schema reference, for the files' roots and their definitions (the names
// api/openapi-bundle.ts gives them).
const COMPONENTS = new Map<string, string>();
/** The body member that carries the observed version (the alternative to If-Match), per component that has one. */
const OBSERVED_MEMBERS = new Map<string, string>();
const MEMBERS = ['observedResourceVersion', 'observedProposalVersion'];
for (const [file, schema] of loadSchemaFiles(FILE_SCHEMA_BASE)) {
  COMPONENTS.set(componentName(file, ''), file);
  for (const [def, body] of Object.entries<any>(schema.$defs ?? {})) {
    COMPONENTS.set(componentName(file, `/$defs/${def}`), `${file}#/$defs/${def}`);
    const member = MEMBERS.find((m) => body?.properties?.[m] !== undefined);
    if (member) OBSERVED_MEMBERS.set(componentName(file, `/$defs/${def}`), member);
  }
}

/**
 * The member of a command's body that may carry the observed version instead of If-Match
 * (`observedResourceVersion`, `observedProposalVersion`), or undefined: then If-Match is required,
 * and the document says so (api/openapi-paths.ts).
 */
export function observedVersionMember(name: BodyName | undefined): string | undefined {
  return name === undefined ? undefined : OBSERVED_MEMBERS.get(name);
}

/** Mounts one operation on `router`: authorization, then the body validated and typed, then the handler. */
export function operation<R, N extends BodyName | undefined = undefined>(
  router: Hono<AppEnv>,
  spec: OperationSpec<R, N>,
  handler: (request: Request<R, N extends BodyName ? Body<N> : undefined>) => Promise<Response>,
): void {
  const scopes = typeof spec.access.scope === 'string' ? [spec.access.scope] : [...spec.access.scope];
  const list = declared.get(router) ?? [];
  const { access, body, ...declaration } = spec;
  list.push({ ...declaration, scopes, ...(access.anyScope ? { anyScope: access.anyScope } : {}), ...(body ? { body } : {}) });
  declared.set(router, list);
  const ref = spec.body ? schemaRefOf(spec.body) : undefined;
  router.on(spec.method, spec.path, async (c) => {
    const { principal, resource } = await authorize(c, spec.access);
    const body = ref ? c.get('services').schemas.assert(ref, await readJson(c)) : undefined;
    return handler({ c, principal, resource, body: body as N extends BodyName ? Body<N> : undefined });
  });
}

/**
 * Mounts one public operation: outside gates 1-12, as the document declares it (`security: []`);
 * declared like every other, so that the document and the router cannot drift apart.
 */
export function publicOperation(
  router: Hono<AppEnv>,
  spec: { method: Method; path: string; answers: readonly number[]; doc: OperationDoc },
  handler: (c: Context<AppEnv>) => Response | Promise<Response>,
): void {
  const list = declared.get(router) ?? [];
  list.push({ ...spec, public: true, scopes: [] });
  declared.set(router, list);
  router.on(spec.method, spec.path, (c) => handler(c));
}
