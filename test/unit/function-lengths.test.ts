// No function of the sources has more than MAX_OWN_LINES lines of its own body (scripts/function-
// lengths.ts: TypeScript's parser; named functions nested in one count on their own, callbacks
// written in place count as the body around them). A longer one is split by concern.
import { join } from 'node:path';
import { functionLengths, MAX_OWN_LINES } from '../../scripts/function-lengths';

const ROOT = join(__dirname, '..', '..');

test(`no function of the sources has more than ${MAX_OWN_LINES} lines of its own body`, () => {
  const all = functionLengths(ROOT);
  // The count reaches the broker's layers, the gateway and the console (a rule that read no file would pass).
  for (const dir of ['api/', 'gateway/', 'console/', 'workflows/', 'sdk/src/']) expect(all.some((f) => f.file.startsWith(dir))).toBe(true);
  const long = all.filter((f) => f.ownLines > MAX_OWN_LINES).map((f) => `${f.file}:${f.line} ${f.name}: ${f.ownLines} lines of own body`);
  expect(long).toEqual([]);
}, 60_000);
