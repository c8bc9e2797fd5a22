/**
 * The name and one-line summary of every role, apart from its module: the registry lists roles (for
 * `serve --help` and `--roles`) without loading them, and a process loads only the roles it starts.
 */
export const ROLE_INFO = {
  api: { name: 'api', summary: 'public REST API on PORT (+ /swaggerui) and the event relay' },
  stream: { name: 'stream', summary: 'event stream (SSE) on PORT: GET /api/maps/{map_id}/events/stream' },
  worker: { name: 'worker', summary: 'webhook delivery workers (probes and metrics on OPS_PORT)' },
  operator: { name: 'operator', summary: 'Kubernetes operator: WebhookSubscription resources into webhook subscriptions (leader-elected)' },
} as const;
