// The activity persistTransition: one transition's read-model row and outbox events, written in
// one transaction by read-model/projection.ts. A regular activity, run only once the workflow task
// that scheduled it is in history, so a task the server drops leaves no write behind.
import type { Db } from '../core/db';
import type { TransitionRecord } from '../domain/activities';
import type { Resource } from '../domain/resource';
import { createTransitionWriter, type ProjectionSettings } from '../read-model/projection';

export type { ProjectionSettings };

/** @param resources the kinds this worker projects: the registry, or in tests the registry plus test-only kinds. */
export function createProjectionActivities(db: Db, settings: ProjectionSettings, resources?: readonly Resource<any, any>[]) {
  const { writeTransition } = createTransitionWriter(db, settings, resources);
  return { persistTransition: (record: TransitionRecord): Promise<void> => writeTransition(record) };
}
