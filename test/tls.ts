// A test certificate authority and a server certificate it signed, for HTTPS receivers on
// 127.0.0.1 (webhook deliveries: the broker trusts the CA through WEBHOOK_CA_FILE / `ca`).
// Made with the openssl CLI (the commands work with OpenSSL 1.1.1 and 3.x) with EC keys: a few
// tens of milliseconds.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as https from 'node:https';

export interface TestCertificates {
  /** The CA's certificate (PEM): what a client trusts. */
  ca: string;
  /** The server's private key (PEM). */
  key: string;
  /** The server's certificate (PEM), valid for 127.0.0.1, ::1, localhost, *.pcx.test. */
  cert: string;
}

const OPENSSL = fs.existsSync('/usr/bin/openssl') ? '/usr/bin/openssl' : 'openssl';
const made = new Map<string, TestCertificates>();

const CA_CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = PCX Test CA
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
`;

const SERVER_EXTENSIONS = `[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, IP:::1, DNS:localhost, DNS:*.pcx.test, DNS:receiver.pcx.test
authorityKeyIdentifier = keyid
`;

/**
 * The certificates in `dir` (made there when absent, and left there: the caller owns it);
 * without `dir`, made once per process (per test file under jest, whose module registries are
 * separate) in a temporary directory that is removed as soon as they are read: nothing is left
 * behind in /tmp. Two directories give two unrelated CAs (a certificate from an unknown
 * authority).
 */
export function testCertificates(dir?: string): TestCertificates {
  const key = dir ?? '';
  const cached = made.get(key);
  if (cached) return cached;
  const where = dir ?? fs.mkdtempSync(join(tmpdir(), 'pcx-test-tls-'));
  try {
    const certificates = make(where);
    made.set(key, certificates);
    return certificates;
  } finally {
    if (dir === undefined) fs.rmSync(where, { recursive: true, force: true });
  }
}

function make(where: string): TestCertificates {
  const file = (name: string) => join(where, name);
  if (!['ca.pem', 'server.key', 'server.pem'].every((name) => fs.existsSync(file(name)))) {
    fs.mkdirSync(where, { recursive: true });
    fs.writeFileSync(file('ca.cnf'), CA_CONFIG);
    fs.writeFileSync(file('server.cnf'), SERVER_EXTENSIONS);
    const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { cwd: where, stdio: ['ignore', 'ignore', 'pipe'] });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '30', '-config', 'ca.cnf', '-extensions', 'ca');
    openssl('req', '-new', ...ec, '-keyout', 'server.key.tmp', '-out', 'server.csr', '-subj', '/CN=receiver.pcx.test');
    openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', `0x${Date.now().toString(16)}`, '-out', 'server.pem.tmp', '-days', '30', '-sha256', '-extfile', 'server.cnf', '-extensions', 'server');
    // Renamed last: a directory with server.key and server.pem is complete.
    fs.renameSync(file('server.key.tmp'), file('server.key'));
    fs.renameSync(file('server.pem.tmp'), file('server.pem'));
  }
  return { ca: fs.readFileSync(file('ca.pem'), 'utf8'), key: fs.readFileSync(file('server.key'), 'utf8'), cert: fs.readFileSync(file('server.pem'), 'utf8') };
}

/**
 * A self-signed client certificate for a key (RFC 8705 self_signed_tls_client_auth): what a
 * connector makes from the key it registered. `days` from now.
 */
export function selfSignedCertificate(privateKeyPem: string, commonName: string, days = 1): string {
  const where = fs.mkdtempSync(join(tmpdir(), 'pcx-test-client-cert-'));
  try {
    fs.writeFileSync(join(where, 'client.key'), privateKeyPem, { mode: 0o600 });
    execFileSync(OPENSSL, ['req', '-x509', '-new', '-key', 'client.key', '-out', 'client.pem', '-days', String(days), '-subj', `/CN=${commonName}`, '-sha256'], { cwd: where, stdio: ['ignore', 'ignore', 'pipe'] });
    return fs.readFileSync(join(where, 'client.pem'), 'utf8');
  } finally {
    fs.rmSync(where, { recursive: true, force: true });
  }
}

/**
 * A client certificate issued by the test authority in `dir` (its ca.key; testCertificates(dir)
 * made it) for a key, with a subject (OpenSSL's `-subj` form, `/C=AT/O=Alpine Freight/CN=tms`):
 * what a connector gets from a CA for tls_client_auth (RFC 8705 section 2.1).
 */
export function issuedClientCertificate(dir: string, privateKeyPem: string, subject: string, days = 1): string {
  const where = fs.mkdtempSync(join(tmpdir(), 'pcx-test-issued-cert-'));
  try {
    fs.writeFileSync(join(where, 'client.key'), privateKeyPem, { mode: 0o600 });
    fs.writeFileSync(join(where, 'client.cnf'), '[client]\nbasicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\nextendedKeyUsage = clientAuth\n');
    const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { cwd: where, stdio: ['ignore', 'ignore', 'pipe'] });
    openssl('req', '-new', '-key', 'client.key', '-out', 'client.csr', '-subj', subject);
    openssl('x509', '-req', '-in', 'client.csr', '-CA', join(dir, 'ca.pem'), '-CAkey', join(dir, 'ca.key'), '-set_serial', `0x${Date.now().toString(16)}${Math.floor(Math.random() * 1e6).toString(16)}`, '-out', 'client.pem', '-days', String(days), '-sha256', '-extfile', 'client.cnf', '-extensions', 'client');
    return fs.readFileSync(join(where, 'client.pem'), 'utf8');
  } finally {
    fs.rmSync(where, { recursive: true, force: true });
  }
}

/** One HTTPS request that trusts `ca` and presents a client certificate when given one: status, headers and the JSON body. */
export function httpsRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; ca: string; cert?: string; key?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: options.method ?? 'GET', headers: options.headers, ca: options.ca, cert: options.cert, key: options.key, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
