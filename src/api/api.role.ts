import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Core } from '../core/core.js';
import { runReadiness } from '../core/readiness.js';
import type { Role, RoleHandle } from '../roles/role.js';
import { createApp } from '../app.js';
import { databaseTimeouts } from '../db/pg-options.js';
import { serverTimeouts } from '../server-timeouts.js';
import { createRateLimiter } from '../ratelimit/rate-limiter.js';
import { EventRelay } from '../events/relay.js';
import { createApiServices, type ApiServices } from './services.js';
import type { AppDeps } from './deps.js';

export interface ApiHandle extends RoleHandle {
  server: http.Server;
  /** Where the public API answers (loopback address when bound to every interface). */
  url: string;
  services: ApiServices;
  /** The outbox relay, when EVENTS_RELAY_ENABLED. */
  relay: EventRelay | undefined;
}

/**
 * The api role: the public HTTP API (REST of the spec, map editing, admin, ACLs, `/swaggerui`) on
 * PORT, and the outbox relay that moves committed events to the transport.
 */
export const apiRole: Role<ApiHandle> = {
  name: 'api',
  summary: 'public REST API on PORT (+ /swaggerui) and the event relay',
  async start(core: Core): Promise<ApiHandle> {
    const { config, log } = core;
    const services = createApiServices(core);
    const deps: AppDeps = {
      config,
      log,
      metrics: core.metrics,
      ...services,
      rateLimiter: createRateLimiter({
        limitPerMinute: config.rateLimitPerMinute,
        redis: core.redis?.commands,
        prefix: config.redisKeyPrefix,
        tokens: services.tokens,
        log: log.child({ component: 'ratelimit' }),
      }),
      checkReady: async () => {
        const checks = await runReadiness(core.readiness);
        return { database: checks.database ?? false, redis: core.redis ? (checks.redis ?? false) : null };
      },
    };
    const relay = config.eventsRelayEnabled
      ? new EventRelay({
          databaseUrl: core.db.url,
          schema: config.databaseSchema,
          timeouts: databaseTimeouts(config),
          publisher: core.events.publisher,
          log: log.child({ component: 'relay' }),
          metrics: core.metrics,
          partitions: config.eventsRelayPartitions,
          batchSize: config.eventsRelayBatch,
          pollIntervalMs: config.eventsRelayPollMs,
          retentionMs: config.eventsRetentionDays * 86_400_000,
          pruneIntervalMs: 3_600_000,
          housekeeping: () => services.kills.prune(config.killsRetentionDays, 5000),
        })
      : undefined;
    const unhook = relay ? core.outbox.onCommit(() => relay.poke()) : undefined;
    relay?.start();

    const server = http.createServer(serverTimeouts(config), createApp(deps));
    server.keepAliveTimeout = 65_000;
    server.on('clientError', answerClientError);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => resolve());
      });
    } catch (err) {
      unhook?.();
      await relay?.stop();
      throw err;
    }
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
    log.info({ url, swagger: `${url}/swaggerui` }, 'listening');

    let closed: Promise<void> | undefined;
    const handle: ApiHandle = {
      server,
      url,
      services,
      relay,
      readiness: [],
      stopAccepting() {
        closed ??= (async () => {
          log.info('shutting down: draining in-flight requests');
          const done = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
          timer.unref();
          await done;
          clearTimeout(timer);
        })();
        return closed;
      },
      async stop() {
        await handle.stopAccepting();
        unhook?.();
        await relay?.stop();
      },
    };
    return handle;
  },
};

/**
 * Requests Node's HTTP parser rejects (request head over 16 KiB, malformed request line) never reach
 * express: answer them with the same JSON error shape instead of Node's bare status line.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // As Node's own handler: answer only when no in-flight response has started on this socket.
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'header_too_large', 'Request line or headers too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'request_timeout', 'Request timeout']
        : [400, 'Bad Request', 'bad_request', 'Malformed HTTP request'];
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
