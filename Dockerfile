# syntax=docker/dockerfile:1
# One image for every Pylon process: the argument names the role (launcher/src/roles.ts):
#   docker run pylon:<version> gateway | identity | devices | content | scheduling | datatables |
#     analytics | rest | legacy | telemetry-consumer | migrate | admin <command> | all-in-one
# Compiled JavaScript only (no TypeScript transpiler at run time), production dependencies only,
# runs as uid 1000 on a read-only root filesystem: a role writes only to the /data volume (embedded
# backends, spools: docs/operations/deployment.md) and /tmp (give it a tmpfs for uploads in flight).
# Stages: manifests -> deps (production dependencies) and build (all dependencies, esbuild to
# <package>/dist) -> runtime (deps' tree plus build's compiled output and data files).

ARG NODE_IMAGE=node:24.11.1-bookworm-slim

FROM ${NODE_IMAGE} AS manifests
ENV CI=true
RUN npm install --global --no-fund --no-audit pnpm@10.34.8
WORKDIR /src
# The lockfile and every package manifest only, so dependency layers are rebuilt only when they change.
COPY package.json pnpm-workspace.yaml pnpm-lock.yaml .npmrc ./
COPY patches/ patches/
COPY scripts/require-pnpm.cjs scripts/
COPY services/kit/package.json services/kit/
COPY services/composition/package.json services/composition/
COPY services/adapters/package.json services/adapters/
COPY services/identity/package.json services/identity/
COPY services/devices/package.json services/devices/
COPY services/content/package.json services/content/
COPY services/scheduling/package.json services/scheduling/
COPY services/datatables/package.json services/datatables/
COPY services/analytics/package.json services/analytics/
COPY gateway/package.json gateway/
COPY player-web/package.json player-web/
COPY console/package.json console/
COPY client/package.json client/
COPY mcp/package.json mcp/
COPY launcher/package.json launcher/
COPY rest-facade/package.json rest-facade/
COPY legacy-adapter/package.json legacy-adapter/
COPY bench/package.json bench/
RUN pnpm fetch --frozen-lockfile

# Production dependencies only (the equivalent of `pnpm deploy` for a workspace whose packages
# read the repository's schema/ at run time): a fresh install with --prod, nothing to prune.
FROM manifests AS deps
RUN pnpm install --frozen-lockfile --offline --prod

FROM manifests AS build
RUN pnpm install --frozen-lockfile --offline
COPY . .
RUN node scripts/build.cjs \
 && mkdir /out \
 && cp -r --parents services/*/dist gateway/dist player-web/dist console/dist client/dist mcp/dist launcher/dist rest-facade/dist legacy-adapter/dist services/kit/migrations schema docs/*.md docs/operations/*.md /out/

FROM ${NODE_IMAGE} AS runtime
# NODE_COMPILE_CACHE: Node keeps every module's compiled code there (written once a process
# listens), so a restart skips most of the compiling (BENCHMARKS.md). /tmp is the pod's emptyDir in
# k8s, so the cache outlives a container restart in the pod; where it cannot be written Node starts
# without it.
# LOG_FILE empty: the all-in-one logs every line to stdout like the other roles (npm start's default
# is a log file in the data dir, so a terminal keeps the banner in view).
ENV NODE_ENV=production HOST=0.0.0.0 SIGNAGE_DATA_DIR=/data NODE_COMPILE_CACHE=/tmp/node-compile-cache LOG_FILE=
WORKDIR /app
# Owned by root and not writable by the process: the code cannot be changed at run time.
COPY --from=deps /src /app
COPY --from=build /out /app
RUN mkdir /data && chown 1000:1000 /data
VOLUME ["/data"]
USER 1000:1000
# gateway / all-in-one 4000, subgraphs and REST 4001, legacy 4080, metrics 9464 (internal only).
EXPOSE 4000 4001 4080 9464
ENTRYPOINT ["node", "--conditions=pylon-dist", "launcher/dist/role.main.js"]
CMD ["all-in-one"]
