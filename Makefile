# Thin wrappers over npm scripts. Every target runs on Node >= 22.17 (the project targets Node 24 LTS):
# when the system Node is older, Node 24 is provisioned from the npm registry into .node/ (git-ignored).
SHELL := /bin/bash
NODE_OK := $(shell node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.stdout.write(a>22||(a===22&&b>=17)?"yes":"no")' 2>/dev/null)
ifneq ($(NODE_OK),yes)
export PATH := $(CURDIR)/.node/node_modules/.bin:$(PATH)
NODE_DEP := .node/node_modules/.bin/node
endif
NPM := npm --no-audit --no-fund --loglevel=error

CLIENT_DIR := clients/typescript
CLIENT_TYPES := $(CLIENT_DIR)/src/generated/openapi.ts

.PHONY: help node install client build run serve test test-cluster test-redis-cluster test-pgbouncer test-e2e image test-all kube-tools k8s typecheck lint format check migrate sde-import bench-api bench-events bench-stream bench-stream-churn bench-webhooks bench-operator bench-hostile-bodies bench-scale bench-routes clean
help: ## list targets
	@grep -E '^[a-z0-9-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

.node/node_modules/.bin/node:
	@echo "provisioning Node 24 into .node/ (system node is $$(node --version 2>/dev/null || echo missing))"
	@mkdir -p .node && $(NPM) install --prefix .node node@24 >/dev/null
	@.node/node_modules/.bin/node --version

node: $(NODE_DEP) ## provision Node 24 when the system Node is too old

node_modules/.stamp: package.json package-lock.json $(NODE_DEP)
	$(NPM) ci
	@touch $@

install: node_modules/.stamp ## install dependencies (npm ci)

# The build's inputs: a second `make run` or `make test` with nothing changed does not build again.
# tsoa writes src/api/generated/ from the rest of src/, so those files are its output, not an input.
BUILD_INPUTS := $(shell find src -type f -not -path 'src/api/generated/*') tsoa.json tsconfig.json

dist/.built: node_modules/.stamp $(BUILD_INPUTS)
	npm run --silent build
	@touch $@

# The typed client package (clients/typescript, its own package.json and lock): its dependencies, and
# its types regenerated from the OpenAPI document the built service serves (a test fails on drift).
$(CLIENT_DIR)/node_modules/.stamp: $(CLIENT_DIR)/package.json $(CLIENT_DIR)/package-lock.json $(NODE_DEP)
	$(NPM) ci --prefix $(CLIENT_DIR)
	@touch $@

$(CLIENT_TYPES): dist/.built $(CLIENT_DIR)/node_modules/.stamp $(CLIENT_DIR)/scripts/generate.mjs
	node $(CLIENT_DIR)/scripts/generate.mjs
	@touch $@

build: dist/.built $(CLIENT_TYPES) ## generate routes/OpenAPI (tsoa), compile to dist/, regenerate the client package's types (only when a source changed)

client: build ## the typed client package (@mapintel/client): types regenerated, compiled to clients/typescript/dist (npm publish from there)
	npm run --silent --prefix $(CLIENT_DIR) build

run: build ## embedded default: migrate, import static data (FROM=dir|url), seed the demo map, print keys, serve
	SERVICE_SSE_ENABLED=$${SERVICE_SSE_ENABLED:-true} SERVICE_WEBHOOKS_ENABLED=$${SERVICE_WEBHOOKS_ENABLED:-true} node dist/cli.js demo $(if $(FROM),--from $(FROM))

serve: build ## serve with the current environment (see docs/configuration.md)
	node dist/cli.js serve

migrate: build ## apply database migrations
	node dist/cli.js migrate

sde-import: build ## import static data: make sde-import FROM=dir|url
	node dist/cli.js sde import $(if $(FROM),--from $(FROM))

typecheck: install ## type-check src and tests without emitting
	npm run --silent typecheck

lint: install ## ESLint with type-aware rules
	npm run --silent lint

format: install ## format src, test, scripts and bench with Prettier
	npm run --silent format

check: install ## the quick static check: formatting, lint, types, import circles and the layer order (no tests that need a database or a cluster)
	npm run --silent check

test: build ## the fast tiers (unit, api, integration, browser) against the machine's PostgreSQL and Redis; a few minutes
	node scripts/run-tests.mjs --tier fast --project service

kube-tools: ## build kube-apiserver, kube-controller-manager and etcd, unpack kubectl and helm into ~/.cache/mapintel/ (once per version)
	node scripts/kube-tools.mjs

test-cluster: build ## the cluster tier (chart, manifests, image, operator) on a real kube-apiserver; builds its binaries once per version
	@node scripts/kube-tools.mjs >/dev/null || echo "!!!! Kubernetes binaries could not be built: the cluster tests will be SKIPPED"
	@node scripts/chart-testing.mjs >/dev/null || echo "!!!! chart-testing (ct) could not be built: the ct lint test will FAIL"
	node scripts/run-tests.mjs --tier cluster --project cluster

test-redis-cluster: build ## the stream, caps, event, webhook and rate-limit suites on a 3-master Redis Cluster started on loopback ports, plus a master failover
	node scripts/run-tests.mjs --tier redis-cluster --project redis-cluster

image: $(NODE_DEP) ## build the Dockerfile with podman (BASE=local: on a local Debian bookworm + Node 24 base, no registry needed)
	bash scripts/e2e/image.sh $(if $(filter local,$(BASE)),--local-base)

test-pgbouncer: build ## the event, stream and webhook suites through PgBouncer in transaction mode (Debian's pgbouncer) on a free loopback port
	node scripts/pgbouncer-tier.mjs

test-e2e: build ## the image and the chart on a real single-node cluster on this machine (root; docs/kubernetes.md, "Try it on a local node")
	node scripts/e2e/run.mjs

test-all: ## every tier, as CI runs them (.ci/run), with one total line at the end
	bash .ci/run

k8s: ## render k8s/base/mapintel.yaml from the Helm chart (a test fails when it drifts)
	node scripts/kube-tools.mjs >/dev/null
	node scripts/render-k8s.mjs

bench-api: build ## REST read benchmark against a bare node:http + pg baseline
	node bench/api.mjs

bench-stream: build ## event stream: idle connections, fan-out latency, saturation, connects/s against a bare node:http SSE fan-out and Centrifugo (built from the Go module proxy into .cache/ on first use)
	node bench/stream.mjs

bench-stream-churn: build ## stream caps under churn for 5 minutes (three stream processes, a SIGKILL, a Redis restart; STREAM_CHURN_SECONDS=N to change); prints the peaks, RSS and statuses
	STREAM_CHURN_SECONDS=$${STREAM_CHURN_SECONDS:-300} npx vitest run test/integration/stream-churn.test.ts

bench-operator: build ## operator: 1,000 WebhookSubscriptions at once on a test kube-apiserver, time to Ready, requests per resource, 5 min idle (BENCH_IDLE_SECONDS=20 for a quick run)
	node scripts/kube-tools.mjs >/dev/null
	node --import tsx bench/operator.mjs

bench-events: build ## event pipeline benchmark (commit → relay → Redis XADD) against a raw INSERT + XADD baseline
	node bench/events.mjs

bench-hostile-bodies: build ## another client's read latency (p50/p95/p99) alone and beside four key holders sending 1 MB nested bodies within their rate limit, then beside two sending 620 KB kill imports of unknown fields (BENCH_DURATION=N seconds per phase)
	node bench/hostile-bodies.mjs

bench-scale: build ## stream scale-out on a 3-master Redis Cluster on loopback: 1, 2, 4 stream processes each serving its share of maps (deliveries/s, ratio to linear, bytes of maps not served, Redis CPU per delivery) and one process on 1 map while 8,000 events/s go to 1,000 others (its CPU, bytes received)
	node --import tsx bench/scale.mjs

bench-routes: build ## route finder: routes/s over the full static data (8,437 systems; BENCH_STATIC_DIR, default ../shared/data/eve-static) per flag against a bare BFS/Dijkstra in the same process, then POST /route/findClosest through HTTP
	node bench/routes.mjs

bench-webhooks: build ## webhook delivery: one worker process against a local receiver (saturation, latency, a timing-out tenth, a map whose receivers stall), against a bare sign-and-POST loop
	node bench/webhooks.mjs

clean: ## remove build output (keeps data/)
	rm -rf dist node_modules/.vitest-cache .test-results $(CLIENT_DIR)/dist
