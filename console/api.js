// Calls to the broker with the signed-in user's token; a refusal becomes a ProblemError carrying
// the RFC 9457 problem's title and detail, which the console shows as they are.
export class ProblemError extends Error {
  constructor(problem, status) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.problem = problem;
    this.status = status;
  }
}

export function createApi(getToken) {
  async function call(method, path, { body, ifMatch } = {}) {
    const headers = { accept: 'application/json, application/problem+json', authorization: `Bearer ${await getToken()}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (ifMatch !== undefined) headers['if-match'] = `"${ifMatch}"`;
    // A command's retry after a network failure is answered once: one key per user action.
    if (method !== 'GET') headers['idempotency-key'] = crypto.randomUUID();
    const res = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    const data = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new ProblemError(data && typeof data === 'object' ? data : { title: `HTTP ${res.status}` }, res.status);
    return data;
  }
  return {
    get: (path) => call('GET', path),
    post: (path, body, ifMatch) => call('POST', path, { body, ifMatch }),
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
