// The sandbox's record of what each connector sent, and the faults it is told to answer with
// (development mode only; docs/conformance.md). The conformance kit's connector profiles judge a
// connector by this record: whether its commands carried an Idempotency-Key and If-Match, whether
// a retry reused its key, how long it waited after a 429 or 503, which body fields it sent. In
// memory, per process: a sandbox is one `npm start`, and nothing here outlives it.

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
  /** The sandbox answered with an injected fault, not the broker. */
  injectedFault: boolean;
}

export interface Fault {
  id: string;
  clientId: string;
  status: 429 | 503;
  retryAfterSeconds: number;
  /** Requests still to be answered with it. */
  remaining: number;
  method?: string;
  pathPrefix?: string;
}

/** How many requests are kept (the oldest go first). */
export const SANDBOX_RECORD_LIMIT = 10_000;

export class SandboxRecord {
  private readonly requests: ConnectorRequest[] = [];
  private readonly faults: Fault[] = [];
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
    const fault = this.faults.find((f) => f.clientId === clientId && f.remaining > 0 && (!f.method || f.method === method) && (!f.pathPrefix || path.startsWith(f.pathPrefix)));
    if (!fault) return undefined;
    fault.remaining--;
    if (fault.remaining === 0) this.faults.splice(this.faults.indexOf(fault), 1);
    return fault;
  }
}
