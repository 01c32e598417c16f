// GET /console/app/sdk.js: the SDK (sdk/src/browser.ts) as one ES module for the planner console,
// its only client of the broker. Bundled by esbuild when first asked for and kept (static-files.ts
// caches it under its digest), so the console always speaks the document this broker serves and
// there is no build step to forget; node:crypto is replaced by sdk/src/browser-crypto.ts and
// undici (mutual TLS, connectors only) left out.
import { buildSync } from 'esbuild';
import { join } from 'node:path';

/** The name the console imports it by (console/api.js); no file of console/ may take it. */
export const SDK_FILE = 'sdk.js';

const SDK_DIR = join(__dirname, '..', 'sdk', 'src');

export function consoleSdk(): Buffer {
  const result = buildSync({
    entryPoints: [join(SDK_DIR, 'browser.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'inline',
    external: ['undici'],
    alias: { 'node:crypto': join(SDK_DIR, 'browser-crypto.ts') },
    logLevel: 'silent',
  });
  return Buffer.from(result.outputFiles[0].contents);
}
