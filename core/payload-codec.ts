// Temporal payloads encrypted at rest (issue 52 part 2; docs/deployment.md, "Temporal payloads
// encrypted"): a PayloadCodec (Temporal's extension point between the SDK's payload converter and
// the wire) that seals each payload with the broker's key ring (core/secrets.ts: AES-256-GCM, the
// key id in every sealed value, the primary key seals, every key of the ring opens: a key added
// rotates without downtime). Temporal's histories, its SQLite file and its backups then hold
// commands, snapshots and answers only as ciphertext.
//
// Decoding never needs the switch: a payload that is not sealed (written before encryption was on,
// or by a process with it off) passes through, so a reader (the rebuild, a replay) reads both.
// Encoding seals only when `encrypt` is on (TEMPORAL_PAYLOAD_ENCRYPTION).
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { KeyRing } from './secrets';

/** The `encoding` metadata of a sealed payload. */
export const SEALED_ENCODING = 'binary/pcx-sealed';
/** Bound as additional data: a value sealed for a payload opens only as a payload. */
const CONTEXT = 'temporal-payload';

const text = (s: string) => new TextEncoder().encode(s);
const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('base64');

/** A payload as JSON: its metadata and data in base64. What is sealed, and the form of Temporal's remote codec protocol (api/codec.ts). */
export type WirePayload = { metadata: Record<string, string>; data: string };

export const toWire = (p: Payload): WirePayload => ({ metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])), data: b64(p.data) });

export const fromWire = (w: WirePayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(w.metadata).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(w.data, 'base64')),
});

export const isSealed = (p: Payload) => Buffer.from(p.metadata?.encoding ?? new Uint8Array()).toString() === SEALED_ENCODING;

export class KeyRingPayloadCodec implements PayloadCodec {
  constructor(
    private readonly ring: KeyRing,
    private readonly encrypt: boolean,
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    if (!this.encrypt) return payloads;
    return payloads.map((p) => (isSealed(p) ? p : { metadata: { encoding: text(SEALED_ENCODING) }, data: text(this.ring.seal(JSON.stringify(toWire(p)), CONTEXT)) }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => (isSealed(p) ? fromWire(JSON.parse(this.ring.open(Buffer.from(p.data ?? new Uint8Array()).toString(), CONTEXT)) as WirePayload) : p));
  }
}
