// The `paths` of the OpenAPI document, generated from the operation declarations (api/operations.ts):
// every operation is declared once, beside its handler, and the document is derived from it.
//
// What the declaration already says is derived here and never written again: the security
// requirement (its scopes), the request body (its schema component; `CommonCommand` and
// `CommonReasonedCommand` as the shared request bodies, a PATCH as a JSON merge patch), the
// headers a client sends (If-Match for a versioned command, Idempotency-Key where it is honoured,
// X-Correlation-Id everywhere), the path parameter `{id}`, the success answers (their schema,
// Location, ETag, Idempotent-Replayed, X-Correlation-Id) and the standard problem answers each kind
// of operation can give. The declaration's `doc` holds what only a person can say: the operationId,
// summary, description and tag, the query parameters, the descriptions of its answers, and, where
// an operation is not of the standard shape, the part that differs (docs/decisions.md, "The
// OpenAPI paths from the declarations").
import type { BodyName, Declared, OperationDoc } from './operations';
import { observedVersionMember, schemaRefOf } from './operations';

type Json = any;

/** A component reference of the source document. */
const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
/** A schema component as the source document writes it: `./capacity-offer.json#/$defs/Page`. */
const schemaRef = (name: BodyName) => {
  const [file, pointer] = schemaRefOf(name).split('#');
  return { $ref: `./${file}.json${pointer ? `#${pointer}` : ''}` };
};

/** The problem answers of the standard shape, by status. */
const PROBLEM_RESPONSES: Readonly<Record<string, string>> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '410': 'RecordPurged',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'UnprocessableContent',
  '428': 'PreconditionRequired',
  '429': 'TooManyRequests',
  '503': 'ServiceUnavailable',
  default: 'InternalError',
};

/** What a 400 means for a command whose body must carry a reason. */
const REASONED_400 =
  '`VALIDATION_FAILED` (reason missing or blank, body does not match the schema, If-Match and observedResourceVersion disagree) or `MALFORMED_REQUEST`.';

/** Request bodies shared by the lifecycle commands (components/requestBodies). */
const SHARED_BODIES: Readonly<Record<string, string>> = { CommonCommand: 'Command', CommonReasonedCommand: 'ReasonedCommand' };

const hasPathParameter = (op: Declared) => op.path.includes('/:');
const queried = (doc: OperationDoc) => (doc.parameters ?? []).some((p) => typeof p !== 'string' ? p.in === 'query' : /Query$/.test(p));

/** The problem statuses an operation of this shape can answer. */
function problemStatuses(op: Declared): string[] {
  if (op.public) return ['400', 'default'];
  const statuses = new Set(['401', '403', '429', 'default']);
  if (op.body || op.versioned || queried(op.doc)) statuses.add('400');
  if (hasPathParameter(op)) statuses.add('404');
  // Gate 4 answers 410 for a loaded record the purge removed (api/gates.ts), to those who could read it.
  if (op.loadsPurgeable) statuses.add('410');
  if (op.versioned || op.idempotent) statuses.add('409');
  if (op.body) ['413', '415'].forEach((s) => statuses.add(s));
  if (op.versioned) ['422', '428'].forEach((s) => statuses.add(s));
  if (op.idempotent && op.method !== 'DELETE') statuses.add('503');
  return [...statuses];
}

function successResponse(op: Declared, status: number): Json {
  const headers: Json = {};
  if (status === 201) headers.Location = header('Location');
  // A create-or-return (201 or 200 for one already there) names the resource either way.
  if (status === 200 && op.answers.includes(201)) headers.Location = header('Location');
  // One resource carries its version; a page, an evaluation or an accepted (202) job does not.
  const single = op.returns && !/Page$/.test(op.returns);
  if (single && (status === 201 || op.versioned || op.method === 'GET' || op.answers.includes(201) || (op.idempotent && status === 200))) headers.ETag = header('ETag');
  if (op.idempotent) headers['Idempotent-Replayed'] = header('Idempotent-Replayed');
  headers['X-Correlation-Id'] = header('X-Correlation-Id');
  return {
    description: op.versioned && status === 200 ? 'The resource after the command, with its new ETag.' : '',
    headers,
    ...(op.returns && status !== 204 ? { content: { 'application/json': { schema: schemaRef(op.returns) } } } : {}),
  };
}

function requestBody(op: Declared): Json {
  if (!op.body) return undefined;
  if (SHARED_BODIES[op.body]) return { $ref: `#/components/requestBodies/${SHARED_BODIES[op.body]}` };
  const schema = schemaRef(op.body);
  if (op.method === 'PATCH') return { required: true, content: { 'application/merge-patch+json': { schema }, 'application/json': { schema } } };
  return { required: true, content: { 'application/json': { schema } } };
}

function responses(op: Declared): Json {
  const out: Json = {};
  const given = op.doc.responses ?? {};
  for (const status of op.answers) out[status] = successResponse(op, status);
  for (const status of problemStatuses(op)) out[status] = response(op.public && status === '400' ? 'MalformedRequest' : PROBLEM_RESPONSES[status]);
  if (op.body === 'CommonReasonedCommand' && out['400']) out['400'] = { ...out['400'], description: REASONED_400 };
  for (const [status, answer] of Object.entries(given)) {
    if (answer === false) delete out[status];
    else if (answer === true) out[status] = response(PROBLEM_RESPONSES[status]);
    else if (typeof answer === 'object') out[status] = answer.$ref ? answer : { ...answer, headers: { ...(answer.headers ?? {}), 'X-Correlation-Id': header('X-Correlation-Id') } };
    else if (out[status]?.$ref || !out[status]) out[status] = { ...(out[status] ?? response(PROBLEM_RESPONSES[status])), description: answer };
    else out[status].description = answer;
  }
  // Success answers first, then the problems by status, `default` last (the order readers expect).
  const order = (s: string) => (s === 'default' ? 1000 : /^2/.test(s) ? op.answers.indexOf(Number(s)) - 10 : Number(s));
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => order(a) - order(b)));
}

function tagOf(op: Declared): string {
  if (!op.doc.tag) throw new Error(`${op.method} ${op.path}: a public operation names its tag`);
  return op.doc.tag;
}

/** One operation object of the document. */
export function operationObject(op: Declared): Json {
  const { doc } = op;
  const security = op.public ? [] : op.anyScope ? op.anyScope.map((s) => ({ oauth2: [s] })) : [{ oauth2: [...op.scopes] }];
  const parameters = [
    ...(doc.parameters ?? []).map((p) => (typeof p === 'string' ? parameter(p) : p)),
    // If-Match is optional where the body may carry the observed version instead, required elsewhere.
    ...(op.versioned ? [parameter(observedVersionMember(op.body) ? 'IfMatchHeader' : 'IfMatchHeaderRequired')] : []),
    ...(op.idempotent ? [parameter('IdempotencyKeyHeader')] : []),
    parameter('CorrelationIdHeader'),
  ];
  const body = doc.requestBody === undefined ? requestBody(op) : doc.requestBody || undefined;
  return {
    operationId: doc.id,
    ...(doc.client ? { 'x-pcx-client': doc.client } : {}),
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [tagOf(op)],
    security,
    parameters,
    ...(body ? { requestBody: body } : {}),
    responses: responses(op),
  };
}

/** The `paths` object for the operations, in the order given, with the path's own parameters. */
export function pathsOf(operations: ReadonlyArray<Declared & { documentPath: string }>): Json {
  const paths: Json = {};
  for (const op of operations) {
    const item = (paths[op.documentPath] ??= {});
    const pathParameters = op.doc.pathParameters ?? (op.documentPath.includes('{id}') ? [parameter('IdPath')] : undefined);
    if (pathParameters && !item.parameters) item.parameters = pathParameters;
    item[op.method.toLowerCase()] = operationObject(op);
  }
  return paths;
}
