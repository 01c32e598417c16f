// GET /directory: the exchange's directory, where an organization's admin finds another by name to
// invite it (POST /partner-relationships names it by its id). Curated: only the organizations the
// protocol operator lists (`directoryListing`, set by the operator alone) appear, and only while
// they are active; each with the operator's description and country, and the caller's most current
// relationship with it, so that an admin sees whom it already deals with. Nothing else of an
// organization is shown, and an unlisted one is never named here (isolation test).
import { Hono } from 'hono';
import type { AppEnv } from './context';
import { querySingle } from './http';
import { operation } from './operations';
import { Problem } from '../domain/problems';
import { foldName } from '../core/place-names';
import { listedOrganizations } from '../read-model/directory';
import { currentRelationships } from '../read-model/partner-relationship';

export const directory = new Hono<AppEnv>();

/** At most this many entries per answer (a search, not a list to page through). */
export const DIRECTORY_LIMIT = 50;

operation(directory, {
  method: 'GET', path: '/', access: { scope: [], anyScope: ['relationships:manage', 'exchange:admin'] }, answers: [200],
  returns: 'OrganizationDirectoryList',
  doc: {
    id: 'searchDirectory',
    summary: 'Find organizations to invite, by name',
    description:
      'The organizations the protocol operator lists in the directory (`directoryListing` of the organization, set by the ' +
      'operator only) and that are active, whose name, description or organization id holds `q` (case, accents and punctuation ignored; ' +
      `every listed one without \`q\`), by name, at most ${DIRECTORY_LIMIT}; the caller's own organization is left out. Each ` +
      "with the caller's most current relationship with it (`none` without one). Needs `relationships:manage` (an " +
      "organization's admin) or `exchange:admin`.",
    parameters: [
      { name: 'q', in: 'query', required: false, description: 'Part of a name (`alpine`), of a description (`reefer`) or of an organization id, 1 to 100 characters.', schema: { type: 'string', minLength: 1, maxLength: 100 } },
    ],
    responses: { '200': 'The organizations found, by name.', '400': '`VALIDATION_FAILED`: `q` empty, longer than 100 characters or repeated.', '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.' },
  },
}, async ({ c, principal }) => {
  const q = querySingle(c, 'q');
  if (q !== undefined && (!q.trim() || q.length > 100)) {
    throw new Problem('VALIDATION_FAILED', 'query parameter q must be 1 to 100 characters', { errors: [{ pointer: '/query/q', message: 'must be 1 to 100 characters' }] });
  }
  const { db } = c.get('services');
  const me = principal.organizationId;
  const needle = q === undefined ? undefined : foldName(q);
  const found = (await listedOrganizations(db))
    .filter((o) => o.organizationId !== me)
    .filter((o) => !needle || [o.name, o.directoryListing?.description ?? '', o.organizationId].some((text) => foldName(text).includes(needle)))
    .sort((a, b) => a.name.localeCompare(b.name))
    .slice(0, DIRECTORY_LIMIT);
  const relationships = await currentRelationships(db, me);
  return c.json({
    items: found.map((o) => ({
      organizationId: o.organizationId,
      name: o.name,
      ...(o.directoryListing?.description ? { description: o.directoryListing.description } : {}),
      ...(o.directoryListing?.country ? { country: o.directoryListing.country } : {}),
      relationship: relationships.get(o.organizationId) ?? 'none',
    })),
  });
});
