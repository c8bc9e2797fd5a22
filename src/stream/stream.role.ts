import v8 from 'node:v8';
import type { Core } from '../core/core.js';
import type { Role, RoleHandle } from '../core/role.js';
import { ROLE_INFO } from '../core/role-catalog.js';
import { dbOf } from '../db/db.js';
import { WebhookNoticeFeed } from './webhook-notice-feed.js';
import express from 'express';
import { TokenService } from '../auth/token.service.js';
import { createRateLimiter } from '../ratelimit/rate-limiter.js';
import { MapAccess } from '../maps/map-access.js';
import { CachedMapRefRepository } from '../maps/map.repository.js';
import { EventLogService } from '../maps/event-log/event-log.service.js';
import type { Redis } from '../redis/redis.js';
import { RedisEventHistory } from '../events/transport/redis.js';
import type { EventHistory } from '../events/transport/types.js';
import { withDeadline } from '../common/deadline.js';
import { retryFrame } from './sse-frames.js';
import { StreamHub } from './stream-hub.js';
import { capTiming, MemoryStreamCaps, type StreamCaps } from './stream-caps.js';
import { RedisStreamCaps } from './stream-caps.redis.js';
import { STREAM_PATH, StreamService } from './stream.service.js';
import { BackfillBudget } from './backfill.js';
import { streamMetrics } from './stream.metrics.js';
import { RevocationSweep } from './revocation-sweep.js';
import { RedisPresence, registerLocalPresence } from './presence.js';
import { PresenceFeed } from './presence-feed.js';

/** How long a history read waits for Redis (node-redis's own default command timeout). */
const HISTORY_DEADLINE_MS = 5_000;

/** The history, each read failing after HISTORY_DEADLINE_MS (the stream then closes; the client resumes). */
function boundedHistory(h: EventHistory): EventHistory {
  return {
    lastId: (mapId) => withDeadline(h.lastId(mapId), HISTORY_DEADLINE_MS, 'event history read'),
    firstId: (mapId) => withDeadline(h.firstId(mapId), HISTORY_DEADLINE_MS, 'event history read'),
    range: (mapId, afterId, count) => withDeadline(h.range(mapId, afterId, count), HISTORY_DEADLINE_MS, 'event history read'),
  };
}

/** How long a connect's map lookup is reused (the token service trusts a resolved key as long). */
const MAP_CACHE_MS = 3_000;

/** How often open streams are checked against revoked keys (a revocation closes them within about this long). */
const REVOCATION_SWEEP_MS = 2_000;

export interface StreamHandle extends RoleHandle {
  service: StreamService;
  hub: StreamHub;
}

/**
 * The stream role: GET /api/maps/{map_id}/events/stream on the public port. One live read per process
 * of the maps it has connections for (the event tail), fanned out to its connections; connection caps shared by every stream
 * process through Redis (or in-process without REDIS_URL).
 */
/** How often a stream process reads new webhook notices. */
const WEBHOOK_NOTICES_MS = 1_000;

export const streamRole: Role<StreamHandle> = {
  ...ROLE_INFO.stream,
  async start(core: Core): Promise<StreamHandle> {
    const { config, log } = core;
    // Set while the process runs (V8 reads it at each full collection): see STREAM_HEAP_GROWTH_PERCENT.
    if (config.streamHeapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.streamHeapGrowthPercent}`);
    const db = dbOf(core.db.orm);
    const tokens = new TokenService(db, core.secrets.adminToken, core.metrics.tokenLookups);
    // The hub and the service refer to each other (the hub's resync replays through the service), and
    // the metrics read the hub.
    const late: { service?: StreamService; hub?: StreamHub } = {};
    // The bytes of replay pages held at once by every resuming connection of this process.
    const budget = new BackfillBudget(config.streamBackfillBudgetBytes);
    const metrics = streamMetrics(
      core.metrics.registry,
      () => caps.stats(),
      // The hub is made below: a scrape before that counts no map.
      () => late.hub?.maps() ?? 0,
      () => budget.inUse(),
    );
    const limits = { perMap: config.streamMaxPerMap, perKey: config.streamMaxPerKey, perProcess: config.streamMaxPerProcess };
    const timing = capTiming(config.streamLeaseMs);
    // node-redis bounds each command with an AbortSignal.timeout (5 s by default) whose timer fires even
    // after the answer came, building an exception each time: after a burst of connects (two commands
    // each) that was the largest burst of work in this process, seconds later, under live fan-out. The
    // role's commands go through a view of the shared connection without that timer and are bounded by
    // deadlines of their own, cleared when the answer comes (stream-caps.ts, stream.service.ts).
    const redis = core.redis ? (core.redis.commands.withCommandOptions({ timeout: 0 }) as Redis) : undefined;
    const capsLog = log.child({ component: 'stream' });
    const caps: StreamCaps = redis
      ? new RedisStreamCaps(redis, config.redisKeyPrefix, limits, timing, {
          // Each reconnection renews at once: after Redis lost its data the counts are whole again this soon.
          reconnects: core.redis!.reconnects,
          onLost: (count) => {
            metrics.leasesReasserted.inc(count);
            capsLog.warn({ count }, 'stream cap leases written again: Redis no longer had them (restarted or failed over without its data)');
          },
        })
      : new MemoryStreamCaps(limits, timing);
    const presenceSource = redis ? new RedisPresence(redis, config.redisKeyPrefix) : (caps as MemoryStreamCaps);
    // Without Redis the api role of this process reads its presence from these caps.
    if (!redis) registerLocalPresence(core, presenceSource);

    const history = redis ? boundedHistory(new RedisEventHistory(redis, core.events.keys)) : core.events.history;
    const tail = await core.events.tail((how, events, bytes) => {
      metrics.received.inc({ how }, events);
      metrics.receivedBytes.inc({ how }, bytes);
    });
    const hub = new StreamHub(tail, {
      maxBufferedBytes: config.streamMaxBufferBytes,
      maxQueued: config.streamBackfillMax,
      // The tail may have missed events: each connection replays from its last id, then goes live again.
      onResync: (sink, _lastId, fromLog) => void late.service?.resync(sink, fromLog),
      onDelivered: (e, connections) => {
        metrics.delivered.inc(connections);
        metrics.latency.observe(Math.max(0, Date.now() - Date.parse(e.ts)) / 1000);
      },
      onSlowConsumer: () => metrics.slowConsumers.inc(),
      onGap: () => metrics.gaps.inc(),
    });
    late.hub = hub;
    hub.start();
    const service = new StreamService({
      config,
      log: log.child({ component: 'stream' }),
      tokens,
      // A connect's map from a cache trusted as long as the key's resolution is (3 s): no query per connect.
      access: new MapAccess(db, new CachedMapRefRepository(MAP_CACHE_MS)),
      history,
      eventLog: new EventLogService(db),
      backfillBudget: budget,
      hub,
      caps,
      metrics,
      http: core.metrics,
      // Connections open and close only once the role has started: the feed below exists by then.
      onPresence: (mapId) => presence.changed(mapId),
      presenceGreeting: (mapId, keyId): string | undefined => presence.greeting(mapId, keyId),
    });
    late.service = service;
    const presence = new PresenceFeed({
      open: service.open,
      source: presenceSource,
      db,
      redis,
      prefix: config.redisKeyPrefix,
      partitions: config.eventsPartitions,
      log: capsLog,
    });
    presence.start();
    const streams = service;
    // A stream request counts against the same per-minute budgets as the API's requests, once, at
    // connect (shared through Redis; without REDIS_URL this process keeps its own counts).
    const limiter = createRateLimiter({
      limitPerMinute: config.rateLimitPerMinute,
      redis: core.redis?.commands,
      prefix: config.redisKeyPrefix,
      tokens,
      log: log.child({ component: 'ratelimit' }),
    });
    const front = express();
    front.disable('x-powered-by');
    front.set('trust proxy', config.trustedProxies.length ? config.trustedProxies : false);
    front.use(limiter.middleware);
    front.use((req, res) => streams.handle(req, res));
    core.publicHttp.route({ matches: (path) => STREAM_PATH.test(path), handle: (req, res) => front(req, res) });
    const url = await core.publicHttp.listen();

    // Revoked keys: their streams close on every process within a sweep (one query per sweep for every
    // key holding a connection, not one lookup per key).
    // What the workers tell a map's owner about its webhooks, as frames on the map's streams.
    const notices = new WebhookNoticeFeed(db, (mapId, frame) => hub.notify(mapId, frame), log.child({ component: 'stream' }));
    await notices.start(WEBHOOK_NOTICES_MS);
    const sweep = new RevocationSweep(streams.open, (keyIds) => tokens.liveMapKeyIds(keyIds), log.child({ component: 'stream' }));
    sweep.start(REVOCATION_SWEEP_MS);
    if (config.sseEnabled) log.info({ role: 'stream', url, limits }, `stream role started: serving event streams on ${url}/api/maps/{map_id}/events/stream`);
    else
      log.info(
        { role: 'stream', url },
        'stream role started; SERVICE_SSE_ENABLED is off: no event streams are served, GET /api/maps/{map_id}/events/stream answers 403 sse_disabled',
      );

    // Every open connection holds one lease and every lease one open connection, whenever this runs (both
    // change together, in one step): a difference is a slot kept without a connection, or the reverse.
    // The metrics show both; two checks in a row with a difference say so in the log.
    let disagreed = false;
    const audit = setInterval(() => {
      const leases = caps.stats().held;
      const connections = streams.open.size;
      if (leases === connections) disagreed = false;
      else if (disagreed) capsLog.warn({ leases, connections }, 'stream cap leases and open connections disagree');
      else disagreed = true;
    }, timing.renewMs);
    audit.unref();

    let drained: Promise<void> | undefined;
    const handle: StreamHandle = {
      service: streams,
      hub,
      readiness: [],
      stopAccepting() {
        drained ??= (async () => {
          streams.stopAccepting();
          const open = [...streams.open];
          // Clients come back spread out, not all at once onto the next pod.
          const window = Math.min(config.shutdownTimeoutMs / 2, 5_000);
          for (const s of open) s.write(retryFrame(config.streamRetryMs + Math.floor(Math.random() * Math.max(window, 1000))));
          await Promise.all(
            open.map(
              (s, i) =>
                new Promise<void>((resolve) =>
                  setTimeout(
                    () => {
                      s.close('shutdown');
                      resolve();
                    },
                    open.length > 1 ? Math.floor((window * i) / open.length) : 0,
                  ),
                ),
            ),
          );
          await core.publicHttp.stopAccepting();
        })();
        return drained;
      },
      async stop() {
        await handle.stopAccepting();
        sweep.stop();
        notices.stop();
        presence.stop();
        clearInterval(audit);
        streams.stop();
        hub.stop();
        await caps.close();
      },
    };
    return handle;
  },
};
