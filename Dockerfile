# syntax=docker/dockerfile:1
# Rampart's images: `docker build --target api -t rampart-api .` and
# `docker build --target worker -t rampart-worker .` (README, Operations, "Deployment").
# Not built on the machines this repository is developed on (no container engine there);
# test/deploy-files.test.ts checks this file against the code instead.

# --- build: compiles the TypeScript (npm run build: tsc -p tsconfig.build.json into dist/, and
# tsconfig.client.json for the typed client's declarations, and the dashboard from web/ into
# dist/app with Vite), then
# drops the dev dependencies so that the runtime stages copy production node_modules only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.client.json ./
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev

# --- runtime: what both images share.
FROM node:20-bookworm-slim AS runtime
WORKDIR /app
# Listen on every interface of the container (the default, 127.0.0.1, is unreachable from outside).
ENV HOST=0.0.0.0

# --- api: `npm start`'s process (dist/main/server.js) without its build step, as the image's own
# non-root user `node` (uid 1000). WORKERS=0: scans run in the worker image's processes only.
FROM runtime AS api
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root bin ./bin
# DATA_DIR is written only without DATABASE_URL / JWT_SECRET / SECRETS_KEY (the embedded database and
# the generated keys); a deployment sets those three and mounts nothing here.
RUN mkdir -p /app/data && chown node:node /app/data
ENV PORT=3000 WORKERS=0 DATA_DIR=/app/data
USER node
EXPOSE 3000
CMD ["node", "dist/main/server.js"]

# --- worker: `npm run worker`'s process (dist/main/worker-server.js) with the Debian scanners and the
# scanner sandbox, as .ci/run installs them. nikto is in Debian's non-free component: contrib and
# non-free are added to each Components line of the deb822 sources first.
FROM runtime AS worker
RUN sed -i -E '/^Components:/{/ contrib( |$)/!s/$/ contrib/;/ non-free( |$)/!s/$/ non-free/}' \
      /etc/apt/sources.list.d/debian.sources \
 && apt-get update \
 && apt-get install -y --no-install-recommends \
      nmap sqlmap wapiti sublist3r nikto \
      bubblewrap nftables util-linux \
 && rm -rf /var/lib/apt/lists/* \
 && useradd -r -s /usr/sbin/nologin rampart-scanner
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root bin ./bin
# The worker process stays root inside the container: the sandbox needs root to start bwrap, to
# switch each scanner to the unprivileged user rampart-scanner (setpriv) and to load that user's
# nftables egress rules (README, "Worker setup"). Scanners themselves never run as root.
# SCANNER_SANDBOX=required: refuse to start rather than run scanners unisolated.
# METRICS_PORT: the worker listener (/healthz, /readyz and /metrics).
ENV SCANNER_SANDBOX=required METRICS_PORT=9464 DATA_DIR=/app/data
EXPOSE 9464
CMD ["node", "dist/main/worker-server.js"]
