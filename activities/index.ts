// Activities: the only workflow-side code that does I/O. Created per worker with its database.
import type { Db } from '../core/db';
import { createProjectionActivities, ProjectionSettings } from './projection';

export function createActivities(db: Db, settings: ProjectionSettings) {
  return { ...createProjectionActivities(db, settings) };
}

export type Activities = ReturnType<typeof createActivities>;
