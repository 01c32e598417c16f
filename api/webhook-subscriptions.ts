// /webhook-subscriptions: where an organization's events are pushed (docs/webhooks.md). Every
// operation needs connectors:manage; a subscription of another organization does not exist for
// the caller (404). The signing secret appears in two answers only: the create and the rotation.
// Each subscription has a delivery workflow (workflows/webhooks.ts); the operations that may make
// work for it poke it, and a poke starts it when its creation did not get to.
import { Hono } from 'hono';
import type { Context } from 'hono';
import { Problem } from '../domain/problems';
import { checkTarget, createResolver, type Resolve } from '../core/webhooks/target';
import { hostLimiter, sendWebhook } from '../core/webhooks/send';
import { RESOURCES } from '../domain/registry';
import { kindOfFilter, WEBHOOK_KIND, WEBHOOK_SCOPE, WEBHOOK_WORKFLOW, webhookWorkflowStart } from '../domain/webhooks';
import { uuid7 } from '../domain/ids';
import { signedHeaders } from '../core/webhooks/sign';
import {
  DELIVERY_STATUSES,
  deleteSubscription,
  deliveryView,
  insertSubscription,
  listDeliveries,
  listSubscriptions,
  loadDelivery,
  loadSubscription,
  recoverDeliveries,
  redeliver,
  rotateSecret,
  openSigningSecrets,
  subscriptionView,
  updateSubscription,
  type SubscriptionRow,
} from '../read-model/webhook-subscriptions';
import type { AppEnv, Principal } from './context';
import { encodeCursor, etagOf, notFound, observedVersion, pageParams, queryValues, type Ctx } from './http';
import { fingerprint, idempotent, type StoredResponse } from './idempotency';
import { operation } from './operations';
import { isUuid } from '../domain/ids';

export const webhookSubscriptions = new Hono<AppEnv>();

const PATH = '/webhook-subscriptions';
const KINDS = new Set([...RESOURCES.map((r) => r.kind), WEBHOOK_KIND]);

/** Gate 4: the caller's organization's own subscription, or nothing. */
const own = {
  scope: WEBHOOK_SCOPE,
  load: async (c: Ctx) => {
    const id = c.req.param('id') ?? '';
    return isUuid(id) ? loadSubscription(c.get('services').db, id.toLowerCase()) : undefined;
  },
  role: (row: SubscriptionRow, principal: Principal) => (row.organization_id === principal.organizationId ? ('owner' as const) : ('none' as const)),
};

// The API's own resolver and per-host limit, for pings and registration checks.
let targets: { resolve: Resolve; limit: ReturnType<typeof hostLimiter> } | undefined;
function targetsOf(c: Ctx) {
  const { webhooks } = c.get('services').config;
  targets ??= { resolve: createResolver({ servers: webhooks.dnsServers, minTtlSeconds: webhooks.dnsMinTtlSeconds }), limit: hostLimiter(webhooks.maxPerHost) };
  return targets;
}

/** The target rules of the specification at registration: https, no credentials, public addresses only. */
async function requireTarget(c: Ctx, url: string): Promise<void> {
  const checked = await checkTarget(url, { allowCidrs: c.get('services').config.webhooks.allowCidrs, resolve: targetsOf(c).resolve });
  if (!checked.ok) {
    throw new Problem('WEBHOOK_TARGET_REFUSED', checked.detail, { reason: checked.code, errors: [{ pointer: '/url', message: checked.detail }] });
  }
}

/** Filter entries must name a kind of this broker (`pcx.<kind>.…`): a typo would silently match nothing. */
function requireKnownTypes(eventTypes: readonly string[] | undefined): void {
  const unknown = (eventTypes ?? []).map((entry, i) => [entry, i] as const).filter(([entry]) => {
    const kind = kindOfFilter(entry);
    return kind !== undefined && !KINDS.has(kind);
  });
  if (unknown.length) {
    throw new Problem('VALIDATION_FAILED', `no event type of this broker starts with ${unknown.map(([e]) => e).join(', ')}`, {
      errors: unknown.map(([, i]) => ({ pointer: `/eventTypes/${i}`, message: 'names no resource kind of this broker' })),
    });
  }
}

/** Wakes the subscription's delivery workflow, starting it if needed; a failure only delays delivery until the next poke. */
async function poke(c: Ctx, id: string): Promise<void> {
  const { temporal, config, log } = c.get('services');
  await temporal.workflow
    .signalWithStart(WEBHOOK_WORKFLOW, webhookWorkflowStart(id, { taskQueue: config.temporal.taskQueue, idlePumpSeconds: config.webhooks.idlePumpSeconds }))
    .catch((err) => log.warn({ subscriptionId: id, error: String(err) }, 'webhook workflow not poked'));
}

function answer(status: number, row: SubscriptionRow, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): StoredResponse {
  // The secret (create, rotation) is stored sealed with the Idempotency-Key's answer (api/idempotency.ts).
  return { status, headers: { etag: etagOf(row.version), ...headers }, body: { ...subscriptionView(row), ...extra }, ...('secret' in extra ? { secretFields: ['secret'] } : {}) };
}

/**
 * A change done once per Idempotency-Key (api/idempotency.ts), keyed by what the request asks
 * (`request`: the operation, the subscription, the body): the answer stored at its first run, for
 * that run and every repeat.
 */
async function once(c: Context<AppEnv>, request: unknown[], change: () => Promise<StoredResponse>) {
  const stored = await idempotent(c, fingerprint(['webhook-subscription', ...request]), change);
  return stored.status === 204 ? c.body(null, 204, stored.headers) : c.json(stored.body as object, stored.status as 200, stored.headers);
}

operation(webhookSubscriptions, {
  method: 'POST', path: '/', access: { scope: WEBHOOK_SCOPE }, body: 'WebhookSubscriptionCreateRequest', answers: [201],
  idempotent: true,
  returns: 'WebhookSubscriptionWithSecret',
  doc: {
    id: 'createWebhookSubscription',
    summary: "Subscribe a target URL to the organization's events",
    description:
      "Needs scope `connectors:manage`. The broker pushes the events the caller's organization " +
      'receives on GET /events, of the kinds the creating connector may read and the types the ' +
      'filter names, to the target (docs/webhooks.md): signed by the Standard Webhooks scheme, at ' +
      'least once, in order per subject, retried on a fixed schedule, dead-lettered after the last ' +
      'attempt. The target must be an https URL without credentials whose host resolves to public ' +
      'addresses only (not private, loopback, link-local, unique-local, multicast, unspecified or ' +
      'cloud metadata), checked now and again at every delivery; otherwise 422 ' +
      '`WEBHOOK_TARGET_REFUSED`. A new subscription receives the events emitted from its creation ' +
      'on. The answer holds the signing secret, this once.',
    responses: {
      '201': 'Created, with its signing secret (shown once).',
      '400':
        '`VALIDATION_FAILED` (the body does not match the schema, or a filter entry names no kind of ' +
        'this broker) or `MALFORMED_REQUEST`.',
      '422':
        '`WEBHOOK_TARGET_REFUSED`: not https, credentials in the URL, a host that does not resolve or ' +
        'resolves to an address that is not public; `reason` says which.',
      '503': false,
    },
  },
}, async ({ c, principal, body }) => {
  requireKnownTypes(body.eventTypes);
  return once(c, ['create', body], async () => {
    await requireTarget(c, body.url);
    const { row, secret } = await insertSubscription(c.get('services').db, {
      organizationId: principal.organizationId,
      clientId: principal.clientId,
      url: body.url,
      eventTypes: body.eventTypes ?? [],
      description: body.description,
      active: body.active ?? true,
    }, c.get('services').secrets);
    await poke(c, row.id);
    return answer(201, row, { secret }, { location: `${PATH}/${row.id}` });
  });
});

operation(webhookSubscriptions, {
  method: 'GET', path: '/', access: { scope: WEBHOOK_SCOPE }, answers: [200],
  returns: 'WebhookSubscriptionPage',
  doc: {
    id: 'listWebhookSubscriptions',
    summary: "List the organization's webhook subscriptions",
    description:
      "Needs scope `connectors:manage`. The caller's organization's subscriptions, oldest first; " +
      'never a secret.',
    client: { name: 'webhooks', columns: ['id', 'active', 'url', 'resourceVersion'] },
    parameters: ['CursorQuery', 'LimitQuery'],
    responses: { '200': 'One page of subscriptions.' },
  },
}, async ({ c, principal }) => {
  const page = pageParams(c);
  const rows = await listSubscriptions(c.get('services').db, principal.organizationId, page);
  const last = rows.length === page.limit ? rows[rows.length - 1] : undefined;
  return c.json({ items: rows.map((r) => subscriptionView(r)), ...(last ? { nextCursor: encodeCursor(last.id) } : {}) });
});

operation(webhookSubscriptions, {
  method: 'GET', path: '/:id', access: own, answers: [200],
  returns: 'WebhookSubscription',
  doc: {
    id: 'getWebhookSubscription',
    summary: 'Read a webhook subscription',
    description: "Needs scope `connectors:manage`. Only the organization's own; any other gets 404.",
    responses: { '200': 'The subscription; ETag carries its resourceVersion.' },
  },
}, async ({ c, resource }) => {
  return c.json(subscriptionView(resource), 200, { etag: etagOf(resource.version) });
});

operation(webhookSubscriptions, {
  method: 'PATCH', path: '/:id', access: own, body: 'WebhookSubscriptionUpdateRequest', answers: [200],
  versioned: true,
  idempotent: true,
  returns: 'WebhookSubscription',
  doc: {
    id: 'updateWebhookSubscription',
    summary: "Change a webhook subscription's target, filter, description or active flag",
    description:
      'Needs scope `connectors:manage` and If-Match. Setting `active` to false pauses delivery ' +
      '(pending deliveries wait; new events are collected when it resumes); setting it to true ' +
      'resumes it and clears `disabledReason`. A new URL is checked as at creation.',
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { $ref: './webhook-subscription.json#/$defs/UpdateRequest' } },
      },
    },
    responses: {
      '200': 'The changed subscription.',
      '409': '`STALE_RESOURCE_VERSION` (with currentResourceVersion) or an idempotency conflict.',
      '422': '`WEBHOOK_TARGET_REFUSED`.',
      '503': false,
    },
  },
}, async ({ c, resource, body }) => {
  const expected = observedVersion(c, {}, undefined);
  requireKnownTypes(body.eventTypes);
  return once(c, ['update', resource.id, expected, body], async () => {
    if (body.url !== undefined) await requireTarget(c, body.url);
    const updated = await updateSubscription(c.get('services').db, resource.id, expected, body);
    if (!updated) throw await stale(c, resource.id);
    await poke(c, updated.id);
    return answer(200, updated);
  });
});

operation(webhookSubscriptions, {
  method: 'DELETE', path: '/:id', access: own, answers: [204],
  versioned: true,
  idempotent: true,
  doc: {
    id: 'deleteWebhookSubscription',
    summary: 'Delete a webhook subscription',
    description:
      'Needs scope `connectors:manage` and If-Match. Delivery stops; the subscription and its ' +
      'deliveries are no longer readable.',
    responses: {
      '204': 'Deleted.',
      '422': false,
    },
  },
}, async ({ c, resource }) => {
  const expected = observedVersion(c, {}, undefined);
  return once(c, ['delete', resource.id, expected], async () => {
    const deleted = await deleteSubscription(c.get('services').db, resource.id, expected);
    if (!deleted) throw await stale(c, resource.id);
    // The workflow sees the subscription gone at its next pump and ends.
    await poke(c, deleted.id);
    return { status: 204, headers: {}, body: null };
  });
});

operation(webhookSubscriptions, {
  method: 'POST', path: '/:id/rotate-secret', access: own, body: 'WebhookSubscriptionRotateSecretRequest', answers: [200],
  idempotent: true,
  returns: 'WebhookSubscriptionWithSecret',
  doc: {
    id: 'rotateWebhookSecret',
    summary: 'Replace the signing secret, the previous one signing beside it for a while',
    description:
      'Needs scope `connectors:manage`. A new secret signs every delivery from now on; the previous ' +
      'one signs beside it (two signatures in `webhook-signature`) for `overlapSeconds` (default ' +
      'one day), so a receiver can switch without losing a message. The answer holds the new ' +
      'secret, this once.',
    responses: {
      '200': 'The subscription with its new secret (shown once).',
      '503': false,
    },
  },
}, async ({ c, resource, body }) => {
  return once(c, ['rotate-secret', resource.id, body], async () => {
    const rotated = await rotateSecret(c.get('services').db, resource.id, body.overlapSeconds ?? 86400, c.get('services').secrets);
    if (!rotated) throw notFound('webhook subscription');
    return answer(200, rotated.row, { secret: rotated.secret });
  });
});

// One signed test message, sent now and not retried; its status and timing come back, never the body.
operation(webhookSubscriptions, {
  method: 'POST', path: '/:id/ping', access: own, answers: [200],
  returns: 'WebhookSubscriptionPingResult',
  doc: {
    id: 'pingWebhookSubscription',
    summary: 'Send one signed test message to the target now',
    description:
      'Needs scope `connectors:manage`. Sends a `pcx.webhook-subscription.ping.v1` message, signed ' +
      "like every delivery, and answers with its status code and timing (never the target's body). " +
      'Not retried, not recorded; the target rules apply as at every delivery.',
    responses: { '200': 'What the attempt gave.' },
  },
}, async ({ c, resource }) => {
  const { config } = c.get('services');
  const checked = await checkTarget(resource.url, { allowCidrs: config.webhooks.allowCidrs, resolve: targetsOf(c).resolve });
  if (!checked.ok) return c.json({ ok: false, latencyMs: 0, error: 'target-refused' });
  const now = new Date();
  const id = uuid7();
  const body = JSON.stringify({
    specversion: '1.0',
    id,
    source: `${config.publicBaseUrl}/events`,
    type: `pcx.${WEBHOOK_KIND}.ping.v1`,
    subject: `webhook-subscriptions/${resource.id}`,
    time: now.toISOString(),
    dataschema: `${config.schemaBase}/v0/${WEBHOOK_KIND}#/$defs/Ping`,
    datacontenttype: 'application/json',
    organizationid: resource.organization_id,
    resourceversion: resource.version,
    correlationid: c.get('correlationId'),
    data: { subscriptionId: resource.id },
  });
  const headers = signedHeaders(openSigningSecrets(resource, now.getTime(), c.get('services').secrets), id, now, body);
  const result = await targetsOf(c).limit(checked.target.url.host, () => sendWebhook({ target: checked.target, headers, body, ca: config.webhooks.ca }));
  return c.json({
    ok: result.ok,
    ...(result.status !== undefined ? { statusCode: result.status } : {}),
    latencyMs: Math.max(0, Math.round(result.latencyMs)),
    ...(result.error ? { error: result.error } : {}),
  });
});

operation(webhookSubscriptions, {
  method: 'GET', path: '/:id/deliveries', access: own, answers: [200],
  returns: 'WebhookSubscriptionDeliveryPage',
  doc: {
    id: 'listWebhookDeliveries',
    summary: "The subscription's deliveries with their attempts",
    description:
      'Needs scope `connectors:manage`. One delivery per event collected for the subscription, ' +
      "oldest first: its status, each attempt's status code, latency and error, and the next " +
      "attempt's time while pending. Never a response body.",
    parameters: [
      {
        name: 'status',
        in: 'query',
        required: false,
        description:
          'Only deliveries in one of these statuses. Repeat the parameter ' +
          '(`status=pending&status=dead-lettered`) or separate the values with commas; both forms are ' +
          'accepted, also mixed. Another value answers 400 `VALIDATION_FAILED` at `/query/status`.',
        style: 'form',
        explode: true,
        schema: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', enum: ['pending', 'succeeded', 'dead-lettered', 'skipped'] },
        },
      },
      'CursorQuery',
      'LimitQuery',
    ],
    responses: { '200': 'One page of deliveries.' },
  },
}, async ({ c, resource }) => {
  const statuses = queryValues(c, 'status');
  if (statuses?.some((s) => !(DELIVERY_STATUSES as readonly string[]).includes(s))) {
    throw new Problem('VALIDATION_FAILED', `query parameter status must be one or more of ${DELIVERY_STATUSES.join(', ')}`, { errors: [{ pointer: '/query/status', message: `must be one or more of ${DELIVERY_STATUSES.join(', ')}` }] });
  }
  const page = pageParams(c);
  const rows = await listDeliveries(c.get('services').db, resource.id, { statuses, ...page });
  const last = rows.length === page.limit ? rows[rows.length - 1] : undefined;
  return c.json({ items: rows.map(deliveryView), ...(last ? { nextCursor: encodeCursor(last.id) } : {}) });
});

operation(webhookSubscriptions, {
  method: 'POST', path: '/:id/deliveries/:deliveryId/redeliver', access: own, answers: [202],
  idempotent: true,
  returns: 'WebhookSubscriptionDelivery',
  doc: {
    id: 'redeliverWebhookDelivery',
    summary: 'Attempt one delivery again, now',
    description:
      'Needs scope `connectors:manage`. The delivery is pending again with a fresh schedule, its ' +
      'earlier attempts kept, whatever it ended as (the receiver deduplicates by event id).',
    pathParameters: [
      { $ref: '#/components/parameters/IdPath' },
      {
        name: 'deliveryId',
        in: 'path',
        required: true,
        description: 'A delivery of this subscription. An id that is not a UUID answers 404.',
        schema: { type: 'string', format: 'uuid' },
      },
    ],
    responses: { '202': 'Scheduled.', '503': false },
  },
}, async ({ c, resource }) => {
  const deliveryId = c.req.param('deliveryId') ?? '';
  const { db } = c.get('services');
  if (!isUuid(deliveryId) || !(await loadDelivery(db, resource.id, deliveryId.toLowerCase()))) throw notFound('webhook delivery');
  return once(c, ['redeliver', resource.id, deliveryId], async () => {
    const row = await redeliver(db, resource.id, deliveryId.toLowerCase());
    if (!row) throw notFound('webhook delivery');
    await poke(c, resource.id);
    return { status: 202, headers: {}, body: deliveryView(row) };
  });
});

operation(webhookSubscriptions, {
  method: 'POST', path: '/:id/recover', access: own, body: 'WebhookSubscriptionRecoverRequest', answers: [202],
  idempotent: true,
  returns: 'WebhookSubscriptionRecovery',
  doc: {
    id: 'recoverWebhookDeliveries',
    summary: 'Attempt again every dead-lettered delivery since a time',
    description:
      'Needs scope `connectors:manage`. Every dead-lettered delivery of an event emitted at or ' +
      'after `since` is pending again with a fresh schedule; the answer says how many.',
    responses: { '202': 'Scheduled.', '503': false },
  },
}, async ({ c, resource, body }) => {
  return once(c, ['recover', resource.id, body], async () => {
    const redelivering = await recoverDeliveries(c.get('services').db, resource.id, body.since);
    if (redelivering > 0) await poke(c, resource.id);
    return { status: 202, headers: {}, body: { redelivering } };
  });
});

/** A version-guarded change that found another version: 409 with the current one, or 404 if it is gone. */
async function stale(c: Ctx, id: string): Promise<Problem> {
  const current = await loadSubscription(c.get('services').db, id);
  if (!current) return notFound('webhook subscription');
  return new Problem('STALE_RESOURCE_VERSION', `the subscription is at version ${current.version}`, { currentResourceVersion: current.version });
}
