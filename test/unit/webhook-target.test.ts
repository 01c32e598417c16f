// Webhook target safety (core/webhooks/target.ts): every way of spelling a forbidden address is
// refused, a name is refused when any of its addresses is forbidden, the allow-list lets tests
// reach 127.0.0.1 but never a metadata endpoint, and DNS answers are cached for at least 60 s.
import { checkTarget, createResolver, forbiddenRange, type Resolve } from '../../core/webhooks/target';
import { startDnsServer, type TestDnsServer } from '../dns-server';

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:4700:4700::1111';

/** A resolver from a table; unknown names do not resolve. */
const table =
  (answers: Record<string, string[]>): Resolve =>
  async (name) => {
    const found = answers[name];
    if (!found) throw Object.assign(new Error(`${name} did not resolve`), { code: 'WEBHOOK_TARGET_UNRESOLVABLE' });
    return found;
  };
const noDns: Resolve = async () => {
  throw new Error('no name may be resolved here');
};
const check = (url: string, allowCidrs: string[] = [], resolve: Resolve = noDns) => checkTarget(url, { allowCidrs, resolve });

describe('the URL', () => {
  test('only https', async () => {
    for (const url of ['http://example.com/hook', 'ftp://example.com/', 'wss://example.com/']) {
      expect(await check(url)).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_NOT_HTTPS' });
    }
  });

  test('no embedded credentials', async () => {
    for (const url of ['https://user:pass@example.com/hook', 'https://user@example.com/hook', 'https://:pass@example.com/hook']) {
      expect(await check(url)).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_CREDENTIALS' });
    }
  });

  test('an unparseable URL is invalid', async () => {
    for (const url of ['not a url', 'https://', 'https://1.2.3.4.5/', 'https://0x100000000/', 'https://[fe80::1%25eth0]/']) {
      expect(await check(url)).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_INVALID' });
    }
  });

  test('a fragment is dropped, path and query kept', async () => {
    const result = await check('https://hooks.example.com:8443/in?x=1#secret', [], table({ 'hooks.example.com': [PUBLIC_V4] }));
    expect(result).toMatchObject({ ok: true, target: { address: PUBLIC_V4, family: 4 } });
    if (result.ok) expect(result.target.url.href).toBe('https://hooks.example.com:8443/in?x=1');
  });
});

describe('IP literals', () => {
  // WHATWG URL parsing turns every IPv4 spelling into a dotted quad before it is judged.
  test.each([
    ['https://127.0.0.1/', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://0x7f.0.0.1/', 'loopback'],
    ['https://0x7f000001/', 'loopback'],
    ['https://%31%32%37.0.0.1/', 'loopback'],
    ['https://10.1.2.3/', 'private'],
    ['https://172.16.0.1/', 'private'],
    ['https://172.31.255.255/', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'cloudMetadata'],
    ['https://169.254.170.2/', 'cloudMetadata'],
    ['https://100.100.100.200/', 'cloudMetadata'],
    ['https://192.0.0.192/', 'cloudMetadata'],
    ['https://169.254.1.1/', 'linkLocal'],
    ['https://100.64.0.1/', 'carrierGradeNat'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://0/', 'unspecified'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://255.255.255.255/', 'broadcast'],
    ['https://192.0.2.1/', 'reserved'],
    ['https://[::1]/', 'loopback'],
    ['https://[::]/', 'unspecified'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[::ffff:7f00:1]/', 'loopback'],
    ['https://[0:0:0:0:0:ffff:a00:1]/', 'private'],
    ['https://[::ffff:169.254.169.254]/', 'cloudMetadata'],
    ['https://[::127.0.0.1]/', 'ipv4Compatible'],
    ['https://[64:ff9b::7f00:1]/', 'loopback'],
    ['https://[2002:7f00:1::1]/', 'loopback'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'teredo'],
    ['https://[fe80::1]/', 'linkLocal'],
    ['https://[fc00::1]/', 'uniqueLocal'],
    ['https://[fd12:3456::1]/', 'uniqueLocal'],
    ['https://[fd00:ec2::254]/', 'cloudMetadata'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://[2001:db8::1]/', 'reserved'],
  ])('%s is refused (%s)', async (url, range) => {
    const result = await check(url);
    expect(result).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN' });
    if (!result.ok) expect(result.detail).toContain(`${range} address`);
  });

  test('WHATWG URL normalises the odd IPv4 and IPv6 spellings (what the check relies on)', () => {
    expect(['https://2130706433/', 'https://0177.0.0.1/', 'https://0x7f.0.0.1/', 'https://0x7f000001/', 'https://127.1/'].map((u) => new URL(u).hostname)).toEqual(Array(5).fill('127.0.0.1'));
    expect(new URL('https://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
    expect(new URL('https://[::127.0.0.1]/').hostname).toBe('[::7f00:1]');
  });

  test('public addresses are allowed and connected to as given', async () => {
    expect(await check(`https://${PUBLIC_V4}/hook`)).toMatchObject({ ok: true, target: { address: PUBLIC_V4, family: 4 } });
    expect(await check(`https://[${PUBLIC_V6}]/hook`)).toMatchObject({ ok: true, target: { address: PUBLIC_V6, family: 6 } });
    expect(await check('https://[::ffff:93.184.215.14]/')).toMatchObject({ ok: true });
    expect(await check('https://[64:ff9b::5db8:d70e]/')).toMatchObject({ ok: true });
  });
});

describe('names', () => {
  const resolve = table({
    'mixed.example.com': [PUBLIC_V4, '10.0.0.5'],
    'mixed6.example.com': [PUBLIC_V4, 'fd00::5'],
    'public.example.com': [PUBLIC_V6, PUBLIC_V4],
    'v6.example.com': [PUBLIC_V6],
    'rebind.example.com': ['127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
  });

  test('refused when any address is forbidden, naming only that address', async () => {
    expect(await check('https://mixed.example.com/', [], resolve)).toEqual({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN', detail: '10.0.0.5 is a private address' });
    expect(await check('https://mixed6.example.com/', [], resolve)).toEqual({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN', detail: 'fd00::5 is a uniqueLocal address' });
    expect(await check('https://rebind.example.com/', [], resolve)).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN' });
  });

  test('allowed when every address is public; IPv4 preferred', async () => {
    const result = await check('https://public.example.com/hook', [], resolve);
    expect(result).toMatchObject({ ok: true, target: { address: PUBLIC_V4, family: 4 } });
    if (result.ok) expect(result.target.url.hostname).toBe('public.example.com');
    expect(await check('https://v6.example.com/', [], resolve)).toMatchObject({ ok: true, target: { address: PUBLIC_V6, family: 6 } });
  });

  test('a name that does not resolve is refused as unresolvable', async () => {
    expect(await check('https://nowhere.example.com/', [], resolve)).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_UNRESOLVABLE' });
    expect(await check('https://empty.example.com/', [], async () => [])).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_UNRESOLVABLE' });
  });

  test('the allow-list lets 127.0.0.1 through, never a metadata address', async () => {
    const allow = ['127.0.0.1/32', '169.254.0.0/16'];
    expect(await check('https://127.0.0.1:8443/hook', allow)).toMatchObject({ ok: true, target: { address: '127.0.0.1' } });
    expect(await check('https://rebind.example.com/', allow, resolve)).toMatchObject({ ok: true, target: { address: '127.0.0.1' } });
    expect(await check('https://[::ffff:127.0.0.1]/', allow)).toMatchObject({ ok: true });
    expect(await check('https://127.0.0.2/', allow)).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN' });
    expect(await check('https://169.254.169.254/', allow)).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN', detail: '169.254.169.254 is a cloudMetadata address' });
    expect(await check('https://metadata.example.com/', allow, resolve)).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN' });
    expect(await check('https://[fd00:ec2::254]/', ['fd00::/8'])).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN' });
  });
});

test('forbiddenRange judges addresses as resolvers return them', () => {
  expect(forbiddenRange('8.8.8.8', [])).toBeUndefined();
  expect(forbiddenRange('2001:4860:4860::8888', [])).toBeUndefined();
  expect(forbiddenRange('127.0.0.1', [])).toBe('loopback');
  expect(forbiddenRange('127.0.0.1', ['127.0.0.0/8'])).toBeUndefined();
  expect(forbiddenRange('::ffff:10.0.0.1', [])).toBe('private');
  expect(forbiddenRange('::ffff:0:a00:1', [])).toBe('private');
  expect(forbiddenRange('::7f00:1', [])).toBe('ipv4Compatible');
  expect(forbiddenRange('64:ff9b:1::a00:1', [])).toBe('rfc6052');
  expect(forbiddenRange('fe80::1%eth0', [])).toBe('linkLocal');
  expect(forbiddenRange('FD00:0EC2::0254', ['::/0'])).toBe('cloudMetadata');
  expect(forbiddenRange('not-an-address', [])).toBe('invalid');
});

describe('the resolver', () => {
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(() => dns.close());

  test('asks A and AAAA of the configured server', async () => {
    dns.set('both.pcx.test', [PUBLIC_V4, PUBLIC_V6]);
    dns.set('v6only.pcx.test', [PUBLIC_V6]);
    const resolve = createResolver({ servers: [dns.address] });
    expect((await resolve('both.pcx.test')).sort()).toEqual([PUBLIC_V4, PUBLIC_V6].sort());
    expect(await resolve('V6ONLY.pcx.test.')).toEqual([PUBLIC_V6]);
    await expect(resolve('unknown.pcx.test')).rejects.toMatchObject({ code: 'WEBHOOK_TARGET_UNRESOLVABLE' });
    dns.set('empty.pcx.test', []);
    await expect(resolve('empty.pcx.test')).rejects.toMatchObject({ code: 'WEBHOOK_TARGET_UNRESOLVABLE' });
  });

  test('a name resolving to a public and a private address is refused through real DNS', async () => {
    dns.set('split.pcx.test', [PUBLIC_V4, '::1']);
    dns.set('fine.pcx.test', [PUBLIC_V4]);
    const resolve = createResolver({ servers: [dns.address] });
    expect(await checkTarget('https://split.pcx.test/hook', { allowCidrs: [], resolve })).toEqual({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN', detail: '::1 is a loopback address' });
    expect(await checkTarget('https://fine.pcx.test/hook', { allowCidrs: [], resolve })).toMatchObject({ ok: true, target: { address: PUBLIC_V4 } });
  });

  test('keeps an answer at least 60 s, then asks again', async () => {
    let clock = 1_000_000;
    const resolve = createResolver({ servers: [dns.address], now: () => clock });
    dns.set('flip.pcx.test', [PUBLIC_V4], 1);
    expect(await resolve('flip.pcx.test')).toEqual([PUBLIC_V4]);
    // The name now points at loopback (DNS rebinding) with a 1 s TTL: within the floor, the
    // checked answer stands and the server is not asked.
    dns.set('flip.pcx.test', ['127.0.0.1'], 1);
    const asked = dns.queries.length;
    clock += 59_000;
    expect(await resolve('flip.pcx.test')).toEqual([PUBLIC_V4]);
    expect(dns.queries.length).toBe(asked);
    clock += 1_001;
    expect(await resolve('flip.pcx.test')).toEqual(['127.0.0.1']);
    expect(await checkTarget('https://flip.pcx.test/', { allowCidrs: [], resolve })).toMatchObject({ ok: false, code: 'WEBHOOK_TARGET_FORBIDDEN' });
  });

  test('a TTL above the floor is kept as given', async () => {
    let clock = 0;
    const resolve = createResolver({ servers: [dns.address], now: () => clock });
    dns.set('long.pcx.test', [PUBLIC_V4], 300);
    await resolve('long.pcx.test');
    dns.set('long.pcx.test', [PUBLIC_V6], 300);
    clock = 299_000;
    expect(await resolve('long.pcx.test')).toEqual([PUBLIC_V4]);
    clock = 300_000;
    expect(await resolve('long.pcx.test')).toEqual([PUBLIC_V6]);
  });
});
