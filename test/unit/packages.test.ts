// The packages users install (sdk/, conformance/) declare every package their sources import, and
// reach no file of the project outside their own folder but through a declared package.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [path].flatMap((p) => sources(p)) : sources(path);
    return /\.ts$/.test(name) ? [path] : [];
  });
}

/** The module specifiers a file imports (static imports, re-exports, dynamic imports). */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]);
}

const packageName = (specifier: string) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);

describe.each(['sdk', 'conformance'])('%s/', (folder) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8'));
  const declared = new Set(Object.keys(pkg.dependencies ?? {}));
  const files = sources(join(ROOT, folder, 'src'));

  it('declares every package it imports, at an exact version or as a sibling package', () => {
    const missing: string[] = [];
    for (const file of files) {
      for (const specifier of specifiers(file)) {
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
        if (!declared.has(packageName(specifier))) missing.push(`${relative(ROOT, file)}: ${specifier}`);
      }
    }
    expect(missing).toEqual([]);
    for (const [name, version] of Object.entries<string>(pkg.dependencies ?? {})) {
      expect({ name, version: /^(\d+\.\d+\.\d+|file:\.\.\/[a-z]+)$/.test(version) }).toEqual({ name, version: true });
    }
  });

  it('imports no file outside its folder', () => {
    const outside: string[] = [];
    for (const file of files) {
      for (const specifier of specifiers(file).filter((s) => s.startsWith('.'))) {
        const target = resolve(file, '..', specifier);
        if (!target.startsWith(join(ROOT, folder) + '/')) outside.push(`${relative(ROOT, file)}: ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('has a bin that is built JavaScript, and a README when it names one', () => {
    for (const bin of Object.values<string>(pkg.bin ?? {})) expect(bin).toMatch(/^dist\/.+\.js$/);
    if ((pkg.files ?? []).includes('README.md')) expect(statSync(join(ROOT, folder, 'README.md')).isFile()).toBe(true);
  });
});
