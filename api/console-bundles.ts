// The console's modules made from packages: GET /console/app/sdk.js, the SDK (sdk/src/browser.ts),
// its only client of the broker, and GET /console/app/ui.js, the UI library its views are drawn
// with (console/bundles/ui.js: Preact and htm, docs/decisions.md "The console's UI library").
// Each is bundled by esbuild into one ES module when first asked for and kept (static-files.ts
// caches it under its digest): the console always speaks the document this broker serves, and
// there is no build step to forget, as everywhere else in the project. For the SDK, node:crypto is
// replaced by sdk/src/browser-crypto.ts and undici (mutual TLS, connectors only) left out.
import { buildSync } from 'esbuild';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const SDK_DIR = join(ROOT, 'sdk', 'src');

interface Bundle {
  entry: string;
  alias?: Record<string, string>;
  external?: string[];
}

/** By the name the console imports them (./sdk.js, ./ui.js); no file of console/ may take one of these names. */
export const BUNDLES: Record<string, Bundle> = {
  'sdk.js': { entry: join(SDK_DIR, 'browser.ts'), alias: { 'node:crypto': join(SDK_DIR, 'browser-crypto.ts') }, external: ['undici'] },
  'ui.js': { entry: join(ROOT, 'console', 'bundles', 'ui.js') },
};

export function bundle(name: string): Buffer {
  const { entry, alias, external } = BUNDLES[name];
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'inline',
    ...(alias ? { alias } : {}),
    ...(external ? { external } : {}),
    logLevel: 'silent',
  });
  return Buffer.from(result.outputFiles[0].contents);
}
