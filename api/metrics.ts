// GET /metrics: the process's Prometheus metrics (core/metrics.ts), outside the resource gates:
// scrapers hold no client credentials. Guarded by METRICS_TOKEN when one is configured.
import { Hono } from 'hono';
import { scrape } from '../core/metrics';
import { Problem } from '../domain/problems';
import type { AppEnv } from './context';
import { publicOperation } from './operations';

export const metrics = new Hono<AppEnv>();

publicOperation(metrics, { method: 'GET', path: '/metrics', answers: [200] }, async (c) => {
  const answer = await scrape(c.req.header('authorization'), c.get('services').config.metricsToken);
  if (answer.status === 401) throw new Problem('UNAUTHENTICATED', 'GET /metrics needs Authorization: Bearer with the METRICS_TOKEN', {}, { 'www-authenticate': 'Bearer' });
  return c.body(answer.body, 200, { 'content-type': answer.contentType, 'cache-control': 'no-store' });
});
