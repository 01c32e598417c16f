// The console's calls to the broker, through the SDK (sdk/src/browser.ts, served as sdk.js): the
// signed-in user's token, one Idempotency-Key per click, retries of what may be retried, and a
// refusal as the SDK's PcxProblemError, whose RFC 9457 problem (`err.problem`, its stable
// `err.code`) the console shows as it is. The key is kept through a renewal and a new sign-in
// (console/session.js), so that whatever happens to the session a command is applied at most once.
// A path that is no operation of the broker's document is refused before it is sent.
import { PcxClient, PcxProblemError } from './sdk.js';
import { SessionEnded } from './session.js';
import { t } from './format.js';

export { PcxProblemError as ProblemError };

/**
 * @param session console/session.js
 * @param onKept called with a command kept for after the next sign-in (the session had ended)
 */
export function createApi(session, onKept = () => {}) {
  // A 401 asks the session again with renew (a silent sign-in), then sends the same request once more.
  const pcx = new PcxClient({ baseUrl: location.origin, accessToken: ({ renew }) => session.token(renew ? { renew: true } : undefined) });

  async function call(method, path, options = {}) {
    // A command's retry (a renewal, a new sign-in, a network failure) is answered once: one key per click.
    const request = { ...options, key: method === 'GET' ? undefined : (options.key ?? crypto.randomUUID()) };
    try {
      const answer = await pcx.send(method, path, {
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(request.ifMatch === undefined ? {} : { ifMatch: `"${request.ifMatch}"` }),
        ...(request.key ? { idempotencyKey: request.key } : {}),
      });
      return answer.data;
    } catch (err) {
      if (err instanceof SessionEnded && method !== 'GET') onKept({ method, path, ...request });
      // No problem of the broker's (a proxy's error page): its status in words, never the page's text.
      if (err instanceof PcxProblemError && err.problem.type === 'about:blank') {
        err.problem.title = t('problem.http', { status: String(err.status) });
        delete err.problem.detail;
      }
      throw err;
    }
  }

  return {
    get: (path) => call('GET', path),
    /** A command; `label` says what it does, for the notice if it has to wait for a new sign-in. */
    post: (path, body, ifMatch, label) => call('POST', path, { body, ifMatch, label }),
    /** A change to a resource (a JSON merge patch on the version read). */
    patch: (path, body, ifMatch, label) => call('PATCH', path, { body, ifMatch, label }),
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
