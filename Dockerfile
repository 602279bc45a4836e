# syntax=docker/dockerfile:1
# One build, a target per component: `api` (the default; it also runs the controller, which is what
# the chart does) and `controller` (a slimmer image without the skills and docs the API serves).
# Node 24 runs the TypeScript sources directly (type stripping), so there is no build step: the
# build stage only installs production dependencies.
#   docker build -t colony:0.1.0 .                                  # api (default)
#   docker build --target controller -t colony-controller:0.1.0 .  # controller only
# Base images are pinned by tag; pin them by digest in your registry mirror for reproducible builds.
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# No install scripts: every dependency is plain JavaScript (SQLite is Node's built-in node:sqlite).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# Runtime base: distroless Node 24 (no shell, no package manager), as the nonroot user (65532).
FROM gcr.io/distroless/nodejs24-debian12:nonroot AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    COLONY_DATA_DIR=/data \
    PORT=8080 \
    COLONY_CONTROLLER_PORT=8081
COPY --from=deps --chown=0:0 /app/node_modules ./node_modules
COPY --chown=0:0 package.json ./
# The controller reads the API's config loader and the office types, so both trees ship in each image.
COPY --chown=0:0 api ./api
COPY --chown=0:0 controller ./controller
COPY --chown=0:0 integrations ./integrations
USER 65532:65532
# The entrypoint is node itself; the command is the component's entry file.
ENTRYPOINT ["/nodejs/bin/node"]

# The controller alone: `docker build --target controller -t colony-controller .`
FROM runtime AS controller
EXPOSE 8081
CMD ["controller/main.ts"]

# The API (the default target), which also carries what it serves to agents: skills and docs. The
# chart runs both components from this image, passing controller/main.ts to the controller.
FROM runtime AS api
COPY --chown=0:0 skills ./skills
COPY --chown=0:0 docs ./docs
EXPOSE 8080 8081
CMD ["api/main.ts"]
