// One webhook POST (core/webhooks/send.ts) against a real local HTTPS receiver signed by a test
// CA: how each answer and failure is classified, that the connection goes to the checked
// address whatever the host name, that redirects are not followed and bodies are not kept.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeKeptConnections, hostLimiter, parseRetryAfter, sendWebhook, type SendInput } from '../../core/webhooks/send';
import type { CheckedTarget } from '../../core/webhooks/target';
import { testCertificates } from '../tls';
import { startReceiver, type Receiver } from '../webhook-receiver';

const certificates = testCertificates();
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver({ key: certificates.key, cert: certificates.cert });
});
afterAll(() => {
  closeKeptConnections();
  return receiver.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 204 }));
});

const target = (url: string, address = '127.0.0.1'): CheckedTarget => ({ url: new URL(url), address, family: net.isIP(address) === 6 ? 6 : 4 });
const send = (overrides: Partial<SendInput> = {}) =>
  sendWebhook({
    target: target(receiver.url()),
    headers: { 'content-type': 'application/cloudevents+json', 'webhook-id': 'msg_1' },
    body: '{"specversion":"1.0"}',
    ca: certificates.ca,
    ...overrides,
  });

test('a 2xx is a success; the request arrives as sent', async () => {
  const result = await send();
  expect(result).toEqual({ ok: true, status: 204, latencyMs: expect.any(Number) });
  const [request] = await receiver.waitFor(1);
  expect(request).toMatchObject({ method: 'POST', path: '/hook', body: '{"specversion":"1.0"}' });
  expect(request.headers).toMatchObject({ 'content-type': 'application/cloudevents+json', 'webhook-id': 'msg_1', 'content-length': '21', host: `127.0.0.1:${receiver.port}` });
});

test('a 3xx is a failed delivery and its Location is never requested', async () => {
  receiver.respond(({ path }) => (path === '/hook' ? { status: 307, headers: { location: receiver.url('/elsewhere') } } : { status: 200 }));
  expect(await send()).toMatchObject({ ok: false, status: 307, error: 'redirect' });
  receiver.respond(() => ({ status: 301, headers: { location: receiver.url('/elsewhere') } }));
  expect(await send()).toMatchObject({ ok: false, status: 301, error: 'redirect' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(receiver.requests.map((r) => r.path)).toEqual(['/hook', '/hook']);
});

test('another status is a failed delivery; Retry-After only on 429 and 503', async () => {
  receiver.respond(() => ({ status: 500, headers: { 'retry-after': '7' } }));
  expect(await send()).toEqual({ ok: false, status: 500, error: 'status', latencyMs: expect.any(Number) });
  receiver.respond(() => ({ status: 429, headers: { 'retry-after': '7' } }));
  expect(await send()).toMatchObject({ ok: false, status: 429, error: 'status', retryAfterSeconds: 7 });
  receiver.respond(() => ({ status: 503, headers: { 'retry-after': new Date(Date.now() + 30_000).toUTCString() } }));
  const result = await send();
  expect(result).toMatchObject({ ok: false, status: 503, error: 'status' });
  expect(result.retryAfterSeconds).toBeGreaterThanOrEqual(28);
  expect(result.retryAfterSeconds).toBeLessThanOrEqual(30);
  receiver.respond(() => ({ status: 429, headers: { 'retry-after': 'soon' } }));
  expect((await send()).retryAfterSeconds).toBeUndefined();
});

test('an answer slower than the deadline is a timeout', async () => {
  // The answer would be a success: a timeout says the send gave up at its deadline, not how soon.
  receiver.respond(() => ({ status: 200, delayMs: 30_000 }));
  expect(await send({ timeoutMs: 200 })).toMatchObject({ ok: false, error: 'timeout' });
});

test('a large body is read up to the limit and dropped; the status decides; nothing of it is returned', async () => {
  receiver.respond(() => ({ status: 200, body: 'secret-'.repeat(1_000_000) }));
  const result = await send({ maxResponseBytes: 1024 });
  expect(result).toEqual({ ok: true, status: 200, latencyMs: expect.any(Number) });
  expect(JSON.stringify(result)).not.toContain('secret');
});

test('oversized response headers are refused as too large', async () => {
  receiver.respond(() => ({ status: 200, headers: { 'x-padding': 'x'.repeat(40_000) } }));
  expect(await send()).toMatchObject({ ok: false, error: 'response-too-large' });
});

test('a certificate from an unknown authority, or for another name, is a TLS failure', async () => {
  expect(await send({ ca: undefined })).toMatchObject({ ok: false, error: 'tls' });
  const elsewhere = fs.mkdtempSync(join(tmpdir(), 'pcx-other-ca-'));
  try {
    expect(await send({ ca: testCertificates(elsewhere).ca })).toMatchObject({ ok: false, error: 'tls' });
  } finally {
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
  expect(await send({ target: target(receiver.url('/hook', 'hooks.example.org')) })).toMatchObject({ ok: false, error: 'tls' });
  expect(receiver.requests).toHaveLength(0);
});

test('the connection goes to the checked address, never to a new lookup of the name', async () => {
  // receiver.pcx.test resolves nowhere; the checked address is what the socket connects to,
  // while SNI, the certificate check and Host use the name.
  const result = await send({ target: target(receiver.url('/hook', 'receiver.pcx.test'), '127.0.0.1') });
  expect(result).toMatchObject({ ok: true, status: 204 });
  const [request] = await receiver.waitFor(1);
  expect(request.headers.host).toBe(`receiver.pcx.test:${receiver.port}`);
  // An IP-literal URL connects to the checked address too.
  expect(await send({ target: target(receiver.url('/hook', '127.0.0.1'), '127.0.0.1') })).toMatchObject({ ok: true });
});

test('a target that is not a checked address is refused without connecting', async () => {
  expect(await send({ target: target(receiver.url(), 'localhost') })).toMatchObject({ ok: false, error: 'target-refused' });
  expect(await send({ target: target(receiver.url().replace('https:', 'http:')) })).toMatchObject({ ok: false, error: 'target-refused' });
  expect(receiver.requests).toHaveLength(0);
});

describe('connection failures', () => {
  const listen = async (server: net.Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  };

  test('a refused connection', async () => {
    const server = net.createServer();
    const port = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    expect(await send({ target: target(`https://127.0.0.1:${port}/hook`) })).toMatchObject({ ok: false, error: 'connection' });
  });

  test('a server that never completes the handshake hits the connect timeout', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => sockets.push(socket));
    const port = await listen(server);
    // The whole request may take far longer than the test: only the connect timeout can end it in time.
    expect(await send({ target: target(`https://127.0.0.1:${port}/hook`), connectTimeoutMs: 200, timeoutMs: 600_000 })).toMatchObject({ ok: false, error: 'timeout' });
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  test('a plain-HTTP server is a TLS failure', async () => {
    const server = http.createServer((_req, res) => res.end('plain'));
    const port = await listen(server);
    expect(await send({ target: target(`https://127.0.0.1:${port}/hook`) })).toMatchObject({ ok: false, error: 'tls' });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('kept connections', () => {
  beforeEach(() => closeKeptConnections());

  test('deliveries to one checked address share one TLS connection; another address never gets it', async () => {
    const before = receiver.connections();
    for (let i = 0; i < 3; i++) expect(await send()).toMatchObject({ ok: true, status: 204 });
    expect(receiver.connections() - before).toBe(1);
    // The same URL checked to another address connects there (nothing listens: refused), not over
    // the socket kept for 127.0.0.1.
    expect(await send({ target: target(receiver.url(), '127.0.0.2') })).toMatchObject({ ok: false, error: 'connection' });
    expect(receiver.requests).toHaveLength(3);
  });

  test('a kept connection the receiver drops as the next request comes is replaced: the delivery succeeds on a new one', async () => {
    let n = 0;
    receiver.respond(() => (++n === 2 ? { drop: true } : { status: 204 }));
    const before = receiver.connections();
    expect(await send()).toMatchObject({ ok: true, status: 204 });
    expect(await send()).toMatchObject({ ok: true, status: 204 });
    // The dropped request and its repetition both arrived (at-least-once), over two connections.
    expect(receiver.requests).toHaveLength(3);
    expect(receiver.connections() - before).toBe(2);
  });

  test('a delivery cut short (a timeout) does not leave its connection for the next one', async () => {
    receiver.respond(() => ({ status: 204, delayMs: 500 }));
    const before = receiver.connections();
    expect(await send({ timeoutMs: 100 })).toMatchObject({ ok: false, error: 'timeout' });
    receiver.respond(() => ({ status: 204 }));
    expect(await send()).toMatchObject({ ok: true, status: 204 });
    expect(receiver.connections() - before).toBe(2);
  });
});

test('Retry-After: delta-seconds or an HTTP-date', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  expect(parseRetryAfter('7', now)).toBe(7);
  expect(parseRetryAfter(' 120 ', now)).toBe(120);
  expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60);
  expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
  expect(parseRetryAfter('2030', now)).toBe(2030);
  for (const bad of [undefined, '', '-5', '1.5', '2030-01-01', 'later']) expect(parseRetryAfter(bad, now)).toBeUndefined();
});

describe('hostLimiter', () => {
  test('never runs more than N at once per host, in arrival order, hosts apart', async () => {
    const limit = hostLimiter(2);
    let running = 0;
    let most = 0;
    const started: string[] = [];
    const job = (name: string) => async () => {
      started.push(name);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
      return name;
    };
    const other = limit('other.example', async () => 'other');
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((name) => limit('Hooks.Example', job(name))));
    expect(results).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(most).toBe(2);
    expect(await other).toBe('other');
  });

  test('a failing run frees its slot', async () => {
    const limit = hostLimiter(1);
    await expect(limit('h', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(
      limit('h', () => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    expect(await limit('h', async () => 'free')).toBe('free');
  });

  test('hosts do not wait for each other', async () => {
    const limit = hostLimiter(1);
    let release!: () => void;
    const blocked = limit('slow.example', () => new Promise<void>((resolve) => (release = resolve)));
    expect(await limit('fast.example', async () => 'done')).toBe('done');
    release();
    await blocked;
  });
});
