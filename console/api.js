// Calls to the broker with the signed-in user's token; a refusal becomes a ProblemError carrying
// the RFC 9457 problem's title and detail, which the console shows as they are. A command carries
// one Idempotency-Key per click, kept through a renewal and a new sign-in (console/session.js), so
// that whatever happens to the session it is applied at most once.
import { SessionEnded } from './session.js';
import { t } from './format.js';

export class ProblemError extends Error {
  constructor(problem, status) {
    super(problem.detail || problem.title || t('problem.http', { status: String(status) }));
    this.problem = problem;
    this.status = status;
  }
}

/**
 * @param session console/session.js
 * @param onKept called with a command kept for after the next sign-in (the session had ended)
 */
export function createApi(session, onKept = () => {}) {
  async function send(method, path, { body, ifMatch, key }, token) {
    const headers = { accept: 'application/json, application/problem+json', authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (ifMatch !== undefined) headers['if-match'] = `"${ifMatch}"`;
    if (key) headers['idempotency-key'] = key;
    return fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  }

  async function call(method, path, options = {}) {
    // A command's retry (a renewal, a new sign-in, a network failure) is answered once: one key per click.
    const request = { ...options, key: method === 'GET' ? undefined : (options.key ?? crypto.randomUUID()) };
    let res;
    try {
      res = await send(method, path, request, await session.token());
      // A token the broker no longer takes (it expired in flight): renewed, sent once more.
      if (res.status === 401) res = await send(method, path, request, await session.token({ renew: true }));
    } catch (err) {
      if (err instanceof SessionEnded && method !== 'GET') onKept({ method, path, ...request });
      throw err;
    }
    const text = await res.text();
    const data = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new ProblemError(data && typeof data === 'object' ? data : { title: t('problem.http', { status: String(res.status) }) }, res.status);
    return data;
  }

  return {
    get: (path) => call('GET', path),
    /** A command; `label` says what it does, for the notice if it has to wait for a new sign-in. */
    post: (path, body, ifMatch, label) => call('POST', path, { body, ifMatch, label }),
    /** A command kept across a sign-in, sent again as it was (same key). */
    resend: (command) => call(command.method, command.path, command),
    token: (options) => session.token(options),
    /** Every item of a list (follows nextCursor), at most `max`. */
    async all(path, max = 500) {
      const items = [];
      let cursor;
      do {
        const page = await call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        items.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor && items.length < max);
      return items;
    },
  };
}
