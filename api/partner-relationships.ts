// HTTP API of PartnerRelationship: create, draft update, the seven lifecycle commands, reads.
import { Hono } from 'hono';
import { Problem } from '../core/problems';
import { hit } from './rate-limit';
import { claim, draftKey, pairKey, release } from './relationship-pairs';
import { runCommand } from './commands';
import { authorize, type AccessPolicy } from './gates';
import type { AppEnv, Principal } from './context';
import { encodeCursor, observedVersion, pageParams, readJson, etagOf, type Ctx } from './http';
import { KIND, type PartnerRelationship, type RelationshipContext } from '../workflows/partner-relationship';

const SCOPE = 'relationships:manage';
const SCHEMA = 'partner-relationship';
const STATUSES = ['draft', 'requested', 'active', 'suspended', 'terminated'];

async function load(c: Ctx): Promise<PartnerRelationship | undefined> {
  const id = c.req.param('id') ?? '';
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const { rows } = await c.get('services').db.query<{ doc: PartnerRelationship }>('select doc from partner_relationships where id = $1', [id]);
  return rows[0]?.doc;
}

/**
 * Gate 4: the requester always; the accepter once the relationship has been requested (rule 7).
 * A draft withdrawn before it was requested stays invisible to the accepter for good.
 */
function role(r: PartnerRelationship, { organizationId: org }: Principal) {
  if (org === r.requestingOrganizationId) return 'owner' as const;
  if (org === r.acceptingOrganizationId && r.submittedAt !== undefined) return 'participant' as const;
  return 'none' as const;
}

const access: AccessPolicy<PartnerRelationship> = { scope: SCOPE, load, role };

/** Both organizations see the whole relationship: it holds nothing one may not know of the other. */
const view = (r: PartnerRelationship) => r;

function context(c: Ctx, r: { requestingOrganizationId: string; acceptingOrganizationId: string }): RelationshipContext {
  const { registry } = c.get('services');
  return {
    requestingGrantedScopes: registry.grantedScopes(r.requestingOrganizationId),
    acceptingGrantedScopes: registry.grantedScopes(r.acceptingOrganizationId),
  };
}

export const partnerRelationships = new Hono<AppEnv>();

partnerRelationships.post('/', async (c) => {
  const { principal } = await authorize(c, { scope: SCOPE });
  const { schemas, registry, config, db } = c.get('services');
  const body = schemas.assert<any>(`${SCHEMA}#/$defs/CreateRequest`, await readJson(c));
  if (body.requestingOrganizationId !== principal.organizationId) {
    throw new Problem('ORGANIZATION_BINDING_VIOLATION', 'requestingOrganizationId must be the organization your connector is bound to');
  }
  if (!registry.organization(body.acceptingOrganizationId)) {
    throw new Problem('UNKNOWN_ORGANIZATION', 'acceptingOrganizationId is not an organization known to the broker', {
      errors: [{ pointer: '/acceptingOrganizationId', message: 'is not a known organization' }],
    });
  }
  // Refusals the workflow would give anyway, answered before a workflow is started for nothing.
  if (body.acceptingOrganizationId === principal.organizationId) {
    throw new Problem('VALIDATION_FAILED', 'an organization cannot partner with itself', {
      errors: [{ pointer: '/acceptingOrganizationId', message: 'must differ from requestingOrganizationId' }],
    });
  }
  if (body.effectiveFrom && body.effectiveUntil && Date.parse(body.effectiveFrom) >= Date.parse(body.effectiveUntil)) {
    throw new Problem('VALIDATION_FAILED', 'effectiveFrom must be before effectiveUntil', { errors: [{ pointer: '/effectiveUntil', message: 'must be after effectiveFrom' }] });
  }
  const notGranted = (body.scopes as string[]).filter((s) => !registry.grantedScopes(principal.organizationId).includes(s));
  if (notGranted.length) throw new Problem('SCOPES_NOT_GRANTED', `the partnering policy of the requesting organization does not grant ${notGranted.join(', ')}`);

  const org = principal.organizationId;
  const key = draftKey(org, body.acceptingOrganizationId);
  let claimed = false;
  return runCommand(c, {
    kind: KIND,
    name: 'create',
    workflowType: 'partnerRelationshipWorkflow',
    payload: body,
    context: context(c, body),
    view,
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
  const { principal } = await authorize(c, { scope: SCOPE });
  const { after, limit } = pageParams(c);
  const status = c.req.query('status');
  const counterpart = c.req.query('counterpart');
  const statuses = status?.split(',');
  if (statuses && statuses.some((s) => !STATUSES.includes(s))) {
    throw new Problem('VALIDATION_FAILED', `status must be one or more of ${STATUSES.join(', ')}`, { errors: [{ pointer: '/query/status', message: 'is not a relationship status' }] });
  }
  if (counterpart !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(counterpart)) {
    throw new Problem('VALIDATION_FAILED', 'counterpart must be an organization id', { errors: [{ pointer: '/query/counterpart', message: 'is not an organization id' }] });
  }
  const org = principal.organizationId;
  const { rows } = await c.get('services').db.query<{ id: string; doc: PartnerRelationship }>(
    `select id, doc from partner_relationships
      where (requesting_organization_id = $1 or (accepting_organization_id = $1 and submitted_at is not null))
        and ($2::text[] is null or status = any($2::text[]))
        and ($3::text is null or requesting_organization_id = $3 or accepting_organization_id = $3)
        and ($4::uuid is null or id > $4::uuid)
      order by id limit $5`,
    [org, statuses ?? null, counterpart ?? null, after ?? null, limit + 1],
  );
  const items = rows.slice(0, limit).map((r) => view(r.doc));
  const nextCursor = rows.length > limit ? encodeCursor(rows[limit - 1].id) : null;
  return c.json({ items, nextCursor });
});

partnerRelationships.get('/:id', async (c) => {
  const { resource } = await authorize(c, access);
  return c.json(view(resource), 200, { etag: etagOf(resource.resourceVersion) });
});

/** A lifecycle command: body validated against its schema, If-Match required, sent as an Update. */
function command(name: string, bodySchema: string) {
  partnerRelationships.on(name === 'update' ? 'PATCH' : 'POST', name === 'update' ? '/:id' : `/:id/${name}`, async (c) => {
    const { resource } = await authorize(c, access);
    const body = c.get('services').schemas.assert<any>(bodySchema, await readJson(c));
    const expectedVersion = observedVersion(c, body);
    const { observedResourceVersion: _, ...payload } = body;
    // Submitting makes the invite visible to both: from then on the pair, in either direction.
    const key = pairKey(resource.requestingOrganizationId, resource.acceptingOrganizationId);
    let claimed = false;
    const hooks =
      name === 'request' && resource.status === 'draft'
        ? {
            before: async (id: string) => void (claimed = await claim(c, key, id, resource.requestingOrganizationId, false)),
            refused: async (id: string) => void (claimed && (await release(c, key, id))),
          }
        : {};
    return runCommand(c, {
      ...hooks,
      kind: KIND,
      name,
      id: resource.id,
      expectedVersion,
      payload,
      context: context(c, resource),
      view,
      current: () => load(c),
    });
  });
}

command('update', `${SCHEMA}#/$defs/UpdateRequest`);
command('request', 'common#/$defs/Command');
command('accept', 'common#/$defs/Command');
command('reject', 'common#/$defs/OptionallyReasonedCommand');
command('withdraw', 'common#/$defs/ReasonedCommand');
command('suspend', 'common#/$defs/ReasonedCommand');
command('terminate', 'common#/$defs/ReasonedCommand');
command('reactivate', 'common#/$defs/Command');
