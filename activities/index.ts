// Activities: the only workflow-side code that does I/O, implementing the contract of
// domain/activities.ts. Created per worker with its database and a Temporal client (flows send
// commands to entity workflows through it).
import type { Client } from '@temporalio/client';
import type { Db } from '../core/db';
import type { Activities } from '../domain/activities';
import type { Resource } from '../domain/resource';
import { createCommandActivities, type EntityPlacement } from './commands';
import { createMatchingActivities, type MatchingSettings } from './matching';
import { createProjectionActivities, ProjectionSettings } from './projection';
import { createTransportActivities } from './transport';
import { createReferenceActivities } from './execution-reference';

export interface ActivitySettings extends ProjectionSettings {
  /** Where resources the broker creates (proposals) run: the task queue and entity settings. */
  placement?: EntityPlacement;
  matching?: MatchingSettings;
}

export function createActivities(db: Db, settings: ActivitySettings, client: Client, resources?: readonly Resource<any, any>[]): Activities {
  return {
    ...createProjectionActivities(db, settings, resources),
    ...createCommandActivities(client, settings.placement, resources),
    ...createMatchingActivities(db, settings.matching),
    ...createTransportActivities(db),
    ...createReferenceActivities(db),
  };
}

