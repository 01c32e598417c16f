// The layers of docs/architecture.md as rules, checked by dependency-cruiser (test/unit/layers.test.ts
// runs it with `npm test`; by hand: `npx depcruise --config .dependency-cruiser.cjs .`). Imports point
// down: domain/ <- core/ <- read-model/ <- delivery/, activities/ <- api/, dev/ <- the entry points
// (broker.ts, worker.ts, seed.ts); workflows/ run in Temporal's sandbox on domain/ alone; the
// adapter gateway and everything outside the broker reach it over HTTP. A rule's comment is the
// sentence of docs/architecture.md it checks.
const LAYERS_ABOVE_CORE = '^(read-model|delivery|activities|api|dev|workflows|gateway)/';
const BROKER_LAYERS = '^(domain|core|read-model|delivery|activities|api|dev|workflows)/';

/**
 * A rule of the layers: imports from `from` to `to` are errors; `comment` is the sentence of
 * docs/architecture.md it checks (test/unit/layers.test.ts shows each one bites).
 */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    forbid('no-cycles', 'Imports point down and never back: no module reaches itself through its imports.', { path: '^(domain|core|read-model|delivery|activities|api|dev|workflows|gateway|sdk/src|examples|conformance/src)/|^[a-z-]+\\.ts$' }, { circular: true }),
    forbid('domain-is-pure', 'domain/ is pure definitions, importing nothing of the project outside domain/ and no Node module.', { path: '^domain/' }, { path: '^(core|read-model|delivery|activities|api|dev|workflows|gateway|sdk|examples|conformance|scripts)/|^[a-z-]+\\.ts$' }),
    forbid('domain-without-node', 'domain/ is bundled into the workflow sandbox: no Node built-in.', { path: '^domain/' }, { dependencyTypes: ['core'] }),
    forbid('core-below-the-layers', 'core/ is the infrastructure every layer shares: it imports domain/ only (the seed, which writes through read-model/, sits above it, beside broker.ts).', { path: '^core/' }, { path: `${LAYERS_ABOVE_CORE}|^[a-z-]+\\.ts$` }),
    forbid('read-model-below-its-users', 'read-model/ is the database the API reads and the activities write: it imports core/ and domain/ only.', { path: '^read-model/' }, { path: '^(delivery|activities|api|dev|workflows|gateway)/|^[a-z-]+\\.ts$' }),
    forbid('delivery-and-activities-below-the-api', 'The activities and webhook delivery are called by Temporal and the entry points, never the other way.', { path: '^(delivery|activities)/' }, { path: '^(api|dev|workflows|gateway)/|^[a-z-]+\\.ts$' }),
    forbid('api-without-activities', 'api/ reads and writes through read-model/ and core/; it runs no activity code.', { path: '^api/' }, { path: '^(activities|delivery)/' }),
    forbid('nothing-imports-the-api', 'No layer imports api/: only the entry points mount it.', { pathNot: '^(api/|broker\\.ts$|test/|bench/|scripts/)' }, { path: '^api/' }),
    forbid('only-the-worker-imports-workflows', 'Nothing but the worker (and the scripts that bundle and start it) imports workflows/.', { pathNot: '^(workflows/|worker\\.ts$|test/|bench/|scripts/(bundle-workflows|start)\\.ts$)' }, { path: '^workflows/' }),
    forbid('workflows-on-domain-alone', 'Workflows run in the sandbox: they import domain/ and Temporal\'s workflow package only.', { path: '^workflows/' }, { path: '^(core|read-model|delivery|activities|api|dev|gateway)/|^[a-z-]+\\.ts$' }),
    forbid('gateway-over-http', 'The adapter gateway talks to the broker through the SDK and imports nothing of its layers but core/db.ts, core/temporal.ts, core/webhooks/ and the reference data of core/areas.ts and core/place-names.ts.', { path: '^gateway/' }, { path: BROKER_LAYERS, pathNot: '^core/(db|temporal|areas|place-names)\\.ts$|^core/webhooks/' }),
    forbid('outside-the-broker-over-http', 'sdk/, examples/ and conformance/ reach the broker over HTTP only.', { path: '^(sdk/src|examples|conformance/src)/' }, { path: `${BROKER_LAYERS}|^gateway/` }),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|console|data|schemas|docs)/|/generated/' },
  },
};
