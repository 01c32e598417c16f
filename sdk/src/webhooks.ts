// The receiving side of the broker's webhooks: verification of a delivery and the consumer's
// delivery rules (docs/webhooks.md, "Receiving webhooks").
//
// Each delivery is one CloudEvent in structured mode (Content-Type application/cloudevents+json),
// signed by the Standard Webhooks specification: `webhook-id` (the CloudEvent id, the same across
// retries), `webhook-timestamp` (unix seconds of the attempt) and `webhook-signature`
// (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, several space-separated while a secret rotates).
//
// Part of the SDK (sdk/): it imports nothing from the broker's own folders, only `standardwebhooks`.
//
// The clock. standardwebhooks 1.1.1 checks the timestamp in `Webhook.verify` through a private
// `verifyTimestamp` that reads `Date.now()` against a fixed 5-minute constant; neither the clock
// nor the tolerance can be passed in. Stubbing `Date.now` (global) or overriding the private
// method (an internal that may change) are not clean, so the receiver splits the work:
//   - the timestamp window is checked here, against `now()` and `toleranceSeconds`, with the
//     package's own comparisons (older than now - tolerance or newer than now + tolerance is
//     refused; exactly the tolerance is accepted);
//   - the signature is computed by the package's public `Webhook.sign(id, timestamp, body)` (its
//     HMAC-SHA256, its `whsec_` secret decoding) and compared with each `v1` signature of the
//     header in constant time, as `verify` does. No HMAC is written here.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export { WebhookVerificationError };

/**
 * A broker event as delivered: a CloudEvents 1.0 event in structured JSON mode with the broker's
 * extensions. `resourceversion` orders the events of one `subject`.
 */
export interface WebhookEvent<Data = unknown> {
  specversion: string;
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  dataschema?: string;
  datacontenttype?: string;
  data?: Data;
  organizationid: string;
  resourceversion: number;
  correlationid: string;
  causationid?: string;
  [extension: string]: unknown;
}

/**
 * What a consumer has applied: the ids of applied events (delivery is at least once) and, per
 * subject, the highest resource version applied. A durable implementation should record in the
 * same transaction that applies the event.
 */
export interface AppliedStore {
  hasEvent(id: string): Promise<boolean> | boolean;
  appliedVersion(subject: string): Promise<number | undefined> | number | undefined;
  record(event: { id: string; subject: string; resourceversion: number }): Promise<void> | void;
}

/**
 * An AppliedStore in memory, for one process and for tests. It remembers the last `maxEventIds`
 * event ids (default 10,000; the oldest are forgotten first) and the highest applied version of
 * every subject (not bounded: one number per subject seen). It is lost on restart: after one, the
 * version check alone keeps old events out only when the application itself remembers versions.
 */
export class MemoryAppliedStore implements AppliedStore {
  private readonly ids = new Set<string>();
  private readonly versions = new Map<string, number>();
  private readonly maxEventIds: number;

  constructor(options: { maxEventIds?: number } = {}) {
    const max = options.maxEventIds ?? 10_000;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`maxEventIds must be a positive integer, not ${max}`);
    this.maxEventIds = max;
  }

  hasEvent(id: string): boolean {
    return this.ids.has(id);
  }

  appliedVersion(subject: string): number | undefined {
    return this.versions.get(subject);
  }

  record(event: { id: string; subject: string; resourceversion: number }): void {
    // A Set iterates in insertion order: delete and re-add makes an id the newest.
    this.ids.delete(event.id);
    this.ids.add(event.id);
    while (this.ids.size > this.maxEventIds) this.ids.delete(this.ids.values().next().value as string);
    const before = this.versions.get(event.subject);
    if (before === undefined || event.resourceversion > before) this.versions.set(event.subject, event.resourceversion);
  }
}

/** The verdict on one verified delivery. Answer the broker with a 2xx for all three. */
export type ReceiveResult =
  /** New: apply it, then call `markApplied(event)`, then answer 2xx. */
  | { outcome: 'apply'; event: WebhookEvent }
  /** This event id was applied before (a redelivery): do nothing, answer 2xx. */
  | { outcome: 'duplicate'; event: WebhookEvent }
  /** Its subject is already at `appliedVersion` >= the event's resourceversion: ignore it, answer 2xx. */
  | { outcome: 'stale'; event: WebhookEvent; appliedVersion: number };

export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers;

export interface WebhookReceiverOptions {
  /**
   * The subscription's signing secrets (`whsec_<base64>`): the current one and, during a rotation,
   * the previous one. A delivery is accepted when any of its signatures matches any secret.
   */
  secrets: string[];
  /** Defaults to a new MemoryAppliedStore. */
  store?: AppliedStore;
  /** The accepted distance of `webhook-timestamp` from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The clock (default: the system clock). */
  now?: () => Date;
}

export interface WebhookReceiver {
  /**
   * Verifies one delivery and classifies it by the delivery rules: a known event id is a
   * `duplicate`; a resourceversion lower than or equal to the one applied for its subject is
   * `stale`; anything else is to `apply`.
   *
   * `receive` records nothing. The caller applies the event and then calls `markApplied(event)`,
   * and only then answers 2xx. A crash (or a failed apply) between `receive` and `markApplied`
   * thus leaves the event unrecorded: the broker's redelivery is classified `apply` again instead
   * of being dropped as a duplicate. The price is that an apply that succeeded but was not marked
   * is applied a second time, so applying should be idempotent (ideally the application's write
   * and `markApplied` share one transaction). Two deliveries of one event that overlap in time
   * (a retry after a slow answer) can both be classified `apply`; serialize per subject if that
   * matters.
   *
   * @param rawBody the request body exactly as received (the signature covers these bytes; do
   *   not parse and re-serialize it first).
   * @param headers Node's `IncomingMessage.headers` (lowercase names, values maybe arrays), a
   *   fetch `Headers`, or any record; names are matched case-insensitively.
   * @throws WebhookVerificationError when the delivery is not authentic or not usable: a missing
   *   or repeated header, a bad signature, a timestamp outside the tolerance, a `webhook-id` other
   *   than the body's id, or a body that is not a broker CloudEvent. Answer 400 (or 401).
   */
  receive(rawBody: string | Buffer, headers: WebhookHeaders): Promise<ReceiveResult>;
  /** Records an applied event in the store; call it after applying, before answering 2xx. */
  markApplied(event: WebhookEvent): Promise<void>;
}

/** A receiver of the broker's webhook deliveries; see WebhookReceiver.receive for the contract. */
export function createWebhookReceiver(opts: WebhookReceiverOptions): WebhookReceiver {
  if (!Array.isArray(opts.secrets) || opts.secrets.length === 0) throw new TypeError('createWebhookReceiver: at least one secret is required');
  // `new Webhook` decodes the secret (with or without the whsec_ prefix) and refuses an empty one.
  const webhooks = opts.secrets.map((secret) => new Webhook(secret));
  const store = opts.store ?? new MemoryAppliedStore();
  const tolerance = opts.toleranceSeconds ?? 300;
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new RangeError(`toleranceSeconds must be a non-negative number, not ${tolerance}`);
  const now = opts.now ?? (() => new Date());

  function verify(rawBody: string | Buffer, headers: WebhookHeaders): WebhookEvent {
    const id = single(headers, 'webhook-id');
    const timestampHeader = single(headers, 'webhook-timestamp');
    const signatureHeader = all(headers, 'webhook-signature');
    if (!/^\d{1,15}$/.test(timestampHeader)) throw new WebhookVerificationError(`Invalid webhook-timestamp header: ${JSON.stringify(timestampHeader)} is not unix seconds`);
    const timestamp = Number(timestampHeader);
    const nowSeconds = Math.floor(now().getTime() / 1000);
    if (nowSeconds - timestamp > tolerance) throw new WebhookVerificationError(`Message timestamp too old: ${nowSeconds - timestamp} s before now, tolerance ${tolerance} s`);
    if (timestamp - nowSeconds > tolerance) throw new WebhookVerificationError(`Message timestamp too new: ${timestamp - nowSeconds} s after now, tolerance ${tolerance} s`);

    // `v1,<base64>` entries, space-separated; a header repeated (Node arrays, or fetch's ", "
    // join) adds entries. Other versions (v1a, ...) are skipped, as the package does.
    const offered = signatureHeader
      .split(/\s+/)
      .map((entry) => entry.replace(/,$/, ''))
      .filter((entry) => entry.startsWith('v1,'));
    if (offered.length === 0) throw new WebhookVerificationError('No v1 signature in the webhook-signature header');
    const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
    const signedAt = new Date(timestamp * 1000);
    const valid = webhooks.some((webhook) => {
      const expected = webhook.sign(id, signedAt, body);
      return offered.some((signature) => constantTimeEqual(signature, expected));
    });
    if (!valid) throw new WebhookVerificationError('No matching signature found: bad signature, or signed with a secret not configured');

    let event: unknown;
    try {
      event = JSON.parse(body);
    } catch {
      throw new WebhookVerificationError('The body is not JSON');
    }
    const problem = notAnEvent(event);
    if (problem) throw new WebhookVerificationError(`The body is not a broker CloudEvent: ${problem}`);
    const verified = event as WebhookEvent;
    if (verified.id !== id) throw new WebhookVerificationError(`The webhook-id header ${JSON.stringify(id)} does not equal the event id ${JSON.stringify(verified.id)}`);
    return verified;
  }

  return {
    async receive(rawBody, headers) {
      const event = verify(rawBody, headers);
      if (await store.hasEvent(event.id)) return { outcome: 'duplicate', event };
      const appliedVersion = await store.appliedVersion(event.subject);
      if (appliedVersion !== undefined && event.resourceversion <= appliedVersion) return { outcome: 'stale', event, appliedVersion };
      return { outcome: 'apply', event };
    },
    async markApplied(event) {
      await store.record({ id: event.id, subject: event.subject, resourceversion: event.resourceversion });
    },
  };
}

/** The values of one header, whatever the form of `headers`; names case-insensitive. */
function values(headers: WebhookHeaders, name: string): string[] {
  if (typeof (headers as Headers).get === 'function') {
    const value = (headers as Headers).get(name);
    return value === null ? [] : [value];
  }
  const out: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    out.push(...(Array.isArray(value) ? value : [value]));
  }
  return out;
}

/** A header that must have one value (repetitions of the same value are tolerated). */
function single(headers: WebhookHeaders, name: string): string {
  const found = [...new Set(values(headers, name).map((v) => v.trim()))].filter((v) => v !== '');
  if (found.length === 0) throw new WebhookVerificationError(`Missing ${name} header`);
  if (found.length > 1) throw new WebhookVerificationError(`Several different ${name} headers`);
  return found[0];
}

/** A header whose repetitions add up (webhook-signature). */
function all(headers: WebhookHeaders, name: string): string {
  const joined = values(headers, name).join(' ').trim();
  if (joined === '') throw new WebhookVerificationError(`Missing ${name} header`);
  return joined;
}

/** Why a parsed body is not a usable broker event, or undefined. */
function notAnEvent(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return 'not a JSON object';
  const e = event as Record<string, unknown>;
  for (const member of ['id', 'type', 'subject'] as const) {
    if (typeof e[member] !== 'string' || e[member] === '') return `${member} is not a non-empty string`;
  }
  if (typeof e.resourceversion !== 'number' || !Number.isSafeInteger(e.resourceversion) || e.resourceversion < 0) return 'resourceversion is not a non-negative integer';
  return undefined;
}

/** String equality whose time does not depend on where the strings differ. */
function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i % (b.length || 1));
  return diff === 0;
}
