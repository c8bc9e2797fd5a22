import http from 'node:http';
import type { Core } from '../core/core.js';
import { runReadiness } from '../core/readiness.js';
import type { Role, RoleHandle } from '../core/role.js';
import { ROLE_INFO } from '../core/role-catalog.js';
import { createApp } from './app.js';
import { databaseTimeouts } from '../db/pg-options.js';
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
  ...ROLE_INFO.api,
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
          sessionUrl: core.db.sessionUrl,
          schema: config.databaseSchema,
          timeouts: databaseTimeouts(config),
          keepConnections: config.databasePoolMin > 0,
          publisher: core.events.publisher,
          origin: core.outbox.origin,
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
    const unhook = relay
      ? core.outbox.onCommit(
          () => relay.poke(),
          () => relay.holdsAll(),
        )
      : undefined;
    relay?.start();

    core.publicHttp.setFallback(createApp(deps));
    let url: string;
    try {
      url = await core.publicHttp.listen();
    } catch (err) {
      unhook?.();
      await relay?.stop();
      throw err;
    }

    log.info(
      { role: 'api', url },
      [
        `api role started: public API on ${url}${relay ? ' and the event relay' : ''}`,
        ...(relay ? [] : ['EVENTS_RELAY_ENABLED is off: this process relays no events (they wait in PostgreSQL for a process that runs the relay)']),
        ...(config.webhooksEnabled ? [] : ['SERVICE_WEBHOOKS_ENABLED is off: /api/maps/{map_id}/webhooks answers 403 webhooks_disabled']),
      ].join('; '),
    );
    const handle: ApiHandle = {
      server: core.publicHttp.httpServer!,
      url,
      services,
      relay,
      readiness: [],
      stopAccepting: () => {
        relay?.stopping();
        return core.publicHttp.stopAccepting();
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
