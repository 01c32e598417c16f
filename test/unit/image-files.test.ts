// The container image carries every file the broker, the worker and the gateway load: the
// Dockerfile copies files by name (broker.ts, worker.ts, seed.ts) and folders, so a module moved to
// a new place (core/seed.ts became seed.ts) must be copied too, or the image fails at start.
// dependency-cruiser follows the entry points' imports; each project file reached must lie under
// something the Dockerfile copies.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

test('every module the entry points load is copied into the image', () => {
  const copied = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => /^COPY (?!--from)/.test(line))
    .flatMap((line) => line.replace(/^COPY\s+/, '').split(/\s+/).slice(0, -1));
  const json = execFileSync(process.execPath, [join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs'), '--no-config', '--ts-config', 'tsconfig.json', '--ts-pre-compilation-deps', '--do-not-follow', 'node_modules', '--output-type', 'json', 'broker.ts', 'worker.ts', 'gateway/main.ts'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const loaded = (JSON.parse(json).modules as Array<{ source: string; coreModule?: boolean; couldNotResolve?: boolean }>)
    .filter((m) => !m.coreModule && !m.couldNotResolve && !m.source.startsWith('node_modules/') && /\.(ts|js|mjs|cjs|json)$/.test(m.source))
    .map((m) => m.source);
  expect(loaded).toEqual(expect.arrayContaining(['broker.ts', 'worker.ts', 'seed.ts', 'gateway/main.ts']));
  const missing = loaded.filter((file) => !copied.some((c) => file === c || file.startsWith(`${c.replace(/\/$/, '')}/`)));
  expect(missing).toEqual([]);
}, 60_000);
