// The activity persistTransitions: an entity's flush of what its callers may not have written
// (docs/decisions.md, "A command at the price of one Update"), written by read-model/projection.ts.
// A regular activity, run only once the workflow task that scheduled it is in history, so a task
// the server drops leaves no write behind.
import type { Db } from '../core/db';
import type { TransitionRecord } from '../domain/activities';
import type { Resource } from '../domain/resource';
import { createTransitionWriter, type ProjectionSettings } from '../read-model/projection';

export type { ProjectionSettings };

/** @param resources the kinds this worker projects: the registry, or in tests the registry plus test-only kinds. */
export function createProjectionActivities(db: Db, settings: ProjectionSettings, resources?: readonly Resource<any, any>[]) {
  const { writeTransitions } = createTransitionWriter(db, settings, resources);
  return {
    // The workflow's own list of what is unwritten is whole: written past any gap.
    persistTransitions: async ({ transitions }: { transitions: TransitionRecord[] }): Promise<void> => {
      await writeTransitions(transitions, { whole: true });
    },
  };
}
