// Activities: the only workflow-side code that does I/O, implementing the contract of
// domain/activities.ts. Created per worker with its database and the Temporal facade (flows send
// commands to entity workflows through it).
import type { Db } from '../core/db';
import type { Entities } from '../core/entities';
import type { Activities } from '../domain/activities';
import type { Resource } from '../domain/resource';
import { createCommandActivities } from './commands';
import { createMatchingActivities, type MatchingSettings } from './matching';
import { createProjectionActivities, ProjectionSettings } from './projection';
import { createTransportActivities } from './transport';
import { createReferenceActivities } from './execution-reference';
import { createWebhookActivities } from './webhooks';
import { createRetentionActivities } from './retention';
import type { PersonalData } from '../core/personal-data';
import type { RetentionPolicies } from '../domain/retention';
import type { WebhookDelivery } from '../delivery/webhook-pump';

export interface ActivitySettings extends ProjectionSettings {
  matching?: MatchingSettings;
  /** The webhook pump the workflow path's activity runs; without it (tests of other activities) the activity refuses to run. */
  webhooks?: WebhookDelivery;
  /** The retention policies the purge applies (core/retention-policies.ts); without them it purges nothing. */
  retention?: RetentionPolicies;
  /** Destroys the keys of erased and purged records' personal data (core/personal-data.ts); without it (tests of other activities) none are destroyed. */
  personalData?: PersonalData;
}

/** @param entities where the broker creates resources (proposals) and sends flows' commands. */
export function createActivities(db: Db, settings: ActivitySettings, entities: Entities, resources?: readonly Resource<any, any>[]): Activities {
  const projection = createProjectionActivities(db, settings, resources);
  const commands = createCommandActivities(entities, resources);
  return {
    ...projection,
    ...commands,
    // A transition's effects start once what they read is written: the transitions handed along
    // first (one activity for both, workflows/entity.ts startEffects).
    async startFlows(starts) {
      if (starts.transitions.length) await projection.persistTransitions({ transitions: starts.transitions });
      await commands.startFlows(starts);
    },
    ...createMatchingActivities(db, settings.matching),
    ...createTransportActivities(db),
    ...createReferenceActivities(db),
    purgeDue: createRetentionActivities(db, entities, settings).purgeDue,
    ...(settings.webhooks
      ? createWebhookActivities(settings.webhooks)
      : {
          async pumpWebhookSubscription() {
            throw new Error('this worker was created without webhook settings');
          },
        }),
  };
}

