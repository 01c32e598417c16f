// The rate limits of every authenticated request (reads included), per organization and per
// token, counted in the read model's store: in batches from each process while a bucket is far
// from its limit, each request near it (read-model/rate-counters.ts RequestCounter).
import type { MiddlewareHandler } from 'hono';
import type { Db } from '../core/db';
import { RequestCounter } from '../read-model/rate-counters';
import type { AppEnv } from './context';

/** One counter per database of this process (its pending counts are the process's). */
const counters = new WeakMap<Db, RequestCounter>();

/** Per organization and per token, on every authenticated request (reads included). */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { db, config } = c.get('services');
  const principal = c.get('principal');
  let counter = counters.get(db);
  if (!counter) counters.set(db, (counter = new RequestCounter(db)));
  await counter.hit([
    { key: `org:${principal.organizationId}`, limit: config.limits.orgRequestsPerMinute, windowSeconds: 60 },
    { key: `token:${principal.tokenId}`, limit: config.limits.tokenRequestsPerMinute, windowSeconds: 60 },
  ]);
  await next();
};
