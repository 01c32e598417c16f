import { call } from './helpers';

test('liveness and readiness answer when Temporal and the database are up', async () => {
  const live = await call('GET', '/health/live', undefined);
  expect(live.status).toBe(200);
  const ready = await call('GET', '/health/ready', undefined);
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({
    status: 'ready',
    checks: { database: 'up', temporal: 'up' },
    webhooks: { pending: expect.any(Number), deadLettered: expect.any(Number), oldestPendingSeconds: expect.any(Number), disabledSubscriptions: expect.any(Number) },
    commandIntents: { pending: expect.any(Number), oldestSeconds: expect.any(Number) },
  });
  // Nothing stays unwritten on a healthy broker: the sweep settles what senders leave within seconds.
  expect(ready.body.commandIntents.oldestSeconds).toBeLessThan(60);
});
