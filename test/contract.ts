// The contract every response keeps: the body of each answer validates against the schema that
// schemas/openapi.yaml declares for its operation and status code, and the data of each event in
// the feed validates against the schema its `dataschema` names. test/helpers.ts runs every reply
// the integration tests receive through `ResponseContract.check`; a violation fails the test that
// received it (docs/decisions.md, "Responses are checked against the contract in every test").
// The schema files are compiled by the broker's own SchemaRegistry (the same ajv settings).
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import { withSchemaIds } from '../api/schema-ids';
import { SchemaRegistry } from '../core/schemas';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** How many ajv errors a message lists (allErrors makes branches of anyOf/oneOf verbose). */
const MAX_ERRORS = 12;
const MAX_BODY = 600;
/**
 * Refusals that info.description declares once for every request instead of under each
 * operation: what the HTTP parser cannot read (400, 408, 431) and a request target whose
 * percent-escapes do not decode (400), both before routing. Only with exactly this code.
 */
const ANY_OPERATION: Record<number, string> = { 400: 'MALFORMED_REQUEST', 408: 'REQUEST_TIMEOUT', 431: 'REQUEST_HEADER_FIELDS_TOO_LARGE' };

/** One reply as a test received it. */
export interface ObservedResponse {
  method: string;
  /** The request path, with or without a query string. */
  path: string;
  status: number;
  contentType: string | null;
  /** The parsed JSON body; for a body that is not JSON, its text. */
  body: unknown;
  /** Whether the body was JSON (an empty body is not). */
  json: boolean;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

interface Operation {
  key: string;
  template: string;
  segments: string[];
  literals: number;
  op: any;
}

type Json = any;

/**
 * The document as the broker builds it from its declarations: written once for the run by the
 * global setup (test/setup/stack-setup.ts); a file run without it builds it here.
 */
function sourceDocument(): Json {
  const file = process.env.PCX_TEST_OPENAPI_SOURCE;
  if (file) return JSON.parse(readFileSync(file, 'utf8'));
  return (require('../api/app') as typeof import('../api/app')).documents.source;
}

export class ResponseContract {
  readonly registry: SchemaRegistry;
  private readonly doc: Json;
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, { validate: ValidateFunction; name: string }>();

  /** @param schemaBase the broker's SCHEMA_BASE: schema ids and `dataschema` values start with it. */
  constructor(readonly schemaBase: string) {
    this.registry = new SchemaRegistry(schemaBase);
    this.doc = withSchemaIds(sourceDocument(), schemaBase); // file references rewritten to the registry's ids
    for (const [template, item] of Object.entries<Json>(this.doc.paths ?? {})) {
      const segments = template.split('/');
      for (const method of HTTP_METHODS) {
        if (!item[method]) continue;
        this.operations.push({ key: `${method.toUpperCase()} ${template}`, template, segments, literals: segments.filter((s) => !/^\{.+\}$/.test(s)).length, op: item[method] });
      }
    }
  }

  /** The documented operation answering `METHOD path` (literal segments win over parameters). */
  operation(method: string, path: string): Operation | undefined {
    const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    const matches = this.operations.filter((o) => o.key.startsWith(`${wanted} `) && matchesTemplate(o.segments, pathOf(path)));
    return matches.sort((a, b) => b.literals - a.literals)[0];
  }

  /** Every way the reply breaks the contract; empty when it keeps it. */
  violations(res: ObservedResponse): string[] {
    const method = res.method.toUpperCase();
    const path = pathOf(res.path);
    const found = this.operation(method, path);
    const where = found ? `${method} ${res.path} (${found.op.operationId}, ${found.key}) answered ${res.status}` : `${method} ${res.path} (no documented operation) answered ${res.status}`;
    const mediaType = res.contentType?.split(';')[0].trim().toLowerCase() ?? '';
    const out: string[] = [];

    if (!found) {
      // A method the path lacks (405) or a path the document lacks (404 ROUTE_NOT_FOUND), or the
      // authentication that runs before them: info.description declares these once, as problems.
      if (res.status < 400) return [`${where}: a success for an operation the document does not declare`];
      if (mediaType !== 'application/problem+json') return [`${where}: content-type ${mediaType || '(none)'}, expected application/problem+json`];
      return this.validate(where, 'problem', res.body, '');
    }

    const responses = found.op.responses ?? {};
    let declared = responses[String(res.status)] ?? responses[`${String(res.status)[0]}XX`];
    // `default` is the 500 INTERNAL_ERROR any request may answer (info.description), not a
    // catch-all: a status the operation does not list is a gap in the document.
    if (!declared && res.status === 500) declared = responses.default;
    if (!declared && ANY_OPERATION[res.status] !== undefined && (res.body as Json)?.code === ANY_OPERATION[res.status]) {
      if (mediaType !== 'application/problem+json') return [`${where}: content-type ${mediaType || '(none)'}, expected application/problem+json`];
      return this.validate(where, 'problem', res.body, '');
    }
    if (!declared) {
      const listed = Object.keys(responses).join(', ');
      return [`${where}: status ${res.status} is not declared for ${found.key} (declared: ${listed}); body ${snippet(res.body)}`];
    }
    const response = this.deref(declared);
    if (method === 'HEAD') return out;
    const content: Record<string, Json> = response.content ?? {};
    if (Object.keys(content).length === 0) {
      if (res.body !== undefined && res.body !== '') out.push(`${where}: the document declares no body for ${res.status}, got ${snippet(res.body)}`);
      return out;
    }
    const media = content[mediaType];
    if (!media) return [`${where}: content-type ${mediaType || '(none)'} is not declared for ${res.status} (declared: ${Object.keys(content).join(', ')})`];
    if (/[/+]json$/.test(mediaType) && !res.json) return [`${where}: the body is not JSON: ${snippet(res.body)}`];
    if (media.schema) {
      const { validate, name } = this.responseValidator(`${found.key} ${res.status} ${mediaType}`, media.schema);
      out.push(...this.run(where, name, validate, res.body, ''));
    }
    if (found.template === '/events' && method === 'GET' && res.status === 200 && out.length === 0) out.push(...this.eventViolations(where, res.body));
    return out;
  }

  /** Throws a ContractViolation naming the operation, status, pointers and ajv messages. */
  check(res: ObservedResponse): void {
    const found = this.violations(res);
    if (found.length) throw new ContractViolation(`response outside its schema:\n${found.join('\n')}`);
  }

  /** Each event of a feed page: the envelope against `event`, `data` against its `dataschema`. */
  private eventViolations(where: string, page: Json): string[] {
    const out: string[] = [];
    const prefix = `${this.schemaBase}/v0/`;
    (page?.items ?? []).forEach((event: Json, i: number) => {
      const at = `/items/${i}`;
      const label = `${where}, event ${event?.type} ${event?.id}`;
      out.push(...this.validate(label, 'event', event, at));
      const dataschema: unknown = event?.dataschema;
      if (typeof dataschema !== 'string') return;
      const ref = dataschema.startsWith(prefix) ? dataschema.slice(prefix.length) : undefined;
      if (!ref || !/^[a-z0-9-]+(#.*)?$/.test(ref)) return void out.push(`${label}: ${at}/dataschema ${dataschema} is not a schema id of this broker (${prefix}<name>[#fragment])`);
      if (!('data' in event)) return;
      let validate: ValidateFunction;
      try {
        validate = this.registry.validator(ref);
      } catch {
        return void out.push(`${label}: ${at}/dataschema ${dataschema} names no schema`);
      }
      out.push(...this.run(label, ref, validate, event.data, `${at}/data`));
    });
    // Delivery rule 2 within the page: per subject, resourceversion strictly increases (a
    // consumer drops an event at or below the version it applied). test/feed.ts checks whole feeds.
    const last = new Map<string, number>();
    (page?.items ?? []).forEach((event: Json, i: number) => {
      const before = last.get(event?.subject);
      if (before !== undefined && !(event.resourceversion > before)) {
        out.push(`${where}: /items/${i} ${event.type} about ${event.subject} at resourceversion ${event.resourceversion} follows version ${before} in the same page; a consumer would drop it`);
      }
      last.set(event?.subject, event?.resourceversion);
    });
    return out;
  }

  private validate(where: string, ref: string, value: unknown, at: string): string[] {
    return this.run(where, ref, this.registry.validator(ref), value, at);
  }

  private run(where: string, name: string, validate: ValidateFunction, value: unknown, at: string): string[] {
    if (validate(value)) return [];
    const lines = describeErrors(validate.errors ?? [], at);
    const more = lines.length > MAX_ERRORS ? [`  ... and ${lines.length - MAX_ERRORS} more`] : [];
    return [`${where}: ${at || '/'} does not match ${name}:\n${[...lines.slice(0, MAX_ERRORS), ...more].join('\n')}\n  body: ${snippet(value)}`];
  }

  /** The validator of a response's schema, compiled once per operation, status and media type. */
  private responseValidator(key: string, schema: Json) {
    let entry = this.validators.get(key);
    if (!entry) {
      const prefix = `${this.schemaBase}/v0/`;
      const ref = typeof schema.$ref === 'string' && Object.keys(schema).length === 1 && schema.$ref.startsWith(prefix) ? schema.$ref.slice(prefix.length) : undefined;
      entry = ref
        ? { validate: this.registry.validator(ref), name: ref }
        : { validate: this.registry.compile(this.inline(schema)), name: `the schema of ${key} in openapi.yaml` };
      this.validators.set(key, entry);
    }
    return entry;
  }

  /** Follows a `#/components/...` reference (responses carry description overrides beside it). */
  private deref(node: Json): Json {
    let current = node;
    for (let i = 0; i < 10 && typeof current?.$ref === 'string' && current.$ref.startsWith('#/'); i++) current = pointer(this.doc, current.$ref);
    return current;
  }

  /** A schema with its references into the document's components replaced by their targets. */
  private inline(node: Json, depth = 0): Json {
    if (depth > 32) throw new Error('openapi.yaml: component schemas nest too deep (a cycle?)');
    if (Array.isArray(node)) return node.map((n) => this.inline(n, depth + 1));
    if (!node || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      const { $ref, ...rest } = node;
      const target = this.inline(pointer(this.doc, $ref), depth + 1);
      return Object.keys(rest).length ? { ...this.inline(rest, depth + 1), allOf: [...(rest.allOf ?? []), target] } : target;
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, this.inline(v, depth + 1)]));
  }
}

/** `pointer: message` per ajv error, the pointer naming the offending member where ajv knows it. */
export function describeErrors(errors: ErrorObject[], at = ''): string[] {
  const lines = new Set<string>();
  for (const e of errors) {
    const params = e.params as Record<string, unknown>;
    const member = params.additionalProperty ?? params.unevaluatedProperty ?? params.missingProperty;
    const target = `${at}${e.instancePath}${member !== undefined ? `/${String(member)}` : ''}`;
    let message = e.message ?? 'is not valid';
    if (e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties') message = 'is not an allowed property';
    if (e.keyword === 'required') message = 'is required';
    if (e.keyword === 'enum') message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    lines.add(`  ${target || '/'}: ${message} (${e.keyword} at ${e.schemaPath})`);
  }
  return [...lines];
}

function pathOf(path: string): string {
  return path.split(/[?#]/)[0];
}

function matchesTemplate(template: string[], path: string): boolean {
  const segments = path.split('/');
  return segments.length === template.length && template.every((t, i) => (/^\{.+\}$/.test(t) ? segments[i] !== '' : t === segments[i]));
}

function pointer(root: Json, ref: string): Json {
  let node = root;
  for (const raw of ref.replace(/^#\//, '').split('/')) node = node?.[decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')];
  if (node === undefined) throw new Error(`openapi.yaml: ${ref} does not resolve`);
  return node;
}

function snippet(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > MAX_BODY ? `${text.slice(0, MAX_BODY)}...` : text;
}
