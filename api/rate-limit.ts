// The rate limits of every authenticated request (reads included), per organization and per
// token, counted in the read model's store (read-model/rate-counters.ts).
import type { MiddlewareHandler } from 'hono';
import { hit } from '../read-model/rate-counters';
import type { AppEnv } from './context';

/** Per organization and per token, on every authenticated request (reads included). */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { db, config } = c.get('services');
  const principal = c.get('principal');
  await hit(db, [
    { key: `org:${principal.organizationId}`, limit: config.limits.orgRequestsPerMinute, windowSeconds: 60 },
    { key: `token:${principal.tokenId}`, limit: config.limits.tokenRequestsPerMinute, windowSeconds: 60 },
  ]);
  await next();
};
