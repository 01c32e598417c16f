// Fixed files the broker serves itself (the API reference's assets, the console's files and its
// basemap): each read on first use (megabytes of them, and most brokers are never asked), then kept
// with its ETag; answered with an hour's cache, then revalidated (304 for a matching
// If-None-Match); the names carry no version, so an upgrade shows within the hour. Callers look a
// file up in a fixed list first: no request path reaches the file system. Pages (HTML naming
// these files) are answered with `page`: never cached, so a new version shows at once.
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import type { AppEnv } from './context';

const loaded = new Map<string, { body: Buffer; etag: string }>();

function cached(key: string, load: () => Buffer | string) {
  let found = loaded.get(key);
  if (!found) {
    const raw = load();
    const body = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    found = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    loaded.set(key, found);
  }
  return found;
}

/** Serves the fixed file `key` (loaded by `load` the first time) with its ETag. */
export function staticFile(c: Context<AppEnv>, key: string, type: string, load: () => Buffer | string): Response {
  const { body, etag } = cached(key, load);
  const headers = { etag, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' };
  const asked = c.req.header('if-none-match');
  if (asked && asked.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) return c.body(null, 304, headers);
  return c.body(new Uint8Array(body), 200, { ...headers, 'content-type': type });
}

/** An HTML page under its Content-Security-Policy, never cached (it names the files above). */
export function page(c: Context<AppEnv>, html: string, csp: string): Response {
  return c.html(html, 200, {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  });
}

const STRING = { schema: { type: 'string' } };
const DIGEST = { description: "A digest of the file's content.", schema: { type: 'string' } };

/** A content map for text files of these media types. */
export const textContent = (...types: string[]): Record<string, unknown> => Object.fromEntries(types.map((type) => [type, STRING]));

/**
 * What the document says of a route answered by `staticFile`: the `{file}` parameter naming one
 * of `files` (when the route serves several), If-None-Match, and the file (200, with its ETag and
 * an hour's cache) or 304.
 */
export function staticFileDoc(answer: { description: string; content: Record<string, unknown> }, files?: readonly string[], example?: string) {
  return {
    parameters: [
      ...(files ? [{ name: 'file', in: 'path', required: true, description: "The file's name.", schema: { type: 'string', enum: [...files] }, ...(example ? { example } : {}) }] : []),
      { name: 'If-None-Match', in: 'header', required: false, description: 'The `ETag` of a copy the client holds.', schema: { type: 'string' } },
    ],
    responses: {
      '200': { ...answer, headers: { ETag: DIGEST, 'Cache-Control': { description: '`public, max-age=3600`', ...STRING } } },
      '304': { description: 'The copy named by `If-None-Match` is current.', headers: { ETag: DIGEST } },
    },
  };
}
