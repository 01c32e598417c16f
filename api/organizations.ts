// HTTP API of Organization (domain/organization.ts): the protocol operator (`exchange:admin`)
// registers, verifies or rejects, suspends, reinstates and ends organizations and reads every one;
// an organization's admins (`connectors:manage`) read their own record and change its name and
// partnering policy. Every rule is the machine's; this router checks the legal identifier (form
// and check digits, domain/legal-identifier.ts), gathers the scope vocabularies, and derives the
// record id from the organization id, so that an id is taken once, on every replica at once.
import { Hono } from 'hono';
import { checkLegalIdentifier } from '../domain/legal-identifier';
import type { Actor } from '../domain/machine';
import { organization, organizationContext, type Organization } from '../domain/organization';
import { Problem } from '../domain/problems';
import { precheckCreate, runCommand } from './commands';
import type { AppEnv, Principal } from './context';
import { organizationRecordId } from '../core/name-ids';
import { operation } from './operations';
import { commandRoute, getRoute, listRoute, managedRecord, participantAccess, plainCommandRoutes, viewFor } from './resource-routes';

const resource = organization;
const OPERATOR = 'exchange:admin';


/** The operator acts as the operator; an organization's admin as its connector (or user). */
const actorOf = (p: Principal): Actor => ({ kind: p.operator ? 'operator' : 'connector', organizationId: p.organizationId, clientId: p.clientId, ...(p.userId ? { userId: p.userId } : {}) });

/** A body's legal identifier, checked and in its compact form. */
function withLegalIdentifier<T extends { legalIdentifier?: { scheme: 'LEI' | 'VAT' | 'EORI'; value: string } }>(body: T): T {
  if (!body.legalIdentifier) return body;
  const checked = checkLegalIdentifier(body.legalIdentifier);
  if (!checked.ok) throw new Problem('VALIDATION_FAILED', `legalIdentifier: ${checked.reason}`, { errors: [{ pointer: '/legalIdentifier/value', message: checked.reason }] });
  return { ...body, legalIdentifier: { scheme: body.legalIdentifier.scheme, value: checked.value } };
}

// Most commands are the protocol operator's; the update is its admins' too.
const managed = managedRecord<Organization>(resource, { noun: 'organization', plural: 'organizations', needs: '`exchange:admin` of the protocol operator' });
const operatorOnly = participantAccess<Organization>(resource, OPERATOR, { operator: true });

export const organizations = new Hono<AppEnv>();

operation(organizations, {
  method: 'POST', path: '/', access: { scope: OPERATOR }, body: 'OrganizationCreateRequest', answers: [201],
  idempotent: true,
  returns: 'Organization',
  doc: {
    id: 'createOrganization',
    summary: 'Register an organization (protocol operator)',
    description:
      'A new party of the exchange, `pending` until the operator verifies it: it may then only manage itself (its record, ' +
      'its connectors), nothing else. Its legal identifier is checked by form and check digits (LEI: ISO 17442; VAT: the ' +
      "country's rules; EORI: form). Its first connector can follow at `POST /connectors` with `organizationId`. The " +
      'organization id is taken for good. Needs `exchange:admin` of the operator\u2019s organization.',
    responses: {
      '201': 'Registered, pending verification.',
      '400': '`VALIDATION_FAILED`: the body, a legal identifier that is not one, an adherence period that ends in the past.',
      '403': '`INSUFFICIENT_SCOPE` or `ACTOR_NOT_PERMITTED` (not a protocol operator).',
      '409': '`RESOURCE_EXISTS` (the organization id is taken), `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.',
    },
  },
}, async ({ c, principal, body }) => {
  if (!principal.operator) throw new Problem('ACTOR_NOT_PERMITTED', 'only the protocol operator registers organizations');
  const payload = withLegalIdentifier(body);
  // An organization of the files that has no record yet (the seed imports it at start) is taken too.
  if (c.get('services').registry.organization(body.organizationId)) throw new Problem('RESOURCE_EXISTS', `the organization id ${body.organizationId} is taken`);
  const context = organizationContext();
  const actor = actorOf(principal);
  precheckCreate(c, resource, payload, context, actor);
  return runCommand(c, { resource, name: 'create', id: organizationRecordId(body.organizationId), payload, context, actor, view: viewFor(resource, principal) });
});

listRoute(organizations, resource, managed.list({
  summary: "List organizations: every one for the protocol operator, the caller's own for its admins",
  description: 'For a protocol operator (`exchange:admin`), every organization of the exchange, by status; for an organization\u2019s admins (`connectors:manage`), its own record.',
  client: { name: 'organizations', columns: ['id', 'organizationId', 'name', 'status', 'resourceVersion'] },
}));

getRoute(organizations, resource, managed.reading, managed.read('Get an organization', 'The caller\u2019s own organization (its admins, `connectors:manage`), or any for a protocol operator (`exchange:admin`). Anyone else gets 404.'));

commandRoute(organizations, resource, 'update', {
  method: 'PATCH', body: 'OrganizationUpdateRequest', access: managed.reading, actor: actorOf,
  context: () => organizationContext(),
  payload: (_c, body) => withLegalIdentifier(body),
  doc: managed.command(
    'Change an organization',
    "Its admins change its name and partnering policy; the operator also its legal identifier (a new one is verified again: the organization is pending until then), its adherence period and its connectors' scope ceiling.",
    {},
    '`connectors:manage` of the organization or `exchange:admin` of the operator',
  ),
});

// The operator's commands that take nothing but their body.
plainCommandRoutes(organizations, resource, { access: operatorOnly, actor: actorOf, doc: managed.command }, [
  ['verify', 'OrganizationVerifyRequest', 'Verify an organization (protocol operator)', 'Its legal identifier was checked against the evidence named by `evidenceReference`: it becomes active and its adherence period begins (unless set later).'],
  ['reject', 'OrganizationRejectRequest', 'Reject an organization\u2019s verification (protocol operator)', 'It stays pending, with the reason; it can be verified later on new evidence.'],
  ['suspend', 'CommonReasonedCommand', 'Suspend an organization (protocol operator)', 'From the next request on, on every replica, its connectors and users may read and manage its record and connectors, but issue no command (403 `ORGANIZATION_SUSPENDED`).'],
  ['reinstate', 'CommonReasonedCommand', 'Reinstate a suspended organization (protocol operator)', 'It is active again.'],
  ['end', 'CommonReasonedCommand', 'End an organization\u2019s adherence (protocol operator)', 'For good: its tokens are refused from the next request on (403 `ORGANIZATION_INACTIVE`) and it gets no new ones; its records are kept.'],
]);
