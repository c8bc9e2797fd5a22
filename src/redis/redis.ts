import { createClient, createCluster, type RedisClientType } from 'redis';
import type { Logger } from '../common/log.js';

/**
 * A Redis connection as this project uses it (any modules, scripts and functions), on a single node
 * or on a Redis Cluster: the command surface is the same. On a cluster every command is routed by its
 * first key, so a script or a MULTI must touch keys of one slot only (src/redis/redis-keys.ts), keyless
 * commands go to a node at random (use the helpers below for PING and raw commands), and SCAN does
 * not exist.
 */
export type Redis = RedisClientType<any, any, any, any, any>;

export interface RedisOptions {
  url: string;
  /** What the connection is for; named in its logs (`redis error` lines) and its CLIENT SETNAME. */
  purpose: string;
  log: Logger;
  /** Commands fail at once while Redis is down (request paths answer 503) instead of queueing. */
  failFast?: boolean;
  /** PEM CA certificates for a rediss:// URL (REDIS_CA_FILE); the public roots when left out. */
  ca?: string;
  /** `url` names a node of a Redis Cluster; the connection discovers the others and routes by key. */
  cluster?: boolean;
  /**
   * On a cluster, connect to a node only when a command needs it (a blocking reader: one connection
   * to the node of the key it reads). Otherwise every master is connected at once, so a later
   * `node-ready` means a reconnection or a new master (a failover), never a first use.
   */
  lazyNodes?: boolean;
}

/** The longest wait between two reconnection attempts: a client is back at most this long after Redis is. */
export const REDIS_RECONNECT_MAX_MS = 5_000;

const reconnectStrategy = (retries: number) => Math.min(retries * 200, REDIS_RECONNECT_MAX_MS);

/** A Redis Cluster connection (created by connectRedis with `cluster: true`). */
export function isClusterConnection(redis: Redis): boolean {
  return 'masters' in redis;
}

/**
 * Creates and connects a client; it reconnects on its own with a capped backoff. With `cluster` the
 * user, password and TLS of the URL apply to every node of the cluster (node-redis connects to the
 * discovered nodes with its `defaults`, not with the root node's URL).
 */
export async function connectRedis(o: RedisOptions): Promise<Redis> {
  const onError = (err: Error) => o.log.warn({ err: { message: err.message }, purpose: o.purpose }, 'redis error');
  if (!o.cluster) {
    const client = createClient({
      url: o.url,
      name: `mapintel-${o.purpose}`,
      socket: { reconnectStrategy, connectTimeout: 5000, ...(o.ca !== undefined ? { tls: true as const, ca: o.ca } : {}) },
      disableOfflineQueue: o.failFast ?? true,
    }) as Redis;
    client.on('error', onError);
    await client.connect();
    return client;
  }
  const url = new URL(o.url);
  const tls = url.protocol === 'rediss:';
  const cluster = createCluster({
    rootNodes: [{ url: o.url }],
    defaults: {
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      name: `mapintel-${o.purpose}`,
      socket:
        tls || o.ca !== undefined
          ? { tls: true, servername: url.hostname, reconnectStrategy, connectTimeout: 5000, ...(o.ca !== undefined ? { ca: o.ca } : {}) }
          : { reconnectStrategy, connectTimeout: 5000 },
      disableOfflineQueue: o.failFast ?? true,
    },
    minimizeConnections: o.lazyNodes ?? false,
  });
  cluster.on('error', onError);
  cluster.on('node-error', onError);
  await cluster.connect();
  return cluster as unknown as Redis;
}

/**
 * Sends a raw command routed by `key` (on a single node: as is). Third-party stores that speak raw
 * commands (the rate limiter's) go through this, since a cluster needs the key to pick the node.
 */
export function sendKeyed<T>(redis: Redis, key: string | undefined, args: string[]): Promise<T> {
  if (isClusterConnection(redis)) {
    const cluster = redis as unknown as { sendCommand(k: string | undefined, ro: boolean | undefined, a: string[]): Promise<T> };
    return cluster.sendCommand(key, false, args);
  }
  return redis.sendCommand(args) as Promise<T>;
}

/** True when every node the connection serves answers PING (on a cluster: every master). */
export async function pingRedis(redis: Redis): Promise<boolean> {
  try {
    if (!isClusterConnection(redis)) return (await redis.ping()) === 'PONG';
    const cluster = redis as unknown as { masters: unknown[]; nodeClient(node: unknown): Promise<Redis> };
    const masters = cluster.masters;
    if (masters.length === 0) return false;
    const replies = await Promise.all(masters.map(async (m) => (await cluster.nodeClient(m)).ping()));
    return replies.every((r) => r === 'PONG');
  } catch {
    return false;
  }
}

/** Where a connection's reconnections are heard (a cluster's: any of its node connections). */
export interface ReconnectSource {
  on(event: 'ready', listener: () => void): unknown;
  off(event: 'ready', listener: () => void): unknown;
}

function reconnectsOf(redis: Redis): ReconnectSource {
  if (!isClusterConnection(redis)) return redis;
  const emitter = redis as unknown as { on(e: string, l: () => void): unknown; off(e: string, l: () => void): unknown };
  return { on: (_e, l) => emitter.on('node-ready', l), off: (_e, l) => emitter.off('node-ready', l) };
}

/** Refused start: the server at REDIS_URL is not what REDIS_CLUSTER says it is. */
export class RedisModeError extends Error {}

/**
 * Asks the server at `url` (INFO cluster) whether it is a cluster node, and refuses a mismatch with
 * REDIS_CLUSTER: a cluster node spoken to as a single server answers MOVED to most keys (roles die or,
 * worse, keep running without events), and a single server has no cluster to discover.
 */
export async function checkRedisMode(url: string, cluster: boolean, log: Logger, ca?: string): Promise<void> {
  const probe = await connectRedis({ url, purpose: 'mode-check', log, failFast: false, ca });
  let enabled: boolean;
  try {
    const info = String(await probe.info('cluster'));
    enabled = /^cluster_enabled:1\s*$/m.test(info);
  } finally {
    await probe.close().catch(() => probe.destroy());
  }
  if (enabled && !cluster) {
    throw new RedisModeError(
      'REDIS_URL names a node of a Redis Cluster (INFO cluster: cluster_enabled:1) but REDIS_CLUSTER is not set: set REDIS_CLUSTER=true',
    );
  }
  if (!enabled && cluster) {
    throw new RedisModeError(
      'REDIS_CLUSTER=true but the server at REDIS_URL is not part of a Redis Cluster (INFO cluster: cluster_enabled:0): unset REDIS_CLUSTER, or point REDIS_URL at a cluster node',
    );
  }
}

/**
 * The Redis connections of one process, by purpose: one shared connection for ordinary commands
 * (rate limits, publishing, history reads, caps), and a dedicated connection for each blocking
 * reader (a blocking XREAD would stall every command queued behind it on a shared connection).
 *
 * On a Redis Cluster both are cluster connections routed by key: a dedicated one opens a connection
 * of its own to the node that owns the key a blocking read names (and follows the key to another node
 * after a failover or a resharding), so a reader blocks only its own connection to that node.
 */
export class RedisConnections {
  private readonly dedicated: Redis[] = [];

  private constructor(
    private readonly opts: { url: string; log: Logger; cluster: boolean; ca?: string },
    /** The shared connection for non-blocking commands. */
    readonly commands: Redis,
  ) {}

  /** Checks the server's mode against `cluster` (refusing a mismatch with RedisModeError), then connects. */
  static async connect(url: string, log: Logger, opts: { cluster?: boolean; ca?: string } = {}): Promise<RedisConnections> {
    const cluster = opts.cluster ?? false;
    await checkRedisMode(url, cluster, log, opts.ca);
    const commands = await connectRedis({ url, log, purpose: 'commands', cluster, ca: opts.ca });
    return new RedisConnections({ url, log, cluster, ca: opts.ca }, commands);
  }

  /** The connections speak to a Redis Cluster. */
  get cluster(): boolean {
    return this.opts.cluster;
  }

  /** Where reconnections of the shared connection are heard (after Redis came back, or a failover). */
  get reconnects(): ReconnectSource {
    return reconnectsOf(this.commands);
  }

  /**
   * A connection of its own for a blocking reader (closed with the others). On a cluster it reaches
   * whichever node owns the key each read names; keys read by one call must share a slot.
   */
  async blocking(purpose: string): Promise<Redis> {
    const client = await connectRedis({
      url: this.opts.url,
      log: this.opts.log,
      purpose,
      failFast: false,
      cluster: this.opts.cluster,
      lazyNodes: true,
      ca: this.opts.ca,
    });
    this.dedicated.push(client);
    return client;
  }

  /** Sends a raw command on the shared connection, routed by `key` on a cluster. */
  send<T>(key: string | undefined, args: string[]): Promise<T> {
    return sendKeyed<T>(this.commands, key, args);
  }

  async ping(): Promise<boolean> {
    return pingRedis(this.commands);
  }

  async close(): Promise<void> {
    // destroy, not close: a blocking read in flight would otherwise hold close() until it times out.
    for (const client of this.dedicated) client.destroy();
    this.dedicated.length = 0;
    await this.commands.close().catch(() => this.commands.destroy());
  }
}
