# leaf-ts as a container image (docs/deployment.md#containers): one node, the server as the container's main
# process, so `docker stop` / `podman stop` (SIGTERM) is a graceful stop with the give-back.
#   docker build -t leaf-ts .
#   docker run -p 3000:3000 -v leaf-data:/var/lib/leaf-ts leaf-ts                      # embedded SQLite
#   docker run -p 3000:3000 -e DATABASE_URL=mysql://user:pass@db:3306/leaf -e LEAF_ADMIN_TOKEN=… leaf-ts
# Stop with more than the node's 10 s bound: docker stop --time 20.
ARG NODE_IMAGE=docker.io/library/node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles from source where no prebuilt binary can be fetched; Node's headers ship in the image.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# Next's anonymous telemetry is off in the build and in the image (any non-empty value turns it off).
ENV npm_config_nodedir=/usr/local NEXT_TELEMETRY_DISABLED=1
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
COPY packages/embedded/package.json packages/embedded/
# Only better-sqlite3 needs an install script (its native build); the app is built below, once its sources are in.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3
COPY . .
RUN npx next build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 HOST=0.0.0.0 PORT=3000 LEAF_SQLITE_FILE=/var/lib/leaf-ts/leaf.db
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /var/lib/leaf-ts && chown node:node /var/lib/leaf-ts /app/.next
USER node
VOLUME /var/lib/leaf-ts
EXPOSE 3000
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=64", "--import", "tsx", "scripts/start.mjs", "--no-build"]
