// Small HTTP helpers shared by every router: JSON bodies, ETags, problem responses, pages; and the
// answer to requests Node's HTTP parser refuses before any router sees them.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'hono';
import { uuid7 } from '../domain/ids';
import type { Logger } from '../core/log';
import { problems } from '../core/metrics';
import { Problem, type ProblemCode } from '../domain/problems';
import type { AppEnv } from './context';
import { isUuid } from '../domain/ids';

export type Ctx = Context<AppEnv>;

/** Reads an optional JSON object body. Absent body -> {}. Non-JSON content type -> 415. */
export async function readJson(c: Ctx): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type)) {
    throw new Problem('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Problem('MALFORMED_REQUEST', 'the request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Problem('VALIDATION_FAILED', 'the request body must be a JSON object', { errors: [{ pointer: '', message: 'must be object' }] });
  }
  const bad = findUnrepresentable(value, '');
  if (bad !== undefined) {
    // PostgreSQL cannot store U+0000 or a lone surrogate (\ud800) in text or jsonb, and JSON has
    // no Infinity: refuse them here, at once, rather than fail (and hang) when the snapshot is written.
    throw new Problem('VALIDATION_FAILED', bad.detail, { errors: [{ pointer: bad.pointer, message: bad.message }] });
  }
  return value as Record<string, unknown>;
}

/** A UTF-16 surrogate not paired with its other half (in `u` mode a valid pair is one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why a string (a value, a key, a header, a query parameter) cannot be stored, or undefined when
 * it can: PostgreSQL text and jsonb hold neither U+0000 nor an unpaired UTF-16 surrogate.
 */
function unrepresentable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains U+0000';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

/** `text` safe to echo in a problem: unpaired surrogates become U+FFFD. */
function printable(text: string): string {
  return text.replace(/\p{Cs}/gu, '\uFFFD');
}

/**
 * The first string, key or number the database cannot represent (see `unrepresentable`; numbers
 * that overflowed to Infinity), walking iteratively so that a deeply nested body cannot exhaust
 * the stack; bodies nested deeper than MAX_DEPTH are refused outright.
 */
const MAX_DEPTH = 64;
function findUnrepresentable(root: unknown, rootPointer: string): { pointer: string; message: string; detail: string } | undefined {
  const stack: Array<[unknown, string, number]> = [[root, rootPointer, 0]];
  const found = (pointer: string, message: string) => ({
    pointer: printable(pointer),
    message,
    detail: message === 'is not a finite number' ? 'numbers must be finite' : `strings and keys must not contain ${message.slice('contains '.length)}`,
  });
  while (stack.length) {
    const [value, pointer, depth] = stack.pop()!;
    if (typeof value === 'string') {
      const why = unrepresentable(value);
      if (why) return found(pointer, why);
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return found(pointer, 'is not a finite number');
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) throw new Problem('VALIDATION_FAILED', `the body is nested deeper than ${MAX_DEPTH} levels`, { errors: [{ pointer: printable(pointer), message: 'is nested too deeply' }] });
    for (const [k, v] of Object.entries(value)) {
      const p = `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const why = unrepresentable(k);
      if (why) return found(p, why);
      stack.push([v, p, depth + 1]);
    }
  }
  return undefined;
}

export function etagOf(resourceVersion: number): string {
  return `"${resourceVersion}"`;
}

/**
 * The version a command was issued against: If-Match (the ETag) or the body's
 * observedResourceVersion. Missing both: 428, whose advice names what this command's body
 * accepts (`member`: the body member that may carry the version; none: If-Match only). Both
 * present and different: 400.
 */
export function observedVersion(c: Ctx, body: Record<string, unknown>, member: string | undefined): number {
  const header = c.req.header('if-match');
  let fromHeader: number | undefined;
  if (header !== undefined) {
    const m = /^\s*(?:W\/)?"(\d{1,9})"\s*$/.exec(header);
    if (!m) throw new Problem('VALIDATION_FAILED', 'If-Match must carry the ETag of the resource, for example "3"', { errors: [{ pointer: '/headers/If-Match', message: 'is not an ETag of this resource' }] });
    fromHeader = Number(m[1]);
  }
  const fromBody = body.observedResourceVersion as number | undefined;
  if (fromHeader !== undefined && fromBody !== undefined && fromHeader !== fromBody) {
    throw new Problem('VALIDATION_FAILED', 'If-Match and observedResourceVersion disagree', { errors: [{ pointer: '/observedResourceVersion', message: 'differs from If-Match' }] });
  }
  const version = fromHeader ?? fromBody;
  if (version === undefined) throw new Problem('PRECONDITION_REQUIRED', member ? `send If-Match with the ETag you observed, or ${member} in the body` : 'send If-Match with the ETag you observed (this command takes no version in its body)');
  return version;
}

/** Connection failures and PostgreSQL's "cannot serve now" classes (08, 53, 57P). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string') return false;
  return /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|08...|53...|57P..)$/.test(code);
}

export function problemResponse(c: Ctx, problem: Problem): Response {
  const correlationId = c.get('correlationId');
  problems.inc({ code: problem.code, status: problem.status });
  // The OAuth endpoints answer errors as RFC 6749 section 5.2 says, application/json (the body is the
  // same problem document, with `error` and `error_description`): OAuth client libraries refuse
  // another media type (docs/decisions.md, "OAuth errors as application/json").
  const type = c.req.path.startsWith('/oauth2/') ? 'application/json' : 'application/problem+json';
  const headers: Record<string, string> = { 'content-type': type, ...problem.headers };
  if (correlationId) headers['x-correlation-id'] = correlationId;
  return new Response(JSON.stringify(problem.body(correlationId)), { status: problem.status, headers });
}

export function notFound(what = 'resource'): Problem {
  return new Problem('RESOURCE_NOT_FOUND', `no such ${what}, or it is not visible to your organization`);
}

/**
 * Every value of a list-valued query parameter, in either form a client may send an array in:
 * repeated (`status=draft&status=terminated`, OpenAPI's form style with explode, openapi-fetch's
 * default) or comma-separated (`status=draft,terminated`), or both mixed; in order, each value once.
 * Undefined when the parameter is absent. Empty items (`status=`, `status=a,,b`) are kept, for the
 * caller's check of the values to refuse.
 */
export function queryValues(c: Ctx, name: string): string[] | undefined {
  const sent = c.req.queries(name);
  if (sent === undefined || sent.length === 0) return undefined;
  return [...new Set(sent.flatMap((v) => v.split(',')))];
}

/**
 * A single-valued query parameter, undefined when absent. Sent more than once (`limit=5&limit=500`)
 * it is refused, 400 VALIDATION_FAILED at `/query/<name>`: the broker never picks one of them.
 */
export function querySingle(c: Ctx, name: string): string | undefined {
  const sent = c.req.queries(name);
  if (sent === undefined || sent.length === 0) return undefined;
  if (sent.length > 1) {
    throw new Problem('VALIDATION_FAILED', `query parameter ${name} takes one value; it was sent ${sent.length} times`, { errors: [{ pointer: `/query/${name}`, message: 'must not be repeated' }] });
  }
  return sent[0];
}

/** The page size asked for (`limit`), or the default. */
export function pageLimit(c: Ctx): number {
  const { pageSizeDefault, pageSizeMax } = c.get('services').config.limits;
  const limitText = querySingle(c, 'limit');
  if (limitText === undefined) return pageSizeDefault;
  if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > pageSizeMax) {
    throw new Problem('VALIDATION_FAILED', `limit must be an integer from 1 to ${pageSizeMax}`, { errors: [{ pointer: '/query/limit', message: `must be 1..${pageSizeMax}` }] });
  }
  return Number(limitText);
}

/** Cursor pagination by resource id (UUIDv7 ids sort by creation time). */
export function pageParams(c: Ctx): { after?: string; limit: number } {
  const limit = pageLimit(c);
  const cursor = querySingle(c, 'cursor');
  if (cursor === undefined) return { limit };
  const after = decodeCursor(cursor);
  if (!isUuid(after) || after !== after.toLowerCase()) throw badCursor();
  return { after, limit };
}

export function encodeCursor(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw badCursor();
  return Buffer.from(cursor, 'base64url').toString('utf8');
}

export function badCursor() {
  return new Problem('VALIDATION_FAILED', 'cursor is not one this broker issued', { errors: [{ pointer: '/query/cursor', message: 'is not valid' }] });
}

const UTC_TIMESTAMP = /^(19[7-9][0-9]|[2-9][0-9]{3})-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?Z$/;

/** The schemas' UtcTimestamp for query parameters: shape, and a real calendar date (no 30 February). */
export function isUtcTimestamp(value: string): boolean {
  if (!UTC_TIMESTAMP.test(value)) return false;
  const parsed = new Date(value);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === value.slice(0, 19);
}

/** The problem for a request Node's HTTP parser refused (http.Server 'clientError'), by error code. */
function parserProblem(code: string | undefined): Problem {
  const refused: Record<string, [ProblemCode, string]> = {
    HPE_HEADER_OVERFLOW: ['REQUEST_HEADER_FIELDS_TOO_LARGE', 'the request header fields exceed 16 KiB'],
    HPE_CHUNK_EXTENSIONS_OVERFLOW: ['PAYLOAD_TOO_LARGE', 'the chunk extensions of the body are too large'],
    ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'the request was not received completely in time'],
    HPE_INVALID_CONTENT_LENGTH: ['MALFORMED_REQUEST', 'Content-Length is not a valid length'],
    HPE_UNEXPECTED_CONTENT_LENGTH: ['MALFORMED_REQUEST', 'Content-Length and Transfer-Encoding must not be sent together'],
    HPE_INVALID_TRANSFER_ENCODING: ['MALFORMED_REQUEST', 'Transfer-Encoding is not valid here (it must end in chunked and not come with Content-Length)'],
    HPE_INVALID_URL: ['MALFORMED_REQUEST', 'the request target is not a valid URL (raw non-ASCII bytes or spaces must be percent-encoded)'],
    HPE_INVALID_METHOD: ['MALFORMED_REQUEST', 'the request method is not valid'],
    HPE_INVALID_VERSION: ['MALFORMED_REQUEST', 'the HTTP version is not valid'],
    HPE_INVALID_HEADER_TOKEN: ['MALFORMED_REQUEST', 'a header field name or value contains a character not allowed there'],
  };
  const [problemCode, detail] = refused[code ?? ''] ?? ['MALFORMED_REQUEST', 'the request is not valid HTTP/1.1'];
  return new Problem(problemCode, detail);
}

/** Sockets already answered: the parser reports every later chunk of a refused request again. */
const answered = new WeakSet<Duplex>();
/** How long a refused connection may stay open for the client to read the answer and close. */
const LINGER_MS = 2000;

/**
 * Handler of http.Server 'clientError': answers a request Node's parser refused (431 for oversized
 * headers, 400 for smuggling-prone or malformed framing, ...) with a complete HTTP/1.1 problem
 * response and `Connection: close`, then closes the connection. Node's default answer has no body.
 * A reset connection is left alone; one that can no longer be written, or whose response has
 * already begun, is destroyed without an answer (writing then would corrupt what the peer reads).
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex, log?: Logger): void {
  if (err.code === 'ECONNRESET') return;
  if (answered.has(socket)) return;
  answered.add(socket);
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const problem = parserProblem(err.code);
  problems.inc({ code: problem.code, status: problem.status });
  const correlationId = uuid7();
  const body = JSON.stringify(problem.body(correlationId));
  const head = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}`,
    'content-type: application/problem+json',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-correlation-id: ${correlationId}`,
    'connection: close',
  ].join('\r\n');
  log?.info({ correlationId, error: err.code ?? err.message, status: problem.status }, 'request refused by the HTTP parser');
  // The parser keeps reading (and discarding) what the client still sends, so closing after the
  // answer does not reset the connection under unread data; the timer bounds a client that never closes.
  socket.end(`${head}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
