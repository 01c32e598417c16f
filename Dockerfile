# The broker image. One image, two roles: PCX_ROLE=api (HTTP API) or PCX_ROLE=worker (Temporal
# worker); docker-compose.yml runs one container of each. The TypeScript sources run as they are,
# through tsx: there is no build step, as in `npm start`.
#
# No Docker engine runs on the development machines: keep this file consistent with the code by
# reading (package.json, broker.ts, core/config.ts), as docker-compose.yml says.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. They hold everything the process needs at run time:
#   tsx            runs broker.ts (in "dependencies", so --omit=dev keeps it);
#   @swc/core, swc-loader, webpack
#                  the Temporal worker bundles workflows/ when it starts (dependencies of
#                  @temporalio/worker, so they come along);
#   pg             read models in PostgreSQL (PGlite is installed too but not used once
#                  DATABASE_URL is set).
# The devDependencies (typescript, jest, @temporalio/testing, ...) serve `npm test` only.
# Install scripts stay on for the packages package.json's allowScripts approves (esbuild and
# @swc/core check their platform binaries in them).
# Node 24, the project's runtime (scripts/setup.mjs brings the same line to a machine with an older
# Node), ships npm 11, which refuses `npm ci` with this lockfile ("Missing: @swc/core-darwin-arm64@
# from lock file" and more optional platform packages the registry here does not serve), so the
# image installs as setup does: `npm install --no-save` takes exactly the locked versions.
RUN npm install --no-save --omit=dev --no-audit --no-fund \
  && npm cache clean --force

FROM node:24-bookworm-slim
WORKDIR /app
# The API must listen on every interface inside a container (config.ts defaults HOST to
# 127.0.0.1, right for a laptop and wrong here). The worker role serves no API; it answers only
# /health/live and /health/ready on WORKER_HEALTH_PORT (core/worker-health.ts), on HOST too.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    WORKER_HEALTH_PORT=8081
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json broker.ts worker.ts seed.ts ./
COPY domain ./domain
COPY core ./core
COPY api ./api
# dev/: the development OpenID provider for users (loaded only with DEV_AUTH); it needs
# oidc-provider, a devDependency the image does not carry (production names USER_OIDC_ISSUER
# instead). The broker's token endpoint is api/token.ts, in every mode.
COPY dev ./dev
COPY workflows ./workflows
COPY activities ./activities
COPY read-model ./read-model
COPY delivery ./delivery
# The adapter gateway (docs/adapters.md): its own process, `node --import tsx gateway/main.ts`. It
# reaches the broker with the SDK, whose generated types and operation list (sdk/src/generated/)
# are made by `npm run generate` (or any npm script) before the image is built.
COPY gateway ./gateway
COPY sdk/src ./sdk/src
COPY schemas ./schemas
COPY data ./data
# The planner console's scripts (api/console.ts serves them from console/).
COPY console ./console
# config/ is not baked in: the deployment mounts its own organizations and connectors files
# (docker-compose.yml mounts ./config read-only at /app/config) and names them with
# ORGANIZATIONS_FILE and CONNECTORS_FILE. The demo connectors' secrets stay out of the image.
#
# The files belong to root and are only read; the process runs as the image's unprivileged
# `node` user (uid 1000). tsx keeps its transform cache under /tmp. The folder of personal data
# keys (PERSONAL_DATA_KEYS_DIR; docker-compose.yml mounts a volume there) is the node user's, so a
# named volume mounted on it is writable.
RUN mkdir -p /app/personal-data-keys && chown node:node /app/personal-data-keys && chmod 700 /app/personal-data-keys
USER node
EXPOSE 8080 8081
# Ready means: the API role's PostgreSQL and Temporal answer (api/health.ts); the worker role's
# worker polls and its PostgreSQL and Temporal answer (core/worker-health.ts). One check for both
# roles: it asks the port the container's role serves. The slim image has no curl: node's fetch.
# docker-compose.yml states the same checks per service.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const e = process.env; const port = e.PCX_ROLE === 'worker' ? e.WORKER_HEALTH_PORT || 8081 : e.PORT || 8080; fetch('http://127.0.0.1:' + port + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The tsx CLI is node_modules/tsx/dist/cli.mjs ("bin" in node_modules/tsx/package.json). Exec
# form without npm or a shell: tsx runs broker.ts in a child node process and relays SIGTERM to
# it, and broker.ts then drains the worker and closes the server and the pool before exiting
# (compose's `init: true` puts tini in front as PID 1).
CMD ["node", "node_modules/tsx/dist/cli.mjs", "broker.ts"]
