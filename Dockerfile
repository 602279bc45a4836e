# syntax=docker/dockerfile:1
# One build, a target per component: `api` (the default; it also runs the controller, which is what
# the chart does) and `controller` (a slimmer image without the skills and docs the API serves).
# Node 24 runs the TypeScript sources directly (type stripping), so there is no build step: the
# build stage only installs production dependencies.
#   docker build -t colony:0.1.0 .                                  # api (default)
#   docker build --target controller -t colony-controller:0.1.0 .  # controller only
#   docker build --target init -t colony-init:0.1.0 .              # the agents' init container
# Base images are pinned by tag; pin them by digest in your registry mirror for reproducible builds.
# Both are build arguments so other bases can stand in, e.g. `npm run image` (scripts/image/build.sh)
# builds this file without any registry, on bases it makes itself from Debian packages.
ARG NODE_VERSION=24.21.0
# The deps stage needs a shell and npm.
ARG BUILD_IMAGE=node:${NODE_VERSION}-bookworm-slim
# The runtime needs node at /nodejs/bin/node and the nonroot user 65532; no shell.
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs24-debian12:nonroot

FROM ${BUILD_IMAGE} AS deps
WORKDIR /app
ENV NODE_ENV=production
# An npm registry mirror, if the public registry is out of reach (npm reads it from the environment).
ARG NPM_CONFIG_REGISTRY
COPY package.json package-lock.json ./
# No install scripts: every dependency is plain JavaScript (SQLite is Node's built-in node:sqlite).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# The agents' colony-init container (cliInstalls, shared-drive folders): bash, apt-get, npm, curl
# and pip3 on the build base, as a numeric non-root user, so that a namespace enforcing the
# restricted Pod Security Standard admits it. `docker build --target init -t colony-init:<tag> .`
FROM ${BUILD_IMAGE} AS init
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl python3-pip \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && useradd --uid 10001 --user-group --home-dir /home/colony --create-home colony
USER 10001:10001
WORKDIR /home/colony

# Runtime base: distroless Node 24 (no shell, no package manager), as the nonroot user (65532).
FROM ${RUNTIME_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    COLONY_DATA_DIR=/data \
    PORT=8080 \
    COLONY_CONTROLLER_PORT=8081
COPY --from=deps --chown=0:0 /app/node_modules ./node_modules
COPY --chown=0:0 package.json ./
# The controller's entry point reads the API's config loader, so both trees ship in each image.
COPY --chown=0:0 main ./main
COPY --chown=0:0 api ./api
COPY --chown=0:0 controller ./controller
COPY --chown=0:0 cluster ./cluster
COPY --chown=0:0 integrations ./integrations
USER 65532:65532
# The entrypoint is node itself; the command is the component's entry file.
ENTRYPOINT ["/nodejs/bin/node"]

# The controller alone: `docker build --target controller -t colony-controller .`
FROM runtime AS controller
EXPOSE 8081
CMD ["main/controller.ts"]

# The API (the default target), which also carries what it serves to agents: skills and docs. The
# chart runs both components from this image, passing main/controller.ts to the controller.
FROM runtime AS api
COPY --chown=0:0 skills ./skills
COPY --chown=0:0 docs ./docs
EXPOSE 8080 8081
CMD ["main/api.ts"]
