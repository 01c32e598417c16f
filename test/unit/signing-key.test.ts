// The development signing key of a data folder: processes that start at once on one folder (two
// APIs behind one address) end up with the one key, so a token either signs is good at both.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSigningKey } from '../../core/auth';

test('starts at once on one data folder agree on one key, and leave no stray file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-devkey-'));
  const keys = await Promise.all(Array.from({ length: 8 }, () => loadSigningKey(dir)));
  expect(new Set(keys.map((k) => k.publicJwk.kid)).size).toBe(1);
  expect((await loadSigningKey(dir)).publicJwk.kid).toBe(keys[0].publicJwk.kid);
  expect(readdirSync(dir)).toEqual(['dev-auth-key.json']);
});
