// Small HTTP helpers shared by every router: JSON bodies, ETags, problem responses, pages.
import type { Context } from 'hono';
import { Problem } from '../core/problems';
import type { AppEnv } from './context';

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
  const nul = findNul(value, '');
  if (nul !== undefined) {
    // PostgreSQL cannot store U+0000 in text or jsonb; refuse it here rather than fail later.
    throw new Problem('VALIDATION_FAILED', 'strings must not contain U+0000', { errors: [{ pointer: nul, message: 'contains U+0000' }] });
  }
  return value as Record<string, unknown>;
}

/**
 * The pointer of the first string (or key) containing U+0000, walking iteratively so that a deeply
 * nested body cannot exhaust the stack; bodies nested deeper than MAX_DEPTH are refused outright.
 */
const MAX_DEPTH = 64;
function findNul(root: unknown, rootPointer: string): string | undefined {
  const stack: Array<[unknown, string, number]> = [[root, rootPointer, 0]];
  while (stack.length) {
    const [value, pointer, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return pointer;
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) throw new Problem('VALIDATION_FAILED', `the body is nested deeper than ${MAX_DEPTH} levels`, { errors: [{ pointer, message: 'is nested too deeply' }] });
    for (const [k, v] of Object.entries(value)) {
      const p = `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (k.includes('\u0000')) return p;
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
 * observedResourceVersion. Missing both: 428. Both present and different: 400.
 */
export function observedVersion(c: Ctx, body: Record<string, unknown>): number {
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
  if (version === undefined) throw new Problem('PRECONDITION_REQUIRED', 'send If-Match with the ETag you observed, or observedResourceVersion');
  return version;
}

export function problemResponse(c: Ctx, problem: Problem): Response {
  const correlationId = c.get('correlationId');
  const headers: Record<string, string> = { 'content-type': 'application/problem+json', ...problem.headers };
  if (correlationId) headers['x-correlation-id'] = correlationId;
  return new Response(JSON.stringify(problem.body(correlationId)), { status: problem.status, headers });
}

export function notFound(what = 'resource'): Problem {
  return new Problem('RESOURCE_NOT_FOUND', `no such ${what}, or it is not visible to your organization`);
}

/** Cursor pagination by resource id (UUIDv7 ids sort by creation time). */
export function pageParams(c: Ctx): { after?: string; limit: number } {
  const { pageSizeDefault, pageSizeMax } = c.get('services').config.limits;
  const limitText = c.req.query('limit');
  let limit = pageSizeDefault;
  if (limitText !== undefined) {
    if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > pageSizeMax) {
      throw new Problem('VALIDATION_FAILED', `limit must be an integer from 1 to ${pageSizeMax}`, { errors: [{ pointer: '/query/limit', message: `must be 1..${pageSizeMax}` }] });
    }
    limit = Number(limitText);
  }
  const cursor = c.req.query('cursor');
  if (cursor === undefined) return { limit };
  const after = decodeCursor(cursor);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(after)) throw badCursor();
  return { after, limit };
}

export function encodeCursor(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw badCursor();
  return Buffer.from(cursor, 'base64url').toString('utf8');
}

function badCursor() {
  return new Problem('VALIDATION_FAILED', 'cursor is not one this broker issued', { errors: [{ pointer: '/query/cursor', message: 'is not valid' }] });
}

const UTC_TIMESTAMP = /^(19[7-9][0-9]|[2-9][0-9]{3})-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?Z$/;

/** The schemas' UtcTimestamp for query parameters: shape, and a real calendar date (no 30 February). */
export function isUtcTimestamp(value: string): boolean {
  if (!UTC_TIMESTAMP.test(value)) return false;
  const parsed = new Date(value);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === value.slice(0, 19);
}
