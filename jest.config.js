// Six projects (docs/architecture.md, "Tests"):
//   unit      pure logic, no servers (test/unit/)
//   workflows flows and entity deadlines alone on the time-skipping test server, activities scripted
//   postgres  integration tests against a broker whose read models are in PostgreSQL
//   pglite    the same integration tests against a broker on the embedded PGlite (`npm start`'s default)
//   timeskip-pglite, timeskip-postgres
//             every timer at its real distance on Temporal's time-skipping test server (test/time-skipping/)
// The integration projects share one Temporal dev server (test/setup/stack-setup.ts). Temporal's native
// runtime wants a single jest worker (--runInBand, or `npm test`'s one recycled worker: scripts/test.mjs).
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest'] },
  // jose 6, uuid 14 and canonicalize 5 ship ESM only; let swc turn them into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!(jose|uuid|canonicalize|oauth4webapi|openid-client)/)'],
  // The conformance kit imports the SDK as the package it declares (tsconfig.json "paths" for tsc and tsx).
  // The console imports the SDK and its UI library as the broker serves them, ./sdk.js and ./ui.js (bundled by api/console-bundles.ts); a test loads their sources.
  moduleNameMapper: { '^@pcx/sdk$': '<rootDir>/sdk/src', '^\\./sdk\\.js$': '<rootDir>/sdk/src/browser.ts', '^\\./ui\\.js$': '<rootDir>/console/bundles/ui.js' },
};

// Integration test files that do not depend on the read-model engine and run once (postgres):
// start.test.ts starts `npm start` itself (always PGlite); walkthrough.test.ts,
// conformance-connectors.test.ts, clients.test.ts and console.test.ts share one that the postgres project's global
// setup starts when they are to run (test/setup/stack-setup.ts);
// replay.test.ts replays workflow histories, in which the engine plays no part; crash-retry.test.ts
// needs separate API and worker processes, which share PostgreSQL only, as do the worker role of
// worker-health.test.ts, the TLS proxy of temporal-tls.test.ts and the two APIs and two workers
// of scale.test.ts. openapi.test.ts reads the document and the routes without a broker, and
// api-reference.test.ts renders the document's reference page, which no read model serves.
// gateway.test.ts and gateway-crash.test.ts test the adapter gateway, which reaches the broker
// over HTTP only: its own database is PostgreSQL in the first, PGlite (its default) in the second.
// gateway-roundtrip.test.ts is the embedded set-up's round trip (PGlite under broker and gateway).
const PGLITE_ONLY = ['gateway-roundtrip'].map((name) => `/test/${name}\\.test\\.ts$`);
const ENGINE_INDEPENDENT = ['start', 'replay', 'command-sweep', 'walkthrough', 'conformance-connectors', 'clients', 'console', 'oauth-clients', 'crash-retry', 'database-chaos', 'storage-full', 'series-crash', 'feed-restore', 'worker-health', 'temporal-tls', 'scale', 'webhooks-crash', 'gateway', 'gateway-crash', 'openapi', 'api-reference'].map((name) => `/test/${name}\\.test\\.ts$`);

// `npm test` (scripts/test.mjs) runs the postgres project in four jest processes: the files
// against `npm start` in two (PCX_TEST_FILES=second selects only them, a path pattern each
// process's), the rest in two shards (PCX_TEST_FILES=others leaves them out).
const NPM_START_FILES = ['walkthrough', 'console', 'conformance-connectors', 'clients', 'oauth-clients', 'start'];
const SECOND_FILES = NPM_START_FILES;
const split = process.env.PCX_TEST_FILES;
const secondOnly = SECOND_FILES.map((name) => `<rootDir>/test/${name}.test.ts`);
const withoutSecond = split === 'others' ? SECOND_FILES.map((name) => `/test/${name}\\.test\\.ts$`) : [];

const integration = (engine, ignore) => ({
  ...common,
  displayName: engine,
  roots: ['<rootDir>/test'],
  testMatch: split === 'second' ? secondOnly : ['<rootDir>/test/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...ignore, ...withoutSecond],
  globals: { PCX_ENGINE: engine },
  globalSetup: `<rootDir>/test/setup/${engine}.ts`,
  globalTeardown: `<rootDir>/test/setup/teardown-${engine}.ts`,
});

const timeSkipping = (engine) => ({
  ...common,
  displayName: `timeskip-${engine}`,
  roots: ['<rootDir>/test/time-skipping'],
  testMatch: ['<rootDir>/test/time-skipping/*.test.ts'],
  globals: { PCX_ENGINE: engine },
});

module.exports = {
  testTimeout: 60000,
  // The files that make Cargo Co-op a partner of Baltic's on the shared npm start run last (test/setup/sequencer.js).
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  projects: [
    { ...common, displayName: 'unit', roots: ['<rootDir>/test'], testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    // Workflow code alone on the time-skipping test server, activities scripted: the failure paths
    // of flows and entity deadlines in seconds (test/workflows/).
    { ...common, displayName: 'workflows', roots: ['<rootDir>/test/workflows'], testMatch: ['<rootDir>/test/workflows/*.test.ts'] },
    integration('postgres', PGLITE_ONLY),
    integration('pglite', ENGINE_INDEPENDENT),
    // The time-skipping harness (test/time-skipping/harness.ts) starts its own test server, worker
    // and read model per file: no shared stack.
    timeSkipping('pglite'),
    timeSkipping('postgres'),
  ],
};
