// Personal data opened on the way out (core/personal-data.ts): everything the broker stores
// holds a handover's contacts and a user's name sealed under the record's key; a JSON answer
// carries them opened, or leaves them out once an erasure destroyed the key. Streams are opened
// event by event where they are written (api/events.ts), webhooks where they are signed
// (delivery/webhook-pump.ts).
import type { MiddlewareHandler } from 'hono';
import { holdsPersonalData } from '../core/personal-data';
import type { AppEnv } from './context';

export const openPersonalData: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const res = c.res;
  if (!res.body || !/[/+]json\b/.test(res.headers.get('content-type') ?? '')) return;
  const text = await res.text();
  const body = holdsPersonalData(text) ? c.get('services').personalData.openText(text) : text;
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  // Unset first: Hono's setter would otherwise copy the consumed answer's headers over the new one's.
  c.res = undefined as unknown as Response;
  c.res = new Response(body, { status: res.status, statusText: res.statusText, headers });
};
