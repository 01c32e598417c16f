// What a format of the gateway is: a versioned profile named in its diagnostics, that maps a
// message to what the exchange should do (or quarantines it, saying why and where), submits that
// with the SDK, and writes the sender's acknowledgements. The formats are listed in gateway/formats.ts.
import type { PcxClient } from '@pcx/sdk';
import type { Milestone } from './baseline';
import type { ServedOrganization } from './config';
import type { InboxEntry, Mapping, QuarantineReason } from './store';

export { MILESTONES, type Milestone } from './baseline';

/** A profile the gateway supports: named with its version in diagnostics and in every answer it writes. */
export interface Profile {
  id: string;
  version: string;
  description: string;
}

/** What a message became, kept on its inbox entry (JSON). */
export interface Mapped {
  kind: 'mapped';
  /**
   * The sender's own reference of this transmission, where its format has one (EDIFACT: UNB sender
   * and interchange control reference): a later message with the same one is held as a duplicate.
   */
  senderReference?: { value: string; label: string; position: string };
  [detail: string]: unknown;
}

export interface Quarantined {
  kind: 'quarantined';
  reasons: QuarantineReason[];
  /** Held because its sender reference was acted on before, in this entry (the format's answer says so: CONTRL 26). */
  duplicateOf?: string;
  [detail: string]: unknown;
}


/**
 * A milestone a carrier's message reports (an IFTSTA status, an EPCIS event), before the gateway
 * knows which execution reference it is about: the gateway finds that from `references` in its
 * mapping state (the organization's own references of the movement: its trip or order number,
 * the consignment number), and quarantines the message when none or several match.
 */
export interface ReportedMilestone {
  /** Every reference the message names for the movement; any one may identify it. */
  references: Array<{ type: string; value: string }>;
  milestone: Milestone;
  /** When it happened, by the source (RFC 3339, UTC). */
  occurredAt: string;
  /** The same on every resend of the same report (the event's own id, or a digest of what identifies it). */
  deduplicationKey: string;
  /** Where it happened, when the message names the place as a UN/LOCODE or as one of the organization's `places`. */
  unLocode?: string;
  /** Why (a delay's or a failure's reason), as the message says it. */
  reason?: string;
  /** Estimates the report carries (a delay's new arrival): the exchange's ExecutionUpdate.estimatedTimes. */
  estimatedTimes?: { pickupAt?: string; deliveryAt?: string };
  /** Where, as a position without a place code (a coordinate the message gives): a circle of at least 1 km, so that it stays coarse. */
  position?: { lon: number; lat: number };
  /**
   * The report corrects what was reported before (a replacing IFTSTA, BGM function 5; an EPCIS error
   * declaration): the movement's outcome is corrected (POST /execution-outcomes/{head}/corrections)
   * to `status`, saying why; `only`: nothing else is recorded (an error declaration is no new milestone).
   */
  correction?: { status: 'completed' | 'failed' | 'disputed' | 'cancelled'; reason: string; reasonCode: 'DATA_ENTRY_ERROR' | 'LATE_INFORMATION' | 'OTHER'; only?: boolean };
  /** Where in the message it was read (segment and element, JSON Pointer), for quarantine reasons. */
  source: string;
}

/** What became of one reported milestone: recorded on its execution reference, or refused there. */
export interface MilestoneResult {
  executionReferenceId: string;
  updateId?: string;
  problem?: { status: number; code: string; detail: string };
  /** A final milestone (delivered, failed) also reports the execution outcome, when it can. */
  outcome?: { reported: true; outcomeId: string; status: string } | { reported: false; why: string };
  /** A correcting report's correction of the movement's outcome (ReportedMilestone.correction). */
  correction?: { corrected: true; outcomeId: string; status: string } | { corrected: false; why: string };
}

export type Submitted =
  | { kind: 'created'; resources: Array<{ kind: string; id: string; status: string }>; mappings: Mapping[]; milestones?: MilestoneResult[] }
  | { kind: 'refused'; problem: { status: number; code: string; detail: string } };

/**
 * A milestone of an execution reference as the gateway tells it to the shipper whose message the
 * movement came from, in the shipper's format (an IFTSTA, an EPCIS event), with the shipper's own
 * consignment references.
 */
export interface MilestoneNotice {
  executionReferenceId: string;
  /** The milestone's id at the exchange (ExecutionUpdate.id): names the outbound message. */
  updateId: string;
  milestone: Milestone;
  occurredAt: string;
  recordedAt: string;
  unLocode?: string;
  reason?: string;
  /** The shipper's references of the consignment (from its IFTMIN: the BGM document number first, then its RFFs). */
  consignment: { documentNumber: string; references: Array<{ system: string; type: string; value: string }> };
}

export interface OutboundDraft {
  kind: string;
  name: string;
  content: string;
}

export interface Format {
  name: string;
  profiles: readonly Profile[];
  /** The file name endings of a mailbox file in this format (lower case, with the dot). */
  extensions: readonly string[];
  /** A message's bytes as text, in the character encoding the message itself declares. */
  decode(bytes: Buffer): string;
  /**
   * Parses, checks and maps a message for the organization it arrived for (pure: no I/O); `others`
   * are the other organizations the gateway serves, whose identities a message may not name.
   */
  map(entry: InboxEntry, organization: ServedOrganization, others: readonly ServedOrganization[]): Mapped | Quarantined;
  /**
   * Sends the mapped commands that create resources; `key(step)` is the Idempotency-Key of each.
   * Milestones (`mapped.milestones`, ReportedMilestone[]) are not the format's: the gateway
   * resolves their references and records them itself (gateway/milestones.ts).
   */
  submit(mapped: Mapped, client: PcxClient, key: (step: string) => string): Promise<Submitted>;
  /** The sender's acknowledgements of an entry that is quarantined or submitted (`entry.result.submitted`). */
  acknowledge(entry: InboxEntry, organization: ServedOrganization, now: Date): OutboundDraft[];
  /** A milestone told to a shipper in this format (formats a shipper can receive status in). */
  notify?(notice: MilestoneNotice, organization: ServedOrganization, now: Date): OutboundDraft;
}
