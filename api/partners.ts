// GET /partners: the organizations the caller deals with, by name (the console shows names where
// the records carry ids): the caller's own organization and every organization in a relationship
// with it that the caller can see (rule 7: a draft only to its requesting organization). An
// organization with no relationship to the caller is not named here: the directory of the whole
// exchange is the operator's (GET /organizations).
import { Hono } from 'hono';
import type { AppEnv } from './context';
import { operation } from './operations';
import { currentRelationships } from '../read-model/partner-relationship';

export const partners = new Hono<AppEnv>();

operation(partners, {
  method: 'GET', path: '/', access: { scope: [] }, answers: [200],
  returns: 'OrganizationPartnerList',
  doc: {
    id: 'listPartners',
    summary: 'The organizations the caller deals with, by name',
    description:
      "The caller's organization (`relationship: self`) and every organization in a partner relationship with it that " +
      'the caller can see (a draft only by its requesting organization), with its name and the status of the most ' +
      'current relationship. For showing names where records carry organization ids. Needs a valid token but no ' +
      'particular scope.',
    responses: { '200': 'The organizations, the caller first.', '403': '`ORGANIZATION_INACTIVE`.' },
  },
}, async ({ c, principal }) => {
  const { db, registry } = c.get('services');
  const me = principal.organizationId;
  const best = await currentRelationships(db, me);
  const nameOf = (id: string) => registry.organization(id)?.name ?? id;
  const others = [...best].map(([organizationId, relationship]) => ({ organizationId, name: nameOf(organizationId), relationship }));
  others.sort((a, b) => a.name.localeCompare(b.name));
  return c.json({ items: [{ organizationId: me, name: nameOf(me), relationship: 'self' }, ...others] });
});
