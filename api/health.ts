// Liveness and readiness. Ready only when both Temporal and the database answer.
import { Hono } from 'hono';
import type { AppEnv } from './context';
import { webhookBacklog } from '../core/metrics';
import { countIntents } from '../read-model/command-intents';
import { databaseAnswers } from '../read-model/database';
import { publicOperation } from './operations';

export const health = new Hono<AppEnv>();

publicOperation(health, {
  method: 'GET', path: '/health/live', answers: [200],
  doc: {
    id: 'getLiveness',
    summary: 'Liveness probe',
    description: 'Answers as long as the process serves HTTP.',
    tag: 'Health',
    responses: {
      '200': {
        description: 'The process is alive.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Liveness' } } },
      },
    },
  },
}, (c) => c.json({ status: 'live' }));

publicOperation(health, {
  method: 'GET', path: '/health/ready', answers: [200],
  doc: {
    id: 'getReadiness',
    summary: 'Readiness probe',
    description: 'Ready only when both PostgreSQL and Temporal answer within two seconds.',
    tag: 'Health',
    responses: {
      '200': {
        description: 'PostgreSQL and Temporal both answer.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } },
      },
      '503': {
        description: 'A dependency does not answer; the body names which (not a problem document).',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } },
      },
    },
  },
}, async (c) => {
  const { db, temporal } = c.get('services');
  const timeout = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000))]);
  const checks = await Promise.allSettled([
    timeout(databaseAnswers(db)),
    timeout(temporal.workflowService.getSystemInfo({})),
  ]);
  const [database, temporalCheck] = checks.map((r) => (r.status === 'fulfilled' ? 'up' : 'down'));
  // Why, for the operator: the error's code and message (never a connection string: pg puts none in them).
  const why = (r: PromiseSettledResult<unknown>) => {
    if (r.status === 'fulfilled') return undefined;
    const err = r.reason as { code?: unknown; message?: unknown };
    const message = String(err?.message ?? err).replace(/postgres(ql)?:\/\/\S+/gi, '<url>').slice(0, 300);
    return typeof err?.code === 'string' ? `${err.code}: ${message}` : message;
  };
  const [databaseWhy, temporalWhy] = checks.map(why);
  const reasons = { ...(databaseWhy ? { database: databaseWhy } : {}), ...(temporalWhy ? { temporal: temporalWhy } : {}) };
  const ready = database === 'up' && temporalCheck === 'up';
  // What operators watch of webhook delivery (docs/webhooks.md); absent when the database is not up.
  const webhooks = database === 'up' ? await timeout(webhookBacklog(db)).catch(() => undefined) : undefined;
  // Commands whose answer is not yet written (core/entities.ts, sweep): growing means writes fail.
  const commandIntents = database === 'up' ? await timeout(countIntents(db)).catch(() => undefined) : undefined;
  return c.json({ status: ready ? 'ready' : 'not-ready', checks: { database, temporal: temporalCheck }, ...(Object.keys(reasons).length ? { reasons } : {}), ...(webhooks ? { webhooks } : {}), ...(commandIntents ? { commandIntents } : {}) }, ready ? 200 : 503);
});
