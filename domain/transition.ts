// A transition as it travels from the entity workflow that decided it to the read model: what an
// Update answers (docs/decisions.md, "A command at the price of one Update") and what the
// projection activities write. Types only.
import type { Envelope, EventDraft } from './machine';

/** One transition to persist: the read-model row and the outbox events, in one transaction. */
export interface TransitionRecord {
  kind: string;
  snapshot: Envelope;
  events: Array<EventDraft & { id: string; time: string }>;
  correlationId: string;
  causationId: string;
}

/**
 * What an entity's Update answers (workflows/entity.ts): the snapshot and the transition the
 * command made, for the caller to write into the read model (core/entities.ts), or null when there
 * is nothing to write (a command that changed nothing, or one the workflow wrote itself).
 */
export interface CommandAnswer<S extends Envelope = Envelope> {
  snapshot: S;
  transition: TransitionRecord | null;
}

/**
 * What an entity answers the Query `unwrittenTransitions` with: its transitions not known to be
 * written, oldest first, and whether it has decided the command asked about (null when none is).
 */
export interface UnwrittenTransitions {
  transitions: TransitionRecord[];
  known: boolean | null;
}
