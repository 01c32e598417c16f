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

// The codec server (api/codec.ts) of a development broker, called from its own machine: payloads
// it did not seal pass through; one that claims to be sealed but does not open, or a body that is
// not a list of payloads, is refused with a problem. (Its sealed payloads: test/start.test.ts.)
test('the codec server passes unsealed payloads through and refuses what does not open', async () => {
  const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hello"').toString('base64') };
  for (const direction of ['decode', 'encode']) {
    const reply = await call('POST', `/codec/${direction}`, undefined, { payloads: [plain] });
    expect({ direction, status: reply.status, body: reply.body }).toEqual({ direction, status: 200, body: { payloads: [plain] } });
  }
  const forged = { metadata: { encoding: Buffer.from('binary/pcx-sealed').toString('base64') }, data: Buffer.from('pcx-sealed:v1:nokey:AAAA:BBBB:CCCC').toString('base64') };
  expect(await call('POST', '/codec/decode', undefined, { payloads: [forged] })).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  expect(await call('POST', '/codec/decode', undefined, { payloads: 'all of them' })).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  // What the fuzzer sent: a payload without its data, data that is not base64, metadata that is not an object of strings.
  for (const payload of [{ metadata: {} }, { metadata: {}, data: 0 }, { metadata: {}, data: 'not base64!' }, { metadata: 0, data: '' }, { metadata: { x: 0 }, data: '' }, [null, null]]) {
    expect(await call('POST', '/codec/encode', undefined, { payloads: [payload] })).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  }
  expect(await call('POST', '/codec/decode', undefined, undefined, { raw: '{', headers: { 'content-type': 'application/json' } })).toMatchObject({ status: 400 });
});
