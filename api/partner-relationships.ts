// HTTP API of PartnerRelationship: create, draft update, the seven lifecycle commands, reads.
// Rules live in the machine (workflows/partner-relationship.ts); this router gathers the facts it
// needs (partnering policies, known organizations), authorizes, and keeps the pair claims.
import { Hono } from 'hono';
import { Problem } from '../core/problems';
import { listRelationships } from '../activities/partner-relationship';
import { partnerRelationship, type PartnerRelationship, type RelationshipContext } from '../domain/partner-relationship';
import { hit } from './rate-limit';
import { claim, draftKey, pairKey, release } from './relationship-pairs';
import { precheckCreate, runCommand } from './commands';
import { authorize } from './gates';
import type { AppEnv } from './context';
import { encodeCursor, pageParams, querySingle, queryValues, readJson, type Ctx } from './http';
import { commandRoute, getRoute, participantAccess, viewFor } from './resource-routes';


const resource = partnerRelationship;
const ORG = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Gate 4: the requester always; the accepter once the relationship has been requested (its participants, rule 7). */
const access = participantAccess<PartnerRelationship>(resource, resource.scopes.write);

/** Facts the machine needs: both partnering policies, and whether the counterpart exists. */
function context(c: Ctx, r: { requestingOrganizationId: string; acceptingOrganizationId: string }): RelationshipContext {
  const { registry } = c.get('services');
  return {
    requestingGrantedScopes: registry.grantedScopes(r.requestingOrganizationId),
    acceptingGrantedScopes: registry.grantedScopes(r.acceptingOrganizationId),
    acceptingOrganizationKnown: registry.organization(r.acceptingOrganizationId) !== undefined,
  };
}

export const partnerRelationships = new Hono<AppEnv>();

partnerRelationships.post('/', async (c) => {
  const { principal } = await authorize(c, { scope: resource.scopes.write });
  const { schemas, config, db } = c.get('services');
  const body = schemas.assert<any>(`${resource.kind}#/$defs/CreateRequest`, await readJson(c));
  // The machine's create rules, asked before a workflow is started for a create they refuse.
  precheckCreate(c, resource, body, context(c, body));

  const org = principal.organizationId;
  const key = draftKey(org, body.acceptingOrganizationId);
  let claimed = false;
  return runCommand(c, {
    resource,
    name: 'create',
    payload: body,
    context: context(c, body),
    view: viewFor(resource, principal),
    async before(id) {
      // Invites are limited per organization (specification, Limits).
      await hit(db, [
        { key: `invites-minute:${org}`, limit: config.limits.invitesPerMinute, windowSeconds: 60 },
        { key: `invites-hour:${org}`, limit: config.limits.invitesPerHour, windowSeconds: 3600 },
      ]);
      claimed = await claim(c, key, id, org, true);
    },
    async refused(id) {
      if (claimed) await release(c, key, id);
    },
  });
});

partnerRelationships.get('/', async (c) => {
  const { principal } = await authorize(c, { scope: resource.scopes.read });
  const { after, limit } = pageParams(c);
  const statuses = queryValues(c, 'status');
  const counterpart = querySingle(c, 'counterpart');
  if (statuses && statuses.some((s) => !(resource.statuses as readonly string[]).includes(s))) {
    throw new Problem('VALIDATION_FAILED', `status must be one or more of ${resource.statuses.join(', ')}`, { errors: [{ pointer: '/query/status', message: 'is not a relationship status' }] });
  }
  if (counterpart !== undefined && !ORG.test(counterpart)) {
    throw new Problem('VALIDATION_FAILED', 'counterpart must be an organization id', { errors: [{ pointer: '/query/counterpart', message: 'is not an organization id' }] });
  }
  const docs = await listRelationships(c.get('services').db, principal.organizationId, { statuses, counterpart, after, limit });
  const items = docs.slice(0, limit).map(viewFor(resource, principal));
  return c.json({ items, nextCursor: docs.length > limit ? encodeCursor(docs[limit - 1].id) : null });
});

getRoute(partnerRelationships, resource, access);

// The lifecycle commands, with the schema of each body. Every one gets the partnering policies.
const command = (name: string, body: string, extra: Partial<Parameters<typeof commandRoute<PartnerRelationship>>[3]> = {}) =>
  commandRoute<PartnerRelationship>(partnerRelationships, resource, name, { body, access, context: (c, doc) => context(c, doc), ...extra });

command('update', `${resource.kind}#/$defs/UpdateRequest`, { method: 'PATCH' });
command('request', 'common#/$defs/Command', {
  // Submitting makes the invite visible to both: from then on the pair, in either direction.
  hooks: (c, doc) => {
    if (doc.status !== 'draft') return {};
    const key = pairKey(doc.requestingOrganizationId, doc.acceptingOrganizationId);
    let claimed = false;
    return {
      before: async (id: string) => void (claimed = await claim(c, key, id, doc.requestingOrganizationId, false)),
      refused: async (id: string) => void (claimed && (await release(c, key, id))),
    };
  },
});
command('accept', 'common#/$defs/Command');
command('reject', 'common#/$defs/OptionallyReasonedCommand');
command('withdraw', 'common#/$defs/ReasonedCommand');
command('suspend', 'common#/$defs/ReasonedCommand');
command('terminate', 'common#/$defs/ReasonedCommand');
command('reactivate', 'common#/$defs/Command');
