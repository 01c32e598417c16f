// HTTP API of PartnerRelationship: create, draft update, the seven lifecycle commands, reads.
// Rules live in the machine (domain/partner-relationship.ts); this router gathers the facts it
// needs (partnering policies, known organizations), authorizes, and keeps the pair claims.
import { Hono } from 'hono';
import { Problem } from '../domain/problems';
import { listRelationships } from '../read-model/partner-relationship';
import { partnerRelationship, type PartnerRelationship, type RelationshipContext } from '../domain/partner-relationship';
import { hit } from '../read-model/rate-counters';
import { claim, draftKey, pairKey, release } from './relationship-pairs';
import { precheckCreate, runCommand } from './commands';

import type { AppEnv } from './context';
import { pageParams, querySingle, type Ctx } from './http';
import { commandRoute, getRoute, page, participantAccess, statusQuery, viewFor, type CommandRoute } from './resource-routes';
import { operation, type BodyName } from './operations';


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

operation(partnerRelationships, { method: 'POST', path: '/', access: { scope: resource.scopes.write }, body: 'PartnerRelationshipCreateRequest', answers: [201] }, async ({ c, principal, body }) => {
  const { config, db } = c.get('services');
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

operation(partnerRelationships, { method: 'GET', path: '/', access: { scope: resource.scopes.read }, answers: [200] }, async ({ c, principal }) => {
  const { after, limit } = pageParams(c);
  const statuses = statusQuery(c, resource);
  const counterpart = querySingle(c, 'counterpart');
  if (counterpart !== undefined && !ORG.test(counterpart)) {
    throw new Problem('VALIDATION_FAILED', 'counterpart must be an organization id', { errors: [{ pointer: '/query/counterpart', message: 'is not an organization id' }] });
  }
  const docs = await listRelationships(c.get('services').db, principal.organizationId, { statuses, counterpart, after, limit });
  return c.json(page(resource, principal, docs, limit));
});

getRoute(partnerRelationships, resource, access);

// The lifecycle commands, with the schema of each body. Every one gets the partnering policies.
const command = <N extends BodyName>(name: string, body: N, extra: Partial<CommandRoute<PartnerRelationship, N>> = {}) =>
  commandRoute<PartnerRelationship, N>(partnerRelationships, resource, name, { body, access, context: (c, doc) => context(c, doc), ...extra });

command('update', 'PartnerRelationshipUpdateRequest', { method: 'PATCH' });
command('request', 'CommonCommand', {
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
command('accept', 'CommonCommand');
command('reject', 'CommonOptionallyReasonedCommand');
command('withdraw', 'CommonReasonedCommand');
command('suspend', 'CommonReasonedCommand');
command('terminate', 'CommonReasonedCommand');
command('reactivate', 'CommonCommand');
