// GET /metrics: the process's Prometheus metrics (core/metrics.ts), outside the resource gates:
// scrapers hold no client credentials. Guarded by METRICS_TOKEN when one is configured.
import { Hono } from 'hono';
import { scrape } from '../core/metrics';
import { Problem } from '../domain/problems';
import type { AppEnv } from './context';
import { publicOperation } from './operations';

export const metrics = new Hono<AppEnv>();

publicOperation(metrics, {
  method: 'GET', path: '/metrics', answers: [200],
  doc: {
    id: 'getMetrics',
    summary: 'Prometheus metrics of this process',
    description:
      "The process's metrics in the Prometheus text exposition format (command latency by resource " +
      'kind and command, problems by code, outbox and feed lag, flow durations and outcomes, open ' +
      'entity workflows by kind, activity failures, idempotency takeovers, and the Node.js process ' +
      'metrics); docs/deployment.md lists them. Needs `Authorization: Bearer <METRICS_TOKEN>` when ' +
      'the broker is configured with one, no token otherwise.',
    tag: 'Health',
    responses: {
      '200': {
        description: 'The metrics, as Prometheus scrapes them.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      '401': true,
    },
  },
}, async (c) => {
  const answer = await scrape(c.req.header('authorization'), c.get('services').config.metricsToken);
  if (answer.status === 401) throw new Problem('UNAUTHENTICATED', 'GET /metrics needs Authorization: Bearer with the METRICS_TOKEN', {}, { 'www-authenticate': 'Bearer' });
  return c.body(answer.body, 200, { 'content-type': answer.contentType, 'cache-control': 'no-store' });
});
