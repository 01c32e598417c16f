// The layers of docs/architecture.md as rules, checked by dependency-cruiser (test/unit/layers.test.ts
// runs it with `npm test`; by hand: `npx depcruise --config .dependency-cruiser.cjs .`). Imports point
// down: domain/ <- core/ <- read-model/ <- delivery/, activities/ <- api/, dev/ <- the entry points
// (broker.ts, worker.ts, seed.ts); workflows/ run in Temporal's sandbox on domain/ alone; the
// adapter gateway and everything outside the broker reach it over HTTP. A rule's comment is the
// sentence of docs/architecture.md it checks.
const LAYERS_ABOVE_CORE = '^(read-model|delivery|activities|api|dev|workflows|gateway)/';
const BROKER_LAYERS = '^(domain|core|read-model|delivery|activities|api|dev|workflows)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'Imports point down and never back: no module reaches itself through its imports.',
      severity: 'error',
      from: { path: '^(domain|core|read-model|delivery|activities|api|dev|workflows|gateway|sdk/src|examples|conformance/src)/|^[a-z-]+\\.ts$' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      comment: 'domain/ is pure definitions, importing nothing of the project outside domain/ and no Node module.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: '^(core|read-model|delivery|activities|api|dev|workflows|gateway|sdk|examples|conformance|scripts)/|^[a-z-]+\\.ts$' },
    },
    {
      name: 'domain-without-node',
      comment: 'domain/ is bundled into the workflow sandbox: no Node built-in.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-below-the-layers',
      comment: 'core/ is the infrastructure every layer shares: it imports domain/ only (the seed, which writes through read-model/, sits above it, beside broker.ts).',
      severity: 'error',
      from: { path: '^core/' },
      to: { path: `${LAYERS_ABOVE_CORE}|^[a-z-]+\\.ts$` },
    },
    {
      name: 'read-model-below-its-users',
      comment: 'read-model/ is the database the API reads and the activities write: it imports core/ and domain/ only.',
      severity: 'error',
      from: { path: '^read-model/' },
      to: { path: '^(delivery|activities|api|dev|workflows|gateway)/|^[a-z-]+\\.ts$' },
    },
    {
      name: 'delivery-and-activities-below-the-api',
      comment: 'The activities and webhook delivery are called by Temporal and the entry points, never the other way.',
      severity: 'error',
      from: { path: '^(delivery|activities)/' },
      to: { path: '^(api|dev|workflows|gateway)/|^[a-z-]+\\.ts$' },
    },
    {
      name: 'api-without-activities',
      comment: 'api/ reads and writes through read-model/ and core/; it runs no activity code.',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^(activities|delivery)/' },
    },
    {
      name: 'nothing-imports-the-api',
      comment: 'No layer imports api/: only the entry points mount it.',
      severity: 'error',
      from: { pathNot: '^(api/|broker\\.ts$|test/|bench/|scripts/)' },
      to: { path: '^api/' },
    },
    {
      name: 'only-the-worker-imports-workflows',
      comment: 'Nothing but the worker (and the scripts that bundle and start it) imports workflows/.',
      severity: 'error',
      from: { pathNot: '^(workflows/|worker\\.ts$|test/|bench/|scripts/(bundle-workflows|start)\\.ts$)' },
      to: { path: '^workflows/' },
    },
    {
      name: 'workflows-on-domain-alone',
      comment: 'Workflows run in the sandbox: they import domain/ and Temporal\'s workflow package only.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^(core|read-model|delivery|activities|api|dev|gateway)/|^[a-z-]+\\.ts$' },
    },
    {
      name: 'gateway-over-http',
      comment:
        'The adapter gateway talks to the broker through the SDK and imports nothing of its layers but core/db.ts, core/temporal.ts, core/webhooks/ and the reference data of core/areas.ts and core/place-names.ts.',
      severity: 'error',
      from: { path: '^gateway/' },
      to: { path: BROKER_LAYERS, pathNot: '^core/(db|temporal|areas|place-names)\\.ts$|^core/webhooks/' },
    },
    {
      name: 'outside-the-broker-over-http',
      comment: 'sdk/, examples/ and conformance/ reach the broker over HTTP only.',
      severity: 'error',
      from: { path: '^(sdk/src|examples|conformance/src)/' },
      to: { path: `${BROKER_LAYERS}|^gateway/` },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|console|data|schemas|docs)/|/generated/' },
  },
};
