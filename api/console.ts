// The planner console (docs/console.md): a browser application the broker serves at /console/,
// through which interactive users sign in (OIDC Authorization Code with PKCE, oidc-client-ts in the
// page) and then call the same API as connectors with their own token. Everything it loads comes
// from this origin: its own files (console/), MapLibre GL and oidc-client-ts from their packages,
// a basemap of country outlines (world-atlas), the positions of UN/LOCODE points from the
// broker's area index and the shapes of subdivisions and countries (data/area-shapes.topo.json.gz).
// An external map style can be configured (CONSOLE_MAP_STYLE_URL); its origin is then allowed by
// the page's policy.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { feature } from 'topojson-client';
import { Problem } from '../domain/problems';
import { SCOPES } from '../domain/scopes';
import { loadAreaIndex } from '../core/areas';
import { loadAreaShapes, type Shape } from '../core/area-shapes';
import { nearestPlace, placeExonyms, placeName, searchPlaces, subdivisionNames, type PlaceNames } from '../core/place-names';
import type { AppEnv } from './context';
import { page, staticFile, staticFileDoc, textContent } from './static-files';
import { publicOperation } from './operations';
import { bundle, BUNDLES } from './console-bundles';

const CONSOLE_DIR = join(__dirname, '..', 'console');
const MAPLIBRE_DIR = join(dirname(require.resolve('maplibre-gl/package.json')), 'dist');
const OIDC_CLIENT_DIR = join(dirname(require.resolve('oidc-client-ts/package.json')), 'dist', 'browser');
const CALENDAR_STYLES_DIR = join(dirname(require.resolve('vanilla-calendar-pro/package.json')), 'styles');
/** Country flags (flag-icons, MIT): one 4:3 SVG per ISO 3166-1 code, lower case. */
const FLAGS_DIR = join(dirname(require.resolve('flag-icons/package.json')), 'flags', '4x3');
const FLAGS = new Set(readdirSync(FLAGS_DIR).filter((f) => /^[a-z]{2}\.svg$/.test(f)));

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The scripts and stylesheets of a folder of the console, as it holds them (no hand-kept list to forget a new file in). */
const filesOf = (dir: string): Record<string, string> =>
  Object.fromEntries(readdirSync(dir).filter((f) => /^[a-z0-9-]+\.(js|css)$/.test(f)).map((f) => [f, f.endsWith('.css') ? CSS : JS]));
/** GET /console/app/{file}: the console's own files, and the modules made from packages (api/console-bundles.ts). */
const APP_FILES: Record<string, string> = { ...filesOf(CONSOLE_DIR), ...Object.fromEntries(Object.keys(BUNDLES).map((name) => [name, JS])) };
/** GET /console/app/i18n/{file}: its catalogues, one JSON file per language (console/i18n/), which format.js imports as JSON modules. */
const CATALOGUE_FILES: Record<string, string> = Object.fromEntries(readdirSync(join(CONSOLE_DIR, 'i18n')).filter((f) => /^[a-z]{2}\.json$/.test(f)).map((f) => [f, 'application/json; charset=utf-8']));
/** GET /console/vendor/{file}: the packages' builds it loads. */
const VENDOR_FILES: Record<string, { type: string; path: string }> = {
  'maplibre-gl.mjs': { type: JS, path: join(MAPLIBRE_DIR, 'maplibre-gl.mjs') },
  'maplibre-gl-worker.mjs': { type: JS, path: join(MAPLIBRE_DIR, 'maplibre-gl-worker.mjs') },
  'maplibre-gl.css': { type: CSS, path: join(MAPLIBRE_DIR, 'maplibre-gl.css') },
  'oidc-client-ts.min.js': { type: JS, path: join(OIDC_CLIENT_DIR, 'oidc-client-ts.min.js') },
  // The date picker's styles (its script is in ui.js): the calendar and its time picker.
  'calendar.css': { type: CSS, path: join(CALENDAR_STYLES_DIR, 'core.css') },
  'calendar-time.css': { type: CSS, path: join(CALENDAR_STYLES_DIR, 'time.css') },
};

/**
 * Scripts, styles and data of this origin (and the configured map style's, if any); the map's
 * worker is a module of this origin; images also as data: and blob: URIs (MapLibre draws with them).
 */
export function consoleCsp(mapStyleUrl: string | undefined, gatewayUrl?: string): string {
  const external = mapStyleUrl ? ` ${new URL(mapStyleUrl).origin}` : '';
  const gateway = gatewayUrl ? ` ${new URL(gatewayUrl).origin}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "worker-src 'self' blob:",
    "style-src 'self'",
    `img-src 'self' data: blob:${external}`,
    `connect-src 'self'${external}${gateway}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The page's markup (console/index.html), read once: it names the files above. */
const PAGE = readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8');

/** Country outlines (world-atlas, Natural Earth 1:110m) as GeoJSON, built once. */
function basemap(): string {
  const topology = JSON.parse(readFileSync(require.resolve('world-atlas/countries-110m.json'), 'utf8'));
  return JSON.stringify(feature(topology, topology.objects.countries));
}

export const consoleApp = new Hono<AppEnv>();

/** A 200 answer whose body is JSON of `schema` (an answer these operations describe inline). */
const jsonAnswer = (description: string, schema: Record<string, unknown>) => ({ description, content: { 'application/json': { schema } } });

publicOperation(consoleApp, {
  method: 'GET', path: '/console', answers: [301],
  doc: {
    id: 'redirectToConsole',
    summary: "The planner console's address",
    description: 'Answers 301 to `/console/`.',
    tag: 'Console',
    responses: {
      '301': {
        description: 'To `/console/`.',
        headers: {
          Location: { $ref: '#/components/headers/Location' },
        },
      },
    },
  },
}, (c) => c.redirect('/console/', 301));

publicOperation(consoleApp, {
  method: 'GET', path: '/console/', answers: [200],
  doc: {
    id: 'getConsole',
    summary: 'The planner console page',
    description:
      "An HTML page (docs/console.md): sign-in with the users' OpenID provider (Authorization Code " +
      "with PKCE), the map of the organization's and its partners' offers and requests, the " +
      'proposals inbox with explanations and decisions, the path to the outcome, followed live from ' +
      'the event feed. Everything from this origin (`Content-Security-Policy`). 404 ' +
      '`ROUTE_NOT_FOUND` when no interactive users are configured.',
    tag: 'Console',
    responses: {
      '200': {
        description: 'The planner console page.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      '404': true,
    },
  },
}, (c) => {
  const users = c.get('services').config.auth.users;
  if (!users) throw new Problem('ROUTE_NOT_FOUND', 'no interactive users are configured on this broker (USER_OIDC_ISSUER)');
  return page(c, PAGE, consoleCsp(c.get('services').config.console.mapStyleUrl, c.get('services').config.console.gatewayUrl));
});

publicOperation(consoleApp, {
  method: 'GET', path: '/console/config.json', answers: [200],
  doc: {
    id: 'getConsoleConfig',
    summary: "The console's sign-in settings",
    description:
      "The users' OpenID provider (`authority`), the console's client id there, the scopes it asks for, an external map " +
      "style if one is configured, and the adapter gateway whose held messages the console shows (`gatewayUrl`, null without one).",
    tag: 'Console',
    responses: {
      '200': jsonAnswer("The console's sign-in settings.", {
        type: 'object',
        required: ['authority', 'clientId', 'scope', 'mapStyleUrl', 'gatewayUrl'],
        additionalProperties: false,
        properties: {
          authority: { type: 'string' },
          clientId: { type: 'string' },
          scope: { type: 'string', description: 'What the console asks the provider for: openid, profile and every scope of the vocabulary (domain/scopes.ts); the provider grants what the user\u2019s role allows.' },
          mapStyleUrl: { type: ['string', 'null'] },
          gatewayUrl: { type: ['string', 'null'] },
        },
      }),
      '404': true,
    },
  },
}, (c) => {
  const { config } = c.get('services');
  if (!config.auth.users) throw new Problem('ROUTE_NOT_FOUND', 'no interactive users are configured on this broker');
  return c.json({ authority: config.auth.users.issuer, clientId: config.auth.users.clientId, scope: ['openid', 'profile', ...SCOPES].join(' '), mapStyleUrl: config.console.mapStyleUrl ?? null, gatewayUrl: config.console.gatewayUrl ?? null }, 200, { 'cache-control': 'no-cache' });
});

/** A file of a fixed list: any other name answers 404. */
const namedFile = (doc: ReturnType<typeof staticFileDoc>) => ({ ...doc, responses: { ...doc.responses, '404': true } });

publicOperation(consoleApp, {
  method: 'GET', path: '/console/app/:file', answers: [200],
  doc: {
    id: 'getConsoleFile',
    summary: 'A file of the console',
    description: "The console's own scripts and stylesheet, `sdk.js`, the SDK built for the browser, and `ui.js`, the UI library of its views; any other name answers 404.",
    tag: 'Console',
    ...namedFile(staticFileDoc({ description: 'A file of the console.', content: textContent('text/javascript', 'text/css') }, Object.keys(APP_FILES))),
  },
}, (c) => {
  const file = c.req.param('file') ?? '';
  // Own-property lookups in fixed lists: no path reaches the file system.
  if (!Object.hasOwn(APP_FILES, file)) throw new Problem('RESOURCE_NOT_FOUND', `no file ${file} of the console`);
  return staticFile(c, `app/${file}`, APP_FILES[file], () => (Object.hasOwn(BUNDLES, file) ? bundle(file) : readFileSync(join(CONSOLE_DIR, file))));
});

publicOperation(consoleApp, {
  method: 'GET', path: '/console/app/i18n/:file', answers: [200],
  doc: {
    id: 'getConsoleCatalogue',
    summary: 'A catalogue of the console',
    description: "The console's words in one language (en.json, de.json, pl.json); any other name answers 404.",
    tag: 'Console',
    ...namedFile(staticFileDoc({ description: 'A catalogue of the console.', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } }, Object.keys(CATALOGUE_FILES))),
  },
}, (c) => {
  const file = c.req.param('file') ?? '';
  if (!Object.hasOwn(CATALOGUE_FILES, file)) throw new Problem('RESOURCE_NOT_FOUND', `no catalogue ${file} of the console`);
  return staticFile(c, `app/i18n/${file}`, CATALOGUE_FILES[file], () => readFileSync(join(CONSOLE_DIR, 'i18n', file)));
});

publicOperation(consoleApp, {
  method: 'GET', path: '/console/vendor/:file', answers: [200],
  doc: {
    id: 'getConsoleVendorFile',
    summary: 'A library file of the console',
    description:
      'MapLibre GL (its module and its worker) and oidc-client-ts, from their packages; any other ' +
      'name answers 404.',
    tag: 'Console',
    ...namedFile(staticFileDoc({ description: 'A library file of the console.', content: textContent('text/javascript', 'text/css') }, Object.keys(VENDOR_FILES))),
  },
}, (c) => {
  const file = c.req.param('file') ?? '';
  if (!Object.hasOwn(VENDOR_FILES, file)) throw new Problem('RESOURCE_NOT_FOUND', `no file ${file} of the console`);
  return staticFile(c, `vendor/${file}`, VENDOR_FILES[file].type, () => readFileSync(VENDOR_FILES[file].path));
});

publicOperation(consoleApp, {
  method: 'GET', path: '/console/vendor/flags/:file', answers: [200],
  doc: {
    id: 'getConsoleFlag',
    summary: "A country's flag",
    description: 'The flag of an ISO 3166-1 country as an SVG (the package flag-icons), named by its lower-case code (`de.svg`); any other name answers 404.',
    tag: 'Console',
    ...namedFile(staticFileDoc({ description: "A country's flag.", content: { 'image/svg+xml': { schema: { type: 'string' } } } }, [...FLAGS].sort(), 'de.svg')),
  },
}, (c) => {
  const file = c.req.param('file') ?? '';
  // Only names of the package's own list: no path reaches the file system.
  if (!FLAGS.has(file)) throw new Problem('RESOURCE_NOT_FOUND', `no flag ${file}`);
  return staticFile(c, `flags/${file}`, 'image/svg+xml', () => readFileSync(join(FLAGS_DIR, file)));
});

publicOperation(consoleApp, {
  method: 'GET', path: '/console/basemap.geojson', answers: [200],
  doc: {
    id: 'getConsoleBasemap',
    summary: 'The shipped basemap',
    description:
      "Country outlines (Natural Earth 1:110m, from the package world-atlas) as GeoJSON: the map's " +
      'background where no tile server is reachable.',
    tag: 'Console',
    ...staticFileDoc({ description: 'The shipped basemap.', content: { 'application/geo+json': { schema: { type: 'object' } } } }),
  },
}, (c) => staticFile(c, 'basemap', 'application/geo+json', basemap));

/** A point of `near`: `lon,lat` in degrees, as the console writes a circle's centre. */
const POINT = '-?[0-9]{1,3}(\\.[0-9]{1,12})?,-?[0-9]{1,2}(\\.[0-9]{1,12})?';
const NEAR = new RegExp(`^(${POINT}(;${POINT})*)?$`);
/** How far from a circle's centre a place may lie and still name it. */
const NEARBY_KM = 10;


/** A UN/LOCODE place's names in the console's languages, as the place operations send them (core/place-names.ts placeExonyms). */
const PLACE_NAMES = {
  type: 'object',
  description: "Its names in English, German and Polish, where one differs from its UN/LOCODE name (the Unicode CLDR's city names): `{ en: 'Warsaw', de: 'Warschau', pl: 'Warszawa' }`.",
  required: ['en', 'de', 'pl'],
  additionalProperties: false,
  properties: { en: { type: 'string' }, de: { type: 'string' }, pl: { type: 'string' } },
} as const;

/**
 * A named UN/LOCODE place in an answer (a point's nearest place, a search result): its code, its
 * name as UN/LOCODE spells it and its names in the console's languages, with what `more` adds.
 */
const placeSchema = (more: Record<string, unknown>) => ({
  type: 'object',
  required: ['code', 'name', ...Object.keys(more)],
  additionalProperties: false,
  properties: {
    code: { type: 'string', pattern: '^[A-Z]{2}[A-Z0-9]{3}$', description: 'Its UN/LOCODE.' },
    name: { type: 'string', description: 'Its name as UN/LOCODE spells it.' },
    ...more,
    names: PLACE_NAMES,
  },
});

/**
 * Where the areas of listings lie, for the map: a UN/LOCODE's position, a subdivision's or a
 * country's shape (Natural Earth, simplified; core/area-shapes.ts) and bounding box. Public
 * reference data, as the index it comes from.
 */
publicOperation(consoleApp, {
  method: 'GET', path: '/console/places', answers: [200],
  doc: {
    id: 'getConsolePlaces',
    summary: 'Where areas lie',
    description:
      'The position and name of each UN/LOCODE, and the bounding box (what matching compares) and the shape (for ' +
      'drawing: Natural Earth 1:10m admin-1, simplified to about a kilometre; a country without its distant ' +
      "overseas parts) of each subdivision or country named in `codes`, from the broker's area index (public " +
      'reference data); unknown codes are left out, and a code without a known shape has its box only.',
    tag: 'Console',
    parameters: [
      {
        name: 'codes',
        in: 'query',
        required: false,
        description: 'Up to 200 codes, comma-separated (UN/LOCODE `DEHAM`, subdivision `DE-HH`, country `DE`).',
        schema: {
          type: 'string',
          maxLength: 1400,
          pattern: '^([A-Z]{2}(-?[A-Z0-9]{1,3})?(,[A-Z]{2}(-?[A-Z0-9]{1,3})?)*)?$',
        },
      },
      {
        name: 'near',
        in: 'query',
        required: false,
        description:
          'Up to 50 points `lon,lat` (degrees), separated by `;`: the centres of circles drawn on the map. Each is ' +
          `answered in \`nearby\` with the named UN/LOCODE place nearest to it within ${NEARBY_KM} km, if any (how the console names a circle).`,
        schema: { type: 'string', maxLength: 2000, pattern: NEAR.source },
      },
    ],
    responses: {
      '200': jsonAnswer('Where areas lie.', {
        type: 'object',
        required: ['places'],
        properties: {
          places: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              properties: {
                point: { type: 'array', items: { type: 'number' } },
                box: { type: 'array', items: { type: 'number' }, minItems: 4, maxItems: 4, description: 'A subdivision\'s or country\'s bounding box `[minLon, minLat, maxLon, maxLat]`: what matching compares.' },
                shape: {
                  type: 'object',
                  description: "A subdivision's or country's shape for drawing, a GeoJSON Polygon or MultiPolygon (degrees, 3 decimals).",
                  required: ['type', 'coordinates'],
                  properties: { type: { type: 'string', enum: ['Polygon', 'MultiPolygon'] }, coordinates: { type: 'array' } },
                },
                name: { type: 'string', description: "A UN/LOCODE's name as UN/LOCODE spells it (`Hamburg`)." },
                names: {
                  type: 'object',
                  description: "A subdivision's name in English, and in German and Polish where they differ (Natural Earth: `{ en: 'Bavaria', de: 'Bayern', pl: 'Bawaria' }`); a UN/LOCODE's names in the three languages where one differs from its own name (the Unicode CLDR's city names: `PLWAW` `{ en: 'Warsaw', de: 'Warschau', pl: 'Warszawa' }`).",
                  required: ['en'],
                  properties: { en: { type: 'string' }, de: { type: 'string' }, pl: { type: 'string' } },
                },
              },
            },
          },
          nearby: {
            type: 'object',
            description: 'Each point of `near` (as sent) that has a named place within reach: that place.',
            additionalProperties: placeSchema({ distanceKm: { type: 'number', description: 'Great-circle kilometres from the point, one decimal.' } }),
          },
        },
      }),
      '422': true,
    },
  },
}, (c) => {
  const codes = (c.req.query('codes') ?? '').split(',').filter(Boolean);
  if (codes.length > 200 || codes.some((code) => !/^[A-Z]{2}(-?[A-Z0-9]{1,3})?$/.test(code))) {
    throw new Problem('VALIDATION_FAILED', 'codes must be up to 200 UN/LOCODEs, subdivision or country codes, comma-separated', { errors: [{ pointer: '/query/codes', message: 'is not valid' }] });
  }
  const index = loadAreaIndex();
  const shapes = loadAreaShapes();
  const places: Record<string, { point?: [number, number]; box?: [number, number, number, number]; shape?: Shape; name?: string; names?: { en: string; de?: string; pl?: string } }> = {};
  for (const code of codes) {
    if (/^[A-Z]{2}[A-Z0-9]{3}$/.test(code)) {
      const position = index.unlocode(code)?.position;
      const name = placeName(code);
      const names = placeExonyms(code);
      if (position || name) places[code] = { ...(position ? { point: position } : {}), ...(name ? { name } : {}), ...(names ? { names } : {}) };
    } else {
      const box = code.includes('-') ? index.subdivisionBox(code) : index.countryBox(code);
      // A country's shape without the parts its box leaves out (matching compares the box).
      const shape = (code.includes('-') ? index.isSubdivision(code) : index.isCountry(code)) ? shapes.shape(code, code.includes('-') ? undefined : box) : null;
      const names = code.includes('-') ? subdivisionNames(code) : undefined;
      if (box || shape) places[code] = { ...(box ? { box } : {}), ...(shape ? { shape } : {}), ...(names ? { names } : {}) };
    }
  }
  const asked = c.req.query('near') ?? '';
  const near = asked.split(';').filter(Boolean);
  const points = near.map((text) => text.split(',').map(Number));
  if (near.length > 50 || !NEAR.test(asked) || points.some(([lon, lat]) => Math.abs(lon) > 180 || Math.abs(lat) > 90)) {
    throw new Problem('VALIDATION_FAILED', 'near must be up to 50 points lon,lat in degrees (longitude -180 to 180, latitude -90 to 90), separated by ;', { errors: [{ pointer: '/query/near', message: 'is not valid' }] });
  }
  const nearby: Record<string, { code: string; name: string; distanceKm: number; names?: PlaceNames }> = {};
  near.forEach((text, i) => {
    const found = nearestPlace(points[i][0], points[i][1], NEARBY_KM);
    const names = found && placeExonyms(found.code);
    if (found) nearby[text] = { code: found.code, name: found.name, distanceKm: Math.round(found.km * 10) / 10, ...(names ? { names } : {}) };
  });
  return c.json({ places, ...(near.length ? { nearby } : {}) }, 200, { 'cache-control': 'public, max-age=86400' });
});

/** Places by name, for the console's place fields (posting a truck or a load). Public reference data. */
publicOperation(consoleApp, {
  method: 'GET', path: '/console/place-search', answers: [200],
  doc: {
    id: 'searchConsolePlaces',
    summary: 'Places by name',
    description:
      'UN/LOCODE places whose name, or one of its words, or its name in English, German or Polish (`Warschau`), starts with `q` (diacritics and case ignored), or whose code is `q`: ' +
      'at most 15, places the area index can locate first. For choosing an area by name.',
    tag: 'Console',
    parameters: [
      { name: 'q', in: 'query', required: true, description: 'The start of a place name (`rotter`) or a UN/LOCODE (`NLRTM`), 1 to 60 characters.', schema: { type: 'string', minLength: 1, maxLength: 60 } },
    ],
    responses: {
      '200': jsonAnswer('The places found, best first.', {
        type: 'object',
        required: ['items'],
        additionalProperties: false,
        properties: {
          items: {
            type: 'array',
            maxItems: 15,
            items: placeSchema({ country: { type: 'string', pattern: '^[A-Z]{2}$' } }),
          },
        },
      }),
      '400': true,
    },
  },
}, (c) => {
  const values = c.req.queries('q') ?? [];
  const q = values[0] ?? '';
  if (values.length !== 1 || q.trim().length < 1 || q.length > 60) {
    throw new Problem('VALIDATION_FAILED', 'q must be one value of 1 to 60 characters', { errors: [{ pointer: '/query/q', message: 'is not valid' }] });
  }
  const index = loadAreaIndex();
  return c.json({ items: searchPlaces(q, 15, (code) => !!index.unlocode(code)?.position) }, 200, { 'cache-control': 'public, max-age=3600' });
});
