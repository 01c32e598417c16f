// The sandbox's record of what each connector sent, and the faults it is told to answer with
// (development mode only; docs/conformance.md). The conformance kit's connector profiles judge a
// connector by this record: whether its commands carried an Idempotency-Key and If-Match, whether
// a retry reused its key, how long it waited after a 429 or 503, which body fields it sent; and
// the event feed it reads can be served out of order and twice (an event disorder), to see that
// it applies events once and in version order. In memory, per process: a sandbox is one
// `npm start`, and nothing here outlives it.

export interface ConnectorRequest {
  /** Increases by one per request this process recorded. */
  sequence: number;
  at: string;
  clientId: string;
  organizationId: string;
  method: string;
  path: string;
  status: number;
  idempotencyKey: string | null;
  ifMatch: string | null;
  correlationId: string;
  ms: number;
  /** Top-level fields of a JSON object body, sorted; empty without one. */
  bodyFields: string[];
  /** The body's deduplicationKey as sent (execution reports): a retried report must carry its own. */
  deduplicationKey: string | null;
  /** The sandbox answered with an injected fault, not the broker. */
  injectedFault: boolean;
}

export interface Fault {
  id: string;
  clientId: string;
  /** 409 is answered as STALE_RESOURCE_VERSION (the resource changed), 429 as RATE_LIMITED, 503 as SERVICE_UNAVAILABLE. */
  status: FaultStatus;
  retryAfterSeconds: number;
  /** Requests still to be answered with it. */
  remaining: number;
  method?: string;
  pathPrefix?: string;
  pathSuffix?: string;
}

export type FaultStatus = 409 | 429 | 503;

/**
 * How a connector's event feed is served while the kit watches its event handling: a page ends
 * where the feed was quiet for `holdSeconds` (changes made in quick succession arrive together,
 * never split; a page of a busy feed may wait), its events in reverse order (a newer version
 * before an older one), and the page before it comes again, reversed too, at the next read (every
 * event twice). `remainingPages` counts the pages served so.
 */
export interface EventDisorder {
  clientId: string;
  holdSeconds: number;
  remainingPages: number;
}

/** A page of the feed as served under a disorder: its events reversed, then the previous page's again. */
export function disorderPage<T>(items: readonly T[], previous: readonly T[]): T[] {
  return [...items].reverse().concat([...previous].reverse());
}

/**
 * The longest prefix of a feed page that ends with a burst of changes: after its last event the
 * feed was quiet for `holdSeconds` (the next event came that much later, or none has come since).
 * Changes made within `holdSeconds` of each other are so served together or not at all.
 */
export function settledPrefix<T>(rows: readonly T[], timeOf: (row: T) => string, holdSeconds: number, now = Date.now()): T[] {
  const hold = holdSeconds * 1000;
  for (let k = rows.length - 1; k >= 0; k--) {
    const quietUntil = k + 1 < rows.length ? Date.parse(timeOf(rows[k + 1])) : now;
    if (quietUntil - Date.parse(timeOf(rows[k])) >= hold) return rows.slice(0, k + 1);
  }
  return [];
}

/** How many requests are kept (the oldest go first). */
export const SANDBOX_RECORD_LIMIT = 10_000;

export class SandboxRecord {
  private readonly requests: ConnectorRequest[] = [];
  private readonly faults: Fault[] = [];
  private readonly disorders = new Map<string, EventDisorder & { previous: unknown[] }>();
  private sequence = 0;
  private faultIds = 0;

  record(request: Omit<ConnectorRequest, 'sequence'>): void {
    this.requests.push({ ...request, sequence: ++this.sequence });
    if (this.requests.length > SANDBOX_RECORD_LIMIT) this.requests.splice(0, this.requests.length - SANDBOX_RECORD_LIMIT);
  }

  /** A client's requests after `after` (a sequence), oldest first, at most `limit`. */
  list(clientId: string, after: number, limit: number): ConnectorRequest[] {
    return this.requests.filter((r) => r.clientId === clientId && r.sequence > after).slice(0, limit);
  }

  addFault(fault: Omit<Fault, 'id'>): Fault {
    const added = { ...fault, id: `fault-${++this.faultIds}` };
    this.faults.push(added);
    return added;
  }

  /** The fault this request is to be answered with, if any (its count goes down by one). */
  takeFault(clientId: string, method: string, path: string): Fault | undefined {
    const fault = this.faults.find(
      (f) => f.clientId === clientId && f.remaining > 0 && (!f.method || f.method === method) && (!f.pathPrefix || path.startsWith(f.pathPrefix)) && (!f.pathSuffix || path.endsWith(f.pathSuffix)),
    );
    if (!fault) return undefined;
    fault.remaining--;
    if (fault.remaining === 0) this.faults.splice(this.faults.indexOf(fault), 1);
    return fault;
  }

  /** Sets (or with `pages` 0 ends) the event disorder of a client's feed. */
  setDisorder(clientId: string, holdSeconds: number, pages: number): EventDisorder {
    if (pages === 0) this.disorders.delete(clientId);
    else this.disorders.set(clientId, { clientId, holdSeconds, remainingPages: pages, previous: [] });
    return { clientId, holdSeconds, remainingPages: pages };
  }

  disorderOf(clientId: string): EventDisorder | undefined {
    return this.disorders.get(clientId);
  }

  /** A page read under the client's disorder, as it is served (and kept to be served again next time). */
  serveDisordered<T>(clientId: string, items: T[]): T[] {
    const disorder = this.disorders.get(clientId);
    if (!disorder) return items;
    const served = disorderPage(items, disorder.previous as T[]);
    disorder.previous = items;
    if (served.length > 0 && --disorder.remainingPages <= 0) this.disorders.delete(clientId);
    return served;
  }

  /** Ends every fault and the disorder of a client: the sandbox as if it had never been told anything about it. */
  reset(clientId: string): { clientId: string; faultsCleared: number; disorderEnded: boolean } {
    const pending = this.faults.filter((f) => f.clientId === clientId);
    for (const f of pending) this.faults.splice(this.faults.indexOf(f), 1);
    return { clientId, faultsCleared: pending.length, disorderEnded: this.disorders.delete(clientId) };
  }
}
