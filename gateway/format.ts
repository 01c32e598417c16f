// What a format of the gateway is: a versioned profile named in its diagnostics, that maps a
// message to what the exchange should do (or quarantines it, saying why and where), submits that
// with the SDK, and writes the sender's acknowledgements. The formats are listed in gateway/formats.ts.
import type { PcxClient } from '@pcx/sdk';
import type { ServedOrganization } from './config';
import type { InboxEntry, Mapping, QuarantineReason } from './store';

/** A profile the gateway supports: named with its version in diagnostics and in every answer it writes. */
export interface Profile {
  id: string;
  version: string;
  description: string;
}

/** What a message became, kept on its inbox entry (JSON). */
export interface Mapped {
  kind: 'mapped';
  [detail: string]: unknown;
}

export interface Quarantined {
  kind: 'quarantined';
  reasons: QuarantineReason[];
  [detail: string]: unknown;
}

export type Submitted =
  | { kind: 'created'; resources: Array<{ kind: string; id: string; status: string }>; mappings: Mapping[] }
  | { kind: 'refused'; problem: { status: number; code: string; detail: string } };

export interface OutboundDraft {
  kind: string;
  name: string;
  content: string;
}

export interface Format {
  name: string;
  profiles: readonly Profile[];
  /** A message's bytes as text, in the character encoding the message itself declares. */
  decode(bytes: Buffer): string;
  /**
   * Parses, checks and maps a message for the organization it arrived for (pure: no I/O); `others`
   * are the other organizations the gateway serves, whose identities a message may not name.
   */
  map(entry: InboxEntry, organization: ServedOrganization, others: readonly ServedOrganization[]): Mapped | Quarantined;
  /** Sends the mapped commands; `key(step)` is the Idempotency-Key of each. */
  submit(mapped: Mapped, client: PcxClient, key: (step: string) => string): Promise<Submitted>;
  /** The sender's acknowledgements of an entry that is quarantined or submitted. */
  acknowledge(entry: InboxEntry, organization: ServedOrganization, now: Date): OutboundDraft[];
}
