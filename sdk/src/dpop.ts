// DPoP (RFC 9449) for connectors: a key pair that never leaves the connector, a fresh proof of it
// on every token request and every API call, so a token that leaks is of no use without the key.
// node:crypto only, like keys.ts. The broker may ask for a nonce (DPoP-Nonce header, error
// use_dpop_nonce): the last one it gave is carried in every later proof.
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { algorithmOf, publicOf, signJws, type PrivateJwk } from './keys';

export class DpopKey {
  /** The private JWK (P-256 unless one is given). */
  readonly privateJwk: PrivateJwk;
  private readonly publicJwk: Record<string, unknown>;
  /** The last nonce the broker gave, by origin (the token endpoint's and the API's may differ). */
  private readonly nonces = new Map<string, string>();

  constructor(privateJwk?: PrivateJwk) {
    this.privateJwk = privateJwk ?? (generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as PrivateJwk);
    const { kid: _kid, alg: _alg, use: _use, ...publicKey } = publicOf(this.privateJwk);
    this.publicJwk = publicKey;
  }

  /** A proof for one request: htm, htu (the URL without query and fragment), a new jti, iat now; ath for a request carrying an access token. */
  proof(request: { method: string; url: string | URL; accessToken?: string; now?: number }): string {
    const url = new URL(request.url);
    url.search = '';
    url.hash = '';
    const nonce = this.nonces.get(url.origin);
    const claims = {
      htm: request.method.toUpperCase(),
      htu: url.toString(),
      jti: randomUUID(),
      iat: Math.floor((request.now ?? Date.now()) / 1000),
      ...(nonce ? { nonce } : {}),
      ...(request.accessToken ? { ath: createHash('sha256').update(request.accessToken).digest('base64url') } : {}),
    };
    return signJws({ typ: 'dpop+jwt', alg: algorithmOf(this.privateJwk), jwk: this.publicJwk }, claims, this.privateJwk);
  }

  /**
   * Keeps the nonce of an answer (DPoP-Nonce); true when the answer asked for one (use_dpop_nonce),
   * so the request is to be sent again with a new proof.
   */
  learn(res: Response, url: string | URL): boolean {
    const nonce = res.headers.get('dpop-nonce');
    if (!nonce) return false;
    const origin = new URL(url).origin;
    const changed = this.nonces.get(origin) !== nonce;
    this.nonces.set(origin, nonce);
    const challenge = res.headers.get('www-authenticate') ?? '';
    return changed && (res.status === 400 || res.status === 401) && (/use_dpop_nonce/.test(challenge) || res.status === 400);
  }
}
