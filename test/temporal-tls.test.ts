// The broker reaches a secured Temporal frontend: mutual TLS (TEMPORAL_TLS_* variables) and API
// keys (TEMPORAL_API_KEY). No stand-in for Temporal: the frontend is the test stack's dev server,
// put behind a TLS-terminating proxy that demands a client certificate from our own test CA
// (generated with openssl) and pipes the decrypted bytes to the dev server; for API keys, an
// HTTP/2 proxy that forwards every gRPC call and records its Authorization header. Both the
// client's Connection (core/temporal.ts connectTemporal) and the worker's NativeConnection
// (worker.ts) are shown to connect with the configuration's options and to fail without them.
// The engine plays no part: runs in the postgres project only.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../core/config';
import { connectTemporal, temporalConnectionOptions } from '../core/temporal';
import { testEnv } from './helpers';
import { startWorkerProcess } from './worker-process';

// Runs once, on the postgres project (jest.config.js, ENGINE_INDEPENDENT).
const describePostgres = describe;

const SERVER_NAME = 'temporal.test';

function openssl(dir: string, ...args: string[]) {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA and certificates it signs (EC P-256 keys, PKCS#8 PEM), valid for one day. */
function makeCa(dir: string, name: string) {
  const key = join(dir, `${name}.key`);
  const crt = join(dir, `${name}.crt`);
  openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', crt, '-days', '1',
    '-subj', `/CN=${name}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  return {
    key,
    crt,
    issue(leaf: string, extensions: string) {
      const leafKey = join(dir, `${leaf}.key`);
      const csr = join(dir, `${leaf}.csr`);
      const leafCrt = join(dir, `${leaf}.crt`);
      const ext = join(dir, `${leaf}.ext`);
      writeFileSync(ext, `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n${extensions}\n`);
      openssl(dir, 'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', leafKey, '-out', csr, '-subj', `/CN=${leaf}`);
      openssl(dir, 'x509', '-req', '-in', csr, '-CA', crt, '-CAkey', key, '-set_serial', `0x${Date.now().toString(16)}${Math.floor(Math.random() * 1e6)}`,
        '-days', '1', '-out', leafCrt, '-extfile', ext);
      return { crt: leafCrt, key: leafKey };
    },
  };
}

interface Proxy {
  address: string;
  /** Subject CNs of the client certificates of accepted connections. */
  accepted: string[];
  /** Handshakes the proxy refused. */
  refused: string[];
  close(): Promise<void>;
}

/** mutual TLS in front of the plain dev server: requestCert + rejectUnauthorized, ALPN h2. */
async function mtlsProxy(server: { crt: string; key: string }, caFile: string, upstream: string): Promise<Proxy> {
  const [upHost, upPort] = upstream.split(':');
  const sockets = new Set<net.Socket>();
  const accepted: string[] = [];
  const refused: string[] = [];
  const proxy = tls.createServer(
    { cert: readFileSync(server.crt), key: readFileSync(server.key), ca: readFileSync(caFile), requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] },
    (socket) => {
      accepted.push(String(socket.getPeerCertificate().subject?.CN));
      const up = net.connect(Number(upPort), upHost);
      sockets.add(socket).add(up);
      socket.pipe(up).pipe(socket);
      const end = () => {
        socket.destroy();
        up.destroy();
      };
      socket.on('error', end).on('close', end);
      up.on('error', end).on('close', end);
    },
  );
  proxy.on('tlsClientError', (err) => refused.push(err.message));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    accepted,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        proxy.close(() => resolve());
      }),
  };
}

/**
 * TLS and HTTP/2 in front of the dev server, forwarding each gRPC call (headers, body, trailers)
 * and recording the Authorization header it carried; calls without `Bearer <apiKey>` are answered
 * UNAUTHENTICATED (16) without reaching the server, as Temporal Cloud does.
 */
async function apiKeyProxy(server: { crt: string; key: string }, upstream: string, apiKey: string) {
  const seen: Array<string | undefined> = [];
  const session = http2.connect(`http://${upstream}`);
  session.on('error', () => undefined);
  const proxy = http2.createSecureServer({ cert: readFileSync(server.crt), key: readFileSync(server.key), ALPNProtocols: ['h2'] });
  const sessions = new Set<http2.ServerHttp2Session>();
  proxy.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  proxy.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    const authorization = headers.authorization as string | undefined;
    seen.push(authorization);
    if (authorization !== `Bearer ${apiKey}`) {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'bad api key' }, { endStream: true });
      return;
    }
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) {
      if (name === ':authority' || name === ':scheme' || name === 'authorization') continue;
      forwarded[name] = value;
    }
    const up = session.request(forwarded);
    up.on('error', () => stream.destroy());
    stream.pipe(up);
    let trailers: http2.IncomingHttpHeaders | undefined;
    up.on('trailers', (t) => (trailers = t));
    up.on('response', (h) => {
      const { ':status': status, ...rest } = h;
      stream.respond({ ':status': status, ...rest }, { waitForTrailers: true });
      stream.on('wantTrailers', () => {
        const out: http2.OutgoingHttpHeaders = {};
        for (const [k, v] of Object.entries(trailers ?? {})) if (!k.startsWith(':')) out[k] = v;
        stream.sendTrailers(out);
      });
      up.pipe(stream);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        session.destroy();
        for (const s of sessions) s.destroy();
        proxy.close(() => resolve());
      }),
  };
}

/** How long a connection expected to succeed may retry: the CI run of 2026-12-07 saw one time out. */
const SUCCESS_WAIT_MS = 30_000;

describePostgres('Temporal over TLS', () => {
  let dir: string;
  let ca: ReturnType<typeof makeCa>;
  let serverCert: { crt: string; key: string };
  let clientCert: { crt: string; key: string };
  let strangerCert: { crt: string; key: string };
  let proxy: Proxy;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pcx-tls-'));
    ca = makeCa(dir, 'pcx-test-ca');
    // The server's certificate names only temporal.test, never 127.0.0.1: the connection succeeds
    // only if TEMPORAL_TLS_SERVER_NAME is applied.
    serverCert = ca.issue(SERVER_NAME, `subjectAltName=DNS:${SERVER_NAME}\nextendedKeyUsage=serverAuth`);
    clientCert = ca.issue('pcx-broker', 'extendedKeyUsage=clientAuth');
    // A client certificate from a CA the proxy does not trust.
    strangerCert = makeCa(dir, 'stranger-ca').issue('stranger', 'extendedKeyUsage=clientAuth');
    proxy = await mtlsProxy(serverCert, ca.crt, testEnv().temporalAddress);
  });

  afterAll(async () => {
    await proxy?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const tlsEnv = (extra: Record<string, string> = {}) => ({
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_CA_FILE: ca.crt,
    TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
    TEMPORAL_TLS_CERT_FILE: clientCert.crt,
    TEMPORAL_TLS_KEY_FILE: clientCert.key,
    ...extra,
  });
  const without = (env: Record<string, string>, ...names: string[]) => Object.fromEntries(Object.entries(env).filter(([k]) => !names.includes(k)));

  test('the configuration turns the TLS files into the connection options', () => {
    const config = loadConfig(tlsEnv());
    expect(config.temporal.tls).toEqual({ certFile: clientCert.crt, keyFile: clientCert.key, caFile: ca.crt, serverName: SERVER_NAME });
    const options = temporalConnectionOptions(config.temporal);
    expect(options.address).toBe(proxy.address);
    expect(options.tls!.serverNameOverride).toBe(SERVER_NAME);
    expect(Buffer.from(options.tls!.serverRootCACertificate!).toString()).toBe(readFileSync(ca.crt, 'utf8'));
    expect(Buffer.from(options.tls!.clientCertPair!.crt).toString()).toBe(readFileSync(clientCert.crt, 'utf8'));
    expect(Buffer.from(options.tls!.clientCertPair!.key).toString()).toBe(readFileSync(clientCert.key, 'utf8'));
    expect(options.apiKey).toBeUndefined();
    // The plain dev server of `npm start`: no TLS at all.
    expect(temporalConnectionOptions(loadConfig({}).temporal)).toEqual({ address: '127.0.0.1:7233' });
  });

  test('connectTemporal reaches the frontend through mutual TLS with the client certificate', async () => {
    const before = proxy.accepted.length;
    // A success may retry (its 2 s connect timeout covers the handshake through this process's
    // proxy, which a busy machine can exceed); the refusals below get no retry.
    const connection = await connectTemporal(loadConfig(tlsEnv()).temporal, SUCCESS_WAIT_MS);
    try {
      const info = await connection.workflowService.getSystemInfo({});
      expect(info.capabilities).toBeTruthy();
      await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    } finally {
      await connection.close();
    }
    expect(proxy.accepted.slice(before)).toContain('pcx-broker');
  });

  test('connectTemporal fails without a client certificate, with an untrusted one, or without the server name', async () => {
    const attempt = async (env: Record<string, string>) => {
      const connection = await connectTemporal(loadConfig(env).temporal, 0);
      // Should the handshake look complete to the client (TLS 1.3 sends the refusal after it),
      // the first call fails.
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
    };
    const refusedBefore = proxy.refused.length;
    await expect(attempt(without(tlsEnv(), 'TEMPORAL_TLS_CERT_FILE', 'TEMPORAL_TLS_KEY_FILE'))).rejects.toThrow();
    expect(proxy.refused.length).toBeGreaterThan(refusedBefore);
    await expect(attempt(tlsEnv({ TEMPORAL_TLS_CERT_FILE: strangerCert.crt, TEMPORAL_TLS_KEY_FILE: strangerCert.key }))).rejects.toThrow();
    // 127.0.0.1 is not in the server's certificate.
    await expect(attempt(without(tlsEnv(), 'TEMPORAL_TLS_SERVER_NAME'))).rejects.toThrow();
    // Plain text to a TLS port.
    await expect(attempt({ TEMPORAL_ADDRESS: proxy.address })).rejects.toThrow();
  });

  test("the worker's NativeConnection connects with the same options, and not without the certificate", async () => {
    const before = proxy.accepted.length;
    const native = await NativeConnection.connect(temporalConnectionOptions(loadConfig(tlsEnv()).temporal));
    try {
      const info = await native.workflowService.getSystemInfo({});
      expect(info.capabilities).toBeTruthy();
    } finally {
      await native.close();
    }
    expect(proxy.accepted.slice(before)).toContain('pcx-broker');

    const attempt = async (env: Record<string, string>) => {
      const conn = await NativeConnection.connect(temporalConnectionOptions(loadConfig(env).temporal));
      try {
        await conn.workflowService.getSystemInfo({});
      } finally {
        await conn.close();
      }
    };
    await expect(attempt(without(tlsEnv(), 'TEMPORAL_TLS_CERT_FILE', 'TEMPORAL_TLS_KEY_FILE'))).rejects.toThrow();
    await expect(attempt(tlsEnv({ TEMPORAL_TLS_CERT_FILE: strangerCert.crt, TEMPORAL_TLS_KEY_FILE: strangerCert.key }))).rejects.toThrow();
    await expect(attempt(without(tlsEnv(), 'TEMPORAL_TLS_SERVER_NAME'))).rejects.toThrow();
  });

  test('both connections send TEMPORAL_API_KEY as a bearer token over TLS', async () => {
    const apiKey = `pcx-test-key-${Date.now()}`;
    const keyProxy = await apiKeyProxy(serverCert, testEnv().temporalAddress, apiKey);
    const keyFile = join(dir, 'temporal-api-key');
    writeFileSync(keyFile, `${apiKey}\n`);
    try {
      const base = { TEMPORAL_ADDRESS: keyProxy.address, TEMPORAL_TLS_CA_FILE: ca.crt, TEMPORAL_TLS_SERVER_NAME: SERVER_NAME };
      // From the variable, with TLS implied by the key.
      const config = loadConfig({ ...base, TEMPORAL_API_KEY: apiKey });
      expect(config.temporal.apiKey).toBe(apiKey);
      expect(config.temporal.tls).toEqual({ caFile: ca.crt, serverName: SERVER_NAME });
      const connection = await connectTemporal(config.temporal, SUCCESS_WAIT_MS);
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
      // From a file (trailing newline trimmed), through the worker's connection.
      const fromFile = loadConfig({ ...base, TEMPORAL_API_KEY_FILE: keyFile });
      expect(fromFile.temporal.apiKey).toBe(apiKey);
      const native = await NativeConnection.connect(temporalConnectionOptions(fromFile.temporal));
      try {
        await native.workflowService.getSystemInfo({});
      } finally {
        await native.close();
      }
      expect(keyProxy.seen.length).toBeGreaterThanOrEqual(2);
      expect(new Set(keyProxy.seen)).toEqual(new Set([`Bearer ${apiKey}`]));

      // A wrong key is refused, so the successes above were the key's doing.
      const wrong = async () => {
        const c = await connectTemporal(loadConfig({ ...base, TEMPORAL_API_KEY: 'not-the-key' }).temporal, 0);
        try {
          await c.workflowService.getSystemInfo({});
        } finally {
          await c.close();
        }
      };
      await expect(wrong()).rejects.toThrow();
      expect(keyProxy.seen).toContain('Bearer not-the-key');
    } finally {
      await keyProxy.close();
    }
  });

  test('a worker-role broker process connects (client and worker) only through mutual TLS', async () => {
    const env = {
      PCX_MODE: 'production',
      SECRETS_KEY_FILE: testEnv().brokerEnv.SECRETS_KEY_FILE,
        PERSONAL_DATA_KEYS_DIR: testEnv().brokerEnv.PERSONAL_DATA_KEYS_DIR,
      DATABASE_URL: testEnv().databaseUrl,
      TEMPORAL_TASK_QUEUE: `pcx-test-tls-worker-${process.pid}`,
      ...tlsEnv(),
    };
    const before = proxy.accepted.length;
    const worker = await startWorkerProcess(env, join(dir, 'worker-data'));
    try {
      const ready = await fetch(`${worker.healthUrl}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', checks: { worker: 'up', database: 'up', temporal: 'up' } });
      // Both the client connection and the worker's native connection came through the proxy.
      expect(proxy.accepted.slice(before).filter((cn) => cn === 'pcx-broker').length).toBeGreaterThanOrEqual(2);
    } finally {
      expect(await worker.stop()).toBe(0);
    }
  }, 120000);
});
