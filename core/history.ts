// The transitions an entity workflow's history holds (read by the rebuild, read-model/rebuild.ts,
// and by a resource's own history, core/entities.ts): each transition the entity decided is in its
// history, either as the answer of the Update that caused it or in the input of the activity
// through which the workflow wrote it (its flush, or the start of a transition's effects). Decoding a history is a Temporal matter, below the read
// model: core, not read-model/, so that core never imports the layer above it.
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import type { TransitionRecord } from '../domain/transition';

/** The activities through which a workflow writes transitions itself (their inputs hold them). */
const WRITING_ACTIVITIES = new Set(['persistTransitions', 'startFlows']);

function isRecord(value: unknown): value is TransitionRecord {
  const v = value as TransitionRecord | null;
  return !!v && typeof v.kind === 'string' && !!v.snapshot && typeof v.snapshot.id === 'string' && Array.isArray(v.events);
}

/**
 * The transition records one run's history holds, in history order. `codecs`: the client's payload
 * codecs (core/payload-codec.ts: a history read from Temporal holds its payloads as the codecs
 * wrote them, sealed where encryption is on); without, payloads are read as they are.
 */
export async function transitionsInHistory(events: readonly any[], codecs: readonly PayloadCodec[] = []): Promise<TransitionRecord[]> {
  const found: TransitionRecord[] = [];
  const decode = async (payloads: Payload[] | null | undefined) => {
    let decoded = payloads ?? [];
    for (const codec of [...codecs].reverse()) decoded = await codec.decode(decoded);
    return decoded.map((p) => defaultPayloadConverter.fromPayload<unknown>(p));
  };
  for (const event of events) {
    const completed = event.workflowExecutionUpdateCompletedEventAttributes;
    if (completed?.outcome?.success) {
      for (const answer of await decode(completed.outcome.success.payloads)) {
        const transition = (answer as { transition?: unknown } | null)?.transition;
        if (isRecord(transition)) found.push(transition);
      }
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled && WRITING_ACTIVITIES.has(scheduled.activityType?.name ?? '')) {
      for (const input of await decode(scheduled.input?.payloads)) {
        const list = (input as { transitions?: unknown[] } | null)?.transitions;
        for (const t of list ?? []) if (isRecord(t)) found.push(t);
      }
    }
  }
  return found;
}
