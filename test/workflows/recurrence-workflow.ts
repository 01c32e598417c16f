// A workflow that computes a series' calendar (domain/recurrence.ts) inside Temporal's sandbox:
// test/workflows/recurrence.test.ts bundles it alone and compares its answer with Node's.
import { dueOccurrences, nextOccurrence, recurrenceProblems, type Horizon, type OccurrenceTemplate, type Recurrence } from '../../domain/recurrence';

export interface RecurrenceProbeInput {
  recurrence: Recurrence;
  template: OccurrenceTemplate;
  /** Absent: the workflow's own clock. */
  now?: string;
  horizon: Horizon;
  after: string;
}

/** Due occurrences at `now`, the next after a key, and the problems of a broken copy of the series. */
export async function recurrenceProbe(input: RecurrenceProbeInput) {
  const calendar = { recurrence: input.recurrence, template: input.template };
  const now = input.now ?? new Date().toISOString();
  return {
    now,
    due: dueOccurrences(calendar, { now, horizon: input.horizon }),
    next: nextOccurrence(calendar, input.after) ?? null,
    problems: recurrenceProblems({ ...input.recurrence, timeZone: 'Europe/Atlantis', rrule: 'FREQ=HOURLY' }, input.template),
  };
}
