// GET /docs: the interactive reference of the bundled document (GET /openapi.bundled.json), in
// Swagger UI (docs/decisions.md, "Interactive API reference"). Its files come from the
// swagger-ui-dist package through the broker itself, never from a CDN: nothing outside may be
// reachable where a broker runs, and the page's Content-Security-Policy allows only this origin.
// Public like the document it shows; its Authorize button gets a token from the development
// authorization server (POST /oauth2/token, the document's tokenUrl) with a connector's client
// id and secret.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { Problem } from '../domain/problems';
import type { AppEnv } from './context';
import { page, staticFile, staticFileDoc, textContent } from './static-files';
import { publicOperation } from './operations';

const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

/**
 * Starts Swagger UI: a served file, not an inline script, so that the page's policy allows
 * scripts from this origin only. The broker's address is the page's own, less `docs`: a broker
 * behind a path prefix works like one at the root. Opened under another name than the
 * document's server (PUBLIC_BASE_URL), say 127.0.0.1 for localhost, the calls and the token
 * request would cross origins, which the broker does not answer (no CORS) and the policy
 * forbids; the page's own address replaces it then.
 */
const INITIALIZER = `'use strict';
(async () => {
  const root = document.getElementById('swagger-ui');
  const base = new URL('.', window.location.href).href.replace(/\\/$/, '');
  try {
    const res = await fetch(base + '/openapi.bundled.json', { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error('GET /openapi.bundled.json answered ' + res.status);
    const doc = await res.json();
    const configured = (doc.servers || []).map((s) => s.url.replace(/\\/$/, ''));
    if (!configured.includes(base)) {
      doc.servers = [{ url: base, description: 'This broker, as this page reached it (its PUBLIC_BASE_URL is ' + (configured[0] || 'not set') + ')' }];
    }
    window.ui = SwaggerUIBundle({
      spec: doc,
      domNode: root,
      deepLinking: true,
      // No badge from validator.swagger.io: nothing outside this origin.
      validatorUrl: null,
      // The token stays in this page's memory, never in localStorage.
      persistAuthorization: false,
      displayRequestDuration: true,
      // Tags start folded, with a filter box: Swagger UI 5 stops drawing a document's operations
      // after the first few once more than 127 are expanded at once (docs/decisions.md, "The API
      // reference"), and a reader wants one resource at a time anyway.
      docExpansion: 'none',
      filter: true,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
    });
  } catch (err) {
    root.textContent = 'The API reference could not load the OpenAPI document: ' + err.message;
  }
})();
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner Capacity Exchange broker API reference</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<link rel="stylesheet" href="docs/assets/index.css">
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="docs/assets/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"><noscript>The API reference needs JavaScript; the document itself is <a href="openapi.bundled.json">openapi.bundled.json</a>.</noscript></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/initializer.js"></script>
</body>
</html>
`;

/**
 * Scripts, styles and images from this origin only, nothing inline (Swagger UI sets styles
 * through the DOM, which the policy allows); images also as data: URIs, which its stylesheet uses
 * for icons; requests (the document, the token, "Try it out") to this origin only.
 * test/api-reference.test.ts fails on any violation, which Chromium logs as a console error.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The files GET /docs/assets/{file} serves, and nothing else: the page's and no other of the package. */
export const DOCS_ASSETS: Record<string, { type: string; load: () => string | Buffer }> = {
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', load: () => readFileSync(join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js')) },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', load: () => readFileSync(join(SWAGGER_UI_DIR, 'swagger-ui.css')) },
  'index.css': { type: 'text/css; charset=utf-8', load: () => readFileSync(join(SWAGGER_UI_DIR, 'index.css')) },
  'favicon-32x32.png': { type: 'image/png', load: () => readFileSync(join(SWAGGER_UI_DIR, 'favicon-32x32.png')) },
  'favicon-16x16.png': { type: 'image/png', load: () => readFileSync(join(SWAGGER_UI_DIR, 'favicon-16x16.png')) },
  'initializer.js': { type: 'text/javascript; charset=utf-8', load: () => INITIALIZER },
};

export const docs = new Hono<AppEnv>();

publicOperation(docs, {
  method: 'GET', path: '/docs', answers: [200],
  doc: {
    id: 'getApiReference',
    summary: 'Interactive reference of this document',
    description:
      'An HTML page showing `GET /openapi.bundled.json` in Swagger UI, whose files this broker ' +
      'serves itself (`GET /docs/assets/{file}`); nothing is loaded from elsewhere (its ' +
      '`Content-Security-Policy` allows this origin only). In development its Authorize button ' +
      'obtains a token from `POST /oauth2/token` with a connector\'s client id and secret, and "Try ' +
      'it out" calls this broker with it.',
    tag: 'Discovery',
    responses: {
      '200': {
        description: 'The page.',
        headers: {
          'Content-Security-Policy': {
            description: 'Scripts, styles, images and requests of this origin only.',
            schema: { type: 'string' },
          },
        },
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
  },
}, (c) => page(c, PAGE, DOCS_CSP));

const ASSET_DOC = staticFileDoc({ description: 'The file.', content: { ...textContent('text/javascript', 'text/css'), 'image/png': {} } }, Object.keys(DOCS_ASSETS), 'swagger-ui.css');
publicOperation(docs, {
  method: 'GET', path: '/docs/assets/:file', answers: [200],
  doc: {
    id: 'getApiReferenceAsset',
    summary: 'A file of the interactive reference',
    description:
      "The scripts, stylesheets and icons `GET /docs` loads: Swagger UI's, from the package " +
      "swagger-ui-dist, and the page's initializer. Only these names; any other answers 404. " +
      'Cacheable for an hour, then revalidated by `ETag` (`If-None-Match` answers 304).',
    tag: 'Discovery',
    parameters: ASSET_DOC.parameters,
    responses: { ...ASSET_DOC.responses, '404': '`RESOURCE_NOT_FOUND`: no file of that name.' },
  },
}, (c) => {
  const file = c.req.param('file') ?? '';
  // An own-property lookup in a fixed list: no path reaches the file system.
  if (!Object.hasOwn(DOCS_ASSETS, file)) throw new Problem('RESOURCE_NOT_FOUND', `no asset ${file} of the API reference`);
  return staticFile(c, `docs/${file}`, DOCS_ASSETS[file].type, DOCS_ASSETS[file].load);
});
