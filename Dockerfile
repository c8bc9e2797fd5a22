# syntax=docker/dockerfile:1
# mapintel: one image for every role (`mapintel serve --roles api|stream|worker|operator`).

# The base of every stage. Users keep the default; the e2e tier (make test-e2e), where no image
# registry is reachable, passes a local Debian bookworm + Node 24 base built by scripts/e2e/image.sh.
ARG BASE=node:24-slim

# 1. Compile: every dependency, tsoa routes and OpenAPI, TypeScript to dist/.
FROM ${BASE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.json tsoa.json ./
COPY src ./src
RUN npm run build

# 2. Production dependencies only.
FROM ${BASE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error && npm cache clean --force

# 3. Runtime: compiled code, production dependencies, the static data sample; no compiler, no npm cache.
FROM ${BASE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY assets ./assets
RUN chmod 0755 dist/cli.js && ln -s /app/dist/cli.js /usr/local/bin/mapintel
# A numeric non-root user, so runAsNonRoot can verify it; the chart mounts a writable /tmp only.
USER 10001:10001
EXPOSE 8080 8081
ENTRYPOINT ["mapintel"]
CMD ["serve"]
