# syntax=docker/dockerfile:1
#
# One production image per service, all from this file:
#
#   docker build --build-arg SERVICE=gateway -t registry.example/platform/gateway:0.1.0 .
#
# SERVICE is the folder name under services/ (gateway, auth, tc, intents-gateway, data-query,
# projector, chain-ingestor). The build stage installs the workspace from pnpm-lock.yaml, compiles
# the service and the libs it references with `tsc -b`, and `pnpm deploy --prod` copies the
# service with only its production dependencies (workspace libs included as their built `dist/`,
# which their package exports resolve to) into /out. The runtime stage is that folder on the
# Node 22 LTS slim image, running as the unprivileged `node` user (uid 1000). There is no
# HEALTHCHECK: Kubernetes probes the gRPC health service and the HTTP /healthz and /readyz.

FROM node:22.23.3-bookworm-slim AS build
ARG SERVICE
ARG PNPM_VERSION=10.34.9
RUN test -n "$SERVICE" || { echo "build with --build-arg SERVICE=<name of a folder under services/>" >&2; exit 1; }
RUN npm install --global --no-audit --no-fund "pnpm@${PNPM_VERSION}"
WORKDIR /repo

# Every package of the lockfile into pnpm's store, in a layer that changes only with the lockfile.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch --ignore-scripts

COPY . .
RUN test -f "services/${SERVICE}/package.json" || { echo "no service named '${SERVICE}' under services/" >&2; exit 1; }
# The service, the workspace packages it depends on and the root tools (tsc); nothing else. No
# production dependency has an install script, so none runs (anvil's and buf's are for the dev stack).
RUN pnpm install --frozen-lockfile --offline --ignore-scripts --filter "@platform/${SERVICE}..."
RUN pnpm exec tsc -b "services/${SERVICE}"
# pnpm 10 needs --legacy to deploy from a workspace without injected workspace packages.
RUN pnpm --filter "@platform/${SERVICE}" deploy --prod --legacy --offline --ignore-scripts /out \
 && test -f /out/dist/main.js

FROM node:22.23.3-bookworm-slim AS runtime
ARG SERVICE
ENV NODE_ENV=production
LABEL org.opencontainers.image.title="platform-${SERVICE}"
WORKDIR /app
# Owned by root and only readable by the runtime user: the process cannot rewrite its own code.
COPY --from=build /out/ /app/
# Numeric, so Kubernetes' runAsNonRoot can verify it (uid 1000 is `node` in the official image).
USER 1000:1000
# gateway: 8080 (HTTP); backends: 50051 (gRPC) and 9464 (/healthz, /readyz, /metrics).
EXPOSE 8080 50051 9464
CMD ["node", "dist/main.js"]
