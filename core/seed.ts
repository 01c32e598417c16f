// The development seed: the organizations of the configuration file imported as records of the
// exchange (domain/organization.ts) at start, idempotently. An organization that has a record is
// left alone (the record is the truth from then on: the operator's changes are made there, and an
// edit of the file no longer changes it); one that has none is created, active and verified by the
// seed. Each create's Update id and record id derive from the organization id, so replicas that
// start together import each organization once (Temporal deduplicates; the second is refused with
// RESOURCE_EXISTS, which is the same outcome). Runs beside the API: until a record exists the
// file's entry answers for it (core/registry.ts), and they agree.
import { basename } from 'node:path';
import { BROKER } from '../domain/machine';
import { organization, organizationContext } from '../domain/organization';
import { EntityUnavailable, type Entities } from './entities';
import type { Logger } from './log';
import { organizationRecordId } from './name-ids';
import type { Registry } from './registry';

export async function importSeed(options: { registry: Registry; entities: Entities; organizationsFile: string; log: Logger; attempts?: number }): Promise<{ created: number; existing: number }> {
  const { registry, entities, log } = options;
  const source = basename(options.organizationsFile);
  let created = 0;
  let existing = 0;
  for (const o of registry.fileOrganizations()) {
    if (registry.organization(o.organizationId)?.managed) {
      existing += 1;
      continue;
    }
    const command = {
      name: 'create',
      commandId: `seed:organization:${o.organizationId}`,
      actor: BROKER,
      correlationId: `seed:${o.organizationId}`,
      payload: { organizationId: o.organizationId, name: o.name, role: o.role, partneringPolicy: o.partneringPolicy },
      context: organizationContext({ source }),
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await entities.create(organization, organizationRecordId(o.organizationId), command);
        if (answer.ok) created += 1;
        else existing += 1;
        // An inactive entry of the file is imported, then ended, so that the record says so too.
        if (answer.ok && o.status === 'inactive') {
          await entities.send(organization, organizationRecordId(o.organizationId), { name: 'end', commandId: `seed:organization:${o.organizationId}:end`, actor: BROKER, correlationId: command.correlationId, payload: { reason: `inactive in ${source}` } });
        }
        break;
      } catch (err) {
        if (!(err instanceof EntityUnavailable) || attempt >= (options.attempts ?? 10)) throw err;
        await new Promise((r) => setTimeout(r, Math.min(1000 * attempt, 5000)));
      }
    }
  }
  log.info({ created, existing, source }, 'organizations of the seed imported');
  return { created, existing };
}
