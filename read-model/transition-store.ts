// The read model's side of a command at the price of one Update (core/entities.ts,
// TransitionStore): the intent written before the Update, the answer's transitions written under
// the version fence with the intent cleared in the same transaction, and the intents to sweep.
import type { Db } from '../core/db';
import { INTENT_GRACE_SECONDS, type TransitionStore } from '../core/entities';
import type { Resource } from '../domain/resource';
import { claimDueIntents, deleteIntent, insertIntent } from './command-intents';
import { createTransitionWriter, type ProjectionSettings } from './projection';

export function createTransitionStore(db: Db, settings: ProjectionSettings, resources?: readonly Resource<any, any>[]): TransitionStore {
  const { writeTransitions } = createTransitionWriter(db, settings, resources);
  return {
    intend: (intent, graceSeconds) => insertIntent(db, intent, graceSeconds),
    async write(transitions, commandId, whole) {
      const outcome = await writeTransitions(transitions, { whole, ...(commandId ? { after: (tx) => deleteIntent(tx, commandId) } : {}) });
      return 'gapAfter' in outcome ? outcome : { version: outcome.version };
    },
    forget: (commandId) => deleteIntent(db, commandId),
    due: (limit) => claimDueIntents(db, limit, INTENT_GRACE_SECONDS),
  };
}
