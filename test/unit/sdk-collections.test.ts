// The SDK's collections and pcx's resource commands come from the document: every collection with a
// list and a read names its client (x-pcx-client on the list), and the SDK's client has exactly those.
import { documents } from '../../api/app';
import { COLLECTIONS, PcxClient } from '../../sdk/src';
import { LIST_COLUMNS, RESOURCE_NAMES } from '../../sdk/src/generated/operations';
import { RESOURCES } from '../../sdk/src/cli/main';

const document = documents.bundled('https://broker.pcx.example');

describe('collections from the document', () => {
  it('every collection with a list and a read has a client name, and only those', () => {
    const readable = Object.keys(document.paths)
      .filter((p) => /^\/[a-z-]+$/.test(p) && document.paths[p].get && document.paths[`${p}/{id}`]?.get)
      .filter((p) => !['/sandbox'].includes(p))
      .map((p) => p.slice(1));
    expect([...COLLECTIONS].sort()).toEqual(readable.sort());
    for (const [name, collection] of Object.entries(RESOURCE_NAMES)) {
      expect(document.paths[`/${collection}`].get['x-pcx-client']).toMatchObject({ name, columns: LIST_COLUMNS[name as keyof typeof RESOURCE_NAMES] });
    }
  });

  it('the SDK client has a resource client per name, and pcx a command per name', () => {
    const pcx = new PcxClient({ baseUrl: 'http://broker.invalid', accessToken: 'unused' }) as unknown as Record<string, { collection?: string }>;
    for (const name of Object.keys(RESOURCE_NAMES)) expect({ name, client: typeof pcx[name] }).toEqual({ name, client: 'object' });
    expect(Object.keys(RESOURCES).sort()).toEqual(Object.keys(RESOURCE_NAMES).sort());
  });
});

describe('the example programs', () => {
  it('use the SDK as a third party would: typed, without casts to never or any', () => {
    const { readdirSync, readFileSync } = require('node:fs') as typeof import('node:fs');
    const { join } = require('node:path') as typeof import('node:path');
    const dir = join(__dirname, '..', '..', 'examples', 'carrier');
    const casts = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').map((line, i) => [`${f}:${i + 1}`, line] as const))
      .filter(([, line]) => /\bas (never|any)\b/.test(line))
      .map(([at]) => at);
    expect(casts).toEqual([]);
  });
});
