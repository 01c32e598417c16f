// Whether a webhook URL may be delivered to, and the one address the delivery connects to
// (spec: "Webhook delivery targets"; issue "Webhook subscriptions and delivery", part 2).
//
// A target is checked at registration and again before every delivery. The check resolves the
// name itself (never the OS resolver: tests need a controllable DNS server, and the answer must
// be the one that is judged) and refuses the URL when ANY address is forbidden, so a name that
// resolves to a public and a private address cannot be used to reach the private one. The
// delivery then connects to the address chosen here (core/webhooks/send.ts), so there is no
// second lookup an attacker could rebind between the check and the connection.
//
// No Temporal, no database: pure decisions plus the DNS client.
import { promises as dnsPromises } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type TargetRefusalCode =
  | 'WEBHOOK_TARGET_NOT_HTTPS'
  | 'WEBHOOK_TARGET_CREDENTIALS'
  | 'WEBHOOK_TARGET_INVALID'
  | 'WEBHOOK_TARGET_UNRESOLVABLE'
  | 'WEBHOOK_TARGET_FORBIDDEN';

/** Every A and AAAA address of a host name. */
export type Resolve = (hostname: string) => Promise<string[]>;

/** A name without addresses (NXDOMAIN, no A nor AAAA, or a failing DNS server). */
export class UnresolvableError extends Error {
  readonly code = 'WEBHOOK_TARGET_UNRESOLVABLE' as const;
  constructor(hostname: string, reason: string) {
    super(`${hostname} did not resolve (${reason})`);
    this.name = 'UnresolvableError';
  }
}

/** The spec's "DNS re-validation floor: 60 seconds TTL". */
const MIN_TTL_SECONDS = 60;
/** Names kept in the cache: enough for every subscription's host, bounded against junk names. */
const MAX_CACHED_NAMES = 4096;

/**
 * A resolver of A and AAAA records that caches each answer for its smallest TTL, never less than
 * `minTtlSeconds`, so a name whose records flip every second is not re-asked at every delivery
 * (the DNS re-validation floor). `servers` are `ip`, `ip:port` or `[v6]:port` (dns.setServers'
 * own syntax); without them the system's configured servers are used (still not dns.lookup).
 */
export function createResolver(opts: { servers?: string[]; minTtlSeconds?: number; now?: () => number } = {}): Resolve {
  const minTtl = opts.minTtlSeconds ?? MIN_TTL_SECONDS;
  const now = opts.now ?? Date.now;
  // A few seconds per try, two tries: a registration answers rather than hanging on a dead server.
  const resolver = new dnsPromises.Resolver({ timeout: 2000, tries: 2 });
  if (opts.servers?.length) resolver.setServers(opts.servers);
  const cache = new Map<string, { addresses: string[]; expires: number }>();
  const inFlight = new Map<string, Promise<string[]>>();

  // One family missing (ENODATA) or the name unknown to it (ENOTFOUND) is an empty family;
  // anything else (SERVFAIL, timeout, refused) fails the whole answer rather than judging a
  // name by half of its addresses.
  const family = async (lookup: Promise<{ address: string; ttl: number }[]>) => {
    try {
      return await lookup;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === dnsPromises.NODATA || code === dnsPromises.NOTFOUND) return [];
      throw err;
    }
  };

  const ask = async (name: string): Promise<string[]> => {
    let records: { address: string; ttl: number }[];
    try {
      const [v4, v6] = await Promise.all([family(resolver.resolve4(name, { ttl: true })), family(resolver.resolve6(name, { ttl: true }))]);
      records = [...v4, ...v6];
    } catch (err) {
      throw new UnresolvableError(name, (err as NodeJS.ErrnoException).code ?? 'DNS error');
    }
    if (!records.length) throw new UnresolvableError(name, 'no A or AAAA record');
    const addresses = [...new Set(records.map((r) => r.address))];
    const ttl = Math.max(minTtl, Math.min(...records.map((r) => r.ttl)));
    const at = now();
    for (const [key, entry] of cache) if (entry.expires <= at) cache.delete(key);
    if (cache.size >= MAX_CACHED_NAMES) cache.delete(cache.keys().next().value!);
    cache.set(name, { addresses, expires: at + ttl * 1000 });
    return addresses;
  };

  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const cached = cache.get(name);
    if (cached && cached.expires > now()) return [...cached.addresses];
    // Concurrent deliveries to one host share one question.
    let pending = inFlight.get(name);
    if (!pending) {
      pending = ask(name).finally(() => inFlight.delete(name));
      inFlight.set(name, pending);
    }
    return [...(await pending)];
  };
}

/**
 * Instance metadata services: refused even when an allow-list covers them (a test set-up that
 * allows 169.254.0.0/16 must still not reach a cloud's credentials endpoint).
 */
const CLOUD_METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * The IPv4 address an IPv6 address stands for, where the form defines one: IPv4-mapped
 * (::ffff:a.b.c.d), the RFC 6145 translated form (::ffff:0:a.b.c.d), NAT64's well-known /96
 * (64:ff9b::a.b.c.d, what DNS64 synthesises for IPv4-only hosts) and 6to4 (2002:aabb:ccdd::).
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return v4(p[6], p[7]);
    case 'rfc6052':
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 ? v4(p[6], p[7]) : undefined;
    case '6to4':
      return v4(p[1], p[2]);
    default:
      return undefined;
  }
}

function inAny(address: Address, allow: [Address, number][]): boolean {
  return allow.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
}

/**
 * Why an address may not be a webhook target (the ipaddr.js range name, or 'cloudMetadata',
 * 'ipv4Compatible', 'invalid'), or undefined when it may. Allowed iff it is inside one of `allow`
 * or its range is 'unicast'; IPv6 forms that embed an IPv4 address are judged by that address;
 * the deprecated IPv4-compatible ::a.b.c.d, Teredo and NAT64's local-use prefix, whose IPv4 part
 * is not plainly the destination, are refused outright (nothing legitimate uses them).
 */
export function forbiddenRange(address: string, allow: string[]): string | undefined {
  let parsed: Address;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'invalid';
  }
  const allowed = allow.map((cidr) => ipaddr.parseCIDR(cidr));
  let judged: Address = parsed;
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const v4 = embeddedIPv4(v6);
    if (v4) judged = v4;
    // ::a.b.c.d (not :: nor ::1, which are unspecified and loopback): ipaddr.js calls it unicast.
    else if (v6.parts.slice(0, 6).every((part) => part === 0) && v6.range() === 'unicast') return 'ipv4Compatible';
  }
  // toString: dotted quads, and IPv6 compressed as in the set (RFC 5952).
  if (CLOUD_METADATA.has(parsed.toString()) || CLOUD_METADATA.has(judged.toString())) return 'cloudMetadata';
  if (inAny(parsed, allowed) || inAny(judged, allowed)) return undefined;
  const range = judged.range();
  return range === 'unicast' ? undefined : range;
}

export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

export type TargetCheck = { ok: true; target: CheckedTarget } | { ok: false; code: TargetRefusalCode; detail: string };

/**
 * Whether `rawUrl` may receive webhooks, and the address to connect to. The WHATWG parser
 * already turns the odd IPv4 spellings (2130706433, 0177.0.0.1, 0x7f.1, 127.1) into dotted quads
 * and IPv6 literals into their compressed form, so an IP host is judged in one spelling. A
 * refusal's detail names the offending address and range and nothing else of the network.
 */
export async function checkTarget(rawUrl: string, policy: { allowCidrs: string[]; resolve: Resolve }): Promise<TargetCheck> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, code: 'WEBHOOK_TARGET_INVALID', detail: 'the URL does not parse' };
  }
  if (url.protocol !== 'https:') return { ok: false, code: 'WEBHOOK_TARGET_NOT_HTTPS', detail: 'webhook targets must use https' };
  if (url.username || url.password) return { ok: false, code: 'WEBHOOK_TARGET_CREDENTIALS', detail: 'webhook URLs may not embed credentials' };
  // A fragment never reaches the server; dropped so it is neither stored nor sent.
  url.hash = '';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!host) return { ok: false, code: 'WEBHOOK_TARGET_INVALID', detail: 'the URL has no host' };

  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await policy.resolve(host);
    } catch (err) {
      const detail = err instanceof UnresolvableError ? err.message : `${host} did not resolve`;
      return { ok: false, code: 'WEBHOOK_TARGET_UNRESOLVABLE', detail };
    }
    if (!addresses.length) return { ok: false, code: 'WEBHOOK_TARGET_UNRESOLVABLE', detail: `${host} did not resolve (no address)` };
  }

  for (const address of addresses) {
    const range = isIP(address) ? forbiddenRange(address, policy.allowCidrs) : 'invalid';
    if (range) return { ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN', detail: `${address} is a ${range} address` };
  }
  const address = addresses.find((a) => isIP(a) === 4) ?? addresses[0];
  return { ok: true, target: { url, address, family: isIP(address) === 4 ? 4 : 6 } };
}
