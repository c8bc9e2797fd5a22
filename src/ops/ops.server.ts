import http from 'node:http';
import type { Logger } from '../common/log.js';
import type { Metrics } from '../common/metrics.js';
import { runReadiness, type ReadinessCheck } from '../core/readiness.js';
import { listenAddress } from '../common/listen-address.js';

export interface OpsServer {
  url: string;
  /** Every role has started: /readyz answers by its checks from now on (503 `starting` before). */
  started(): void;
  /** From now on /readyz answers 503 (the process is shutting down). */
  drain(): void;
  close(): Promise<void>;
}

export interface OpsOptions {
  host: string;
  port: number;
  log: Logger;
  metrics: Metrics;
  /** The running roles' names, reported by /healthz. */
  roles: () => string[];
  /** The core's and the running roles' readiness checks. */
  readiness: () => ReadinessCheck[];
}

/**
 * The internal ops port of every process, whatever its roles: `/healthz` (the process runs),
 * `/readyz` (every readiness check of the core and the running roles passes; answers within a
 * second) and `/metrics` (Prometheus). Plain node:http: probes must answer even when the public
 * app is busy or not running at all.
 */
export async function startOpsServer(o: OpsOptions): Promise<OpsServer> {
  let draining = false;
  // Until every role has started (a worker's consumer registered, a stream role's caps joined), the
  // process is not ready: what a ready process promises (an event committed now is delivered) holds
  // only from then on.
  let starting = true;
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { error: 'Method not allowed', code: 'method_not_allowed' });
    if (path === '/healthz') return send(200, { status: 'ok', roles: o.roles() });
    if (path === '/readyz') {
      void runReadiness(o.readiness()).then((checks) => {
        const ready = !draining && !starting && Object.values(checks).every(Boolean);
        send(ready ? 200 : 503, { ready, ...(starting ? { starting: true } : {}), ...(draining ? { draining: true } : {}), checks });
      });
      return;
    }
    if (path === '/metrics') {
      void o.metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': o.metrics.registry.contentType });
          res.end(text);
        },
        () => send(500, { error: 'Metrics unavailable', code: 'internal_error' }),
      );
      return;
    }
    send(404, { error: 'Not found', code: 'not_found' });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const { address: bound, url } = listenAddress(o.host, port);
  o.log.info({ address: bound, url, paths: ['/healthz', '/readyz', '/metrics'] }, 'ops port listening');
  return {
    url,
    started() {
      starting = false;
    },
    drain() {
      draining = true;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
