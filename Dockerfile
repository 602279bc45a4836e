# syntax=docker/dockerfile:1
# One image for both components: the API (default command) and the controller
# (`node controller/main.ts`). Node 24 runs the TypeScript sources directly (type stripping), so
# there is no build step: the build stage only installs production dependencies.
#   docker build -t colony:0.1.0 .
# Base images are pinned by tag; pin them by digest in your registry mirror for reproducible builds.
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# No install scripts: every dependency is plain JavaScript (SQLite is Node's built-in node:sqlite).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# Runtime: distroless Node 24 (no shell, no package manager), as the nonroot user (65532).
FROM gcr.io/distroless/nodejs24-debian12:nonroot AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    COLONY_DATA_DIR=/data \
    PORT=8080 \
    COLONY_CONTROLLER_PORT=8081
COPY --from=deps --chown=0:0 /app/node_modules ./node_modules
COPY --chown=0:0 package.json ./
COPY --chown=0:0 api ./api
COPY --chown=0:0 controller ./controller
COPY --chown=0:0 integrations ./integrations
COPY --chown=0:0 skills ./skills
COPY --chown=0:0 docs ./docs
USER 65532:65532
EXPOSE 8080 8081
# The entrypoint is node itself; the chart passes the entry file as args (controller/main.ts).
ENTRYPOINT ["/nodejs/bin/node"]
CMD ["api/main.ts"]
