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
  signingSecrets,
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
  return { status, headers: { etag: etagOf(row.version), ...headers }, body: { ...subscriptionView(row), ...extra } };
}

const reply = (c: Context<AppEnv>, stored: StoredResponse) =>
  stored.status === 204 ? c.body(null, 204, stored.headers) : c.json(stored.body as object, stored.status as 200, stored.headers);

operation(webhookSubscriptions, { method: 'POST', path: '/', access: { scope: WEBHOOK_SCOPE }, body: 'WebhookSubscriptionCreateRequest', answers: [201] }, async ({ c, principal, body }) => {
  requireKnownTypes(body.eventTypes);
  const stored = await idempotent(c, fingerprint(['webhook-subscription', 'create', body]), async () => {
    await requireTarget(c, body.url);
    const { row, secret } = await insertSubscription(c.get('services').db, {
      organizationId: principal.organizationId,
      clientId: principal.clientId,
      url: body.url,
      eventTypes: body.eventTypes ?? [],
      description: body.description,
      active: body.active ?? true,
    });
    await poke(c, row.id);
    return answer(201, row, { secret }, { location: `${PATH}/${row.id}` });
  });
  return reply(c, stored);
});

operation(webhookSubscriptions, { method: 'GET', path: '/', access: { scope: WEBHOOK_SCOPE }, answers: [200] }, async ({ c, principal }) => {
  const page = pageParams(c);
  const rows = await listSubscriptions(c.get('services').db, principal.organizationId, page);
  const last = rows.length === page.limit ? rows[rows.length - 1] : undefined;
  return c.json({ items: rows.map((r) => subscriptionView(r)), ...(last ? { nextCursor: encodeCursor(last.id) } : {}) });
});

operation(webhookSubscriptions, { method: 'GET', path: '/:id', access: own, answers: [200] }, async ({ c, resource }) => {
  return c.json(subscriptionView(resource), 200, { etag: etagOf(resource.version) });
});

operation(webhookSubscriptions, { method: 'PATCH', path: '/:id', access: own, body: 'WebhookSubscriptionUpdateRequest', answers: [200] }, async ({ c, resource, body }) => {
  const expected = observedVersion(c, {});
  requireKnownTypes(body.eventTypes);
  const stored = await idempotent(c, fingerprint(['webhook-subscription', 'update', resource.id, expected, body]), async () => {
    if (body.url !== undefined) await requireTarget(c, body.url);
    const updated = await updateSubscription(c.get('services').db, resource.id, expected, body);
    if (!updated) throw await stale(c, resource.id);
    await poke(c, updated.id);
    return answer(200, updated);
  });
  return reply(c, stored);
});

operation(webhookSubscriptions, { method: 'DELETE', path: '/:id', access: own, answers: [204] }, async ({ c, resource }) => {
  const expected = observedVersion(c, {});
  const stored = await idempotent(c, fingerprint(['webhook-subscription', 'delete', resource.id, expected]), async () => {
    const deleted = await deleteSubscription(c.get('services').db, resource.id, expected);
    if (!deleted) throw await stale(c, resource.id);
    // The workflow sees the subscription gone at its next pump and ends.
    await poke(c, deleted.id);
    return { status: 204, headers: {}, body: null };
  });
  return reply(c, stored);
});

operation(webhookSubscriptions, { method: 'POST', path: '/:id/rotate-secret', access: own, body: 'WebhookSubscriptionRotateSecretRequest', answers: [200] }, async ({ c, resource, body }) => {
  const stored = await idempotent(c, fingerprint(['webhook-subscription', 'rotate-secret', resource.id, body]), async () => {
    const rotated = await rotateSecret(c.get('services').db, resource.id, body.overlapSeconds ?? 86400);
    if (!rotated) throw notFound('webhook subscription');
    return answer(200, rotated.row, { secret: rotated.secret });
  });
  return reply(c, stored);
});

// One signed test message, sent now and not retried; its status and timing come back, never the body.
operation(webhookSubscriptions, { method: 'POST', path: '/:id/ping', access: own, answers: [200] }, async ({ c, resource }) => {
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
  const headers = signedHeaders(signingSecrets(resource, now.getTime()).map((s) => s.secret), id, now, body);
  const result = await targetsOf(c).limit(checked.target.url.host, () => sendWebhook({ target: checked.target, headers, body, ca: config.webhooks.ca }));
  return c.json({
    ok: result.ok,
    ...(result.status !== undefined ? { statusCode: result.status } : {}),
    latencyMs: Math.max(0, Math.round(result.latencyMs)),
    ...(result.error ? { error: result.error } : {}),
  });
});

operation(webhookSubscriptions, { method: 'GET', path: '/:id/deliveries', access: own, answers: [200] }, async ({ c, resource }) => {
  const statuses = queryValues(c, 'status');
  if (statuses?.some((s) => !(DELIVERY_STATUSES as readonly string[]).includes(s))) {
    throw new Problem('VALIDATION_FAILED', `query parameter status must be one or more of ${DELIVERY_STATUSES.join(', ')}`, { errors: [{ pointer: '/query/status', message: `must be one or more of ${DELIVERY_STATUSES.join(', ')}` }] });
  }
  const page = pageParams(c);
  const rows = await listDeliveries(c.get('services').db, resource.id, { statuses, ...page });
  const last = rows.length === page.limit ? rows[rows.length - 1] : undefined;
  return c.json({ items: rows.map(deliveryView), ...(last ? { nextCursor: encodeCursor(last.id) } : {}) });
});

operation(webhookSubscriptions, { method: 'POST', path: '/:id/deliveries/:deliveryId/redeliver', access: own, answers: [202] }, async ({ c, resource }) => {
  const deliveryId = c.req.param('deliveryId') ?? '';
  const { db } = c.get('services');
  if (!isUuid(deliveryId) || !(await loadDelivery(db, resource.id, deliveryId.toLowerCase()))) throw notFound('webhook delivery');
  const stored = await idempotent(c, fingerprint(['webhook-subscription', 'redeliver', resource.id, deliveryId]), async () => {
    const row = await redeliver(db, resource.id, deliveryId.toLowerCase());
    if (!row) throw notFound('webhook delivery');
    await poke(c, resource.id);
    return { status: 202, headers: {}, body: deliveryView(row) };
  });
  return reply(c, stored);
});

operation(webhookSubscriptions, { method: 'POST', path: '/:id/recover', access: own, body: 'WebhookSubscriptionRecoverRequest', answers: [202] }, async ({ c, resource, body }) => {
  const stored = await idempotent(c, fingerprint(['webhook-subscription', 'recover', resource.id, body]), async () => {
    const redelivering = await recoverDeliveries(c.get('services').db, resource.id, body.since);
    if (redelivering > 0) await poke(c, resource.id);
    return { status: 202, headers: {}, body: { redelivering } };
  });
  return reply(c, stored);
});

/** A version-guarded change that found another version: 409 with the current one, or 404 if it is gone. */
async function stale(c: Ctx, id: string): Promise<Problem> {
  const current = await loadSubscription(c.get('services').db, id);
  if (!current) return notFound('webhook subscription');
  return new Problem('STALE_RESOURCE_VERSION', `the subscription is at version ${current.version}`, { currentResourceVersion: current.version });
}
