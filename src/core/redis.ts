import { createClient, type RedisClientType } from 'redis';
import type { Logger } from '../common/log.js';

/** A node-redis client as this project uses it (any modules, scripts and functions). */
export type Redis = RedisClientType<any, any, any, any, any>;

export interface RedisOptions {
  url: string;
  /** What the connection is for; named in its logs (`redis error` lines) and its CLIENT SETNAME. */
  purpose: string;
  log: Logger;
  /** Commands fail at once while Redis is down (request paths answer 503) instead of queueing. */
  failFast?: boolean;
}

/** The longest wait between two reconnection attempts: a client is back at most this long after Redis is. */
export const REDIS_RECONNECT_MAX_MS = 5_000;

/** Creates and connects a client; it reconnects on its own with a capped backoff. */
export async function connectRedis(o: RedisOptions): Promise<Redis> {
  const client = createClient({
    url: o.url,
    name: `mapintel-${o.purpose}`,
    socket: { reconnectStrategy: (retries) => Math.min(retries * 200, REDIS_RECONNECT_MAX_MS), connectTimeout: 5000 },
    disableOfflineQueue: o.failFast ?? true,
  }) as Redis;
  client.on('error', (err: Error) => o.log.warn({ err: { message: err.message }, purpose: o.purpose }, 'redis error'));
  await client.connect();
  return client;
}

/**
 * The Redis connections of one process, by purpose: one shared connection for ordinary commands
 * (rate limits, publishing, history reads, leases), and a dedicated connection for each blocking
 * reader (a blocking XREAD would stall every command queued behind it on a shared connection).
 */
export class RedisConnections {
  private readonly dedicated: Redis[] = [];

  private constructor(
    private readonly opts: { url: string; log: Logger },
    /** The shared connection for non-blocking commands. */
    readonly commands: Redis,
  ) {}

  static async connect(url: string, log: Logger): Promise<RedisConnections> {
    const commands = await connectRedis({ url, log, purpose: 'commands' });
    return new RedisConnections({ url, log }, commands);
  }

  /** A connection of its own for a blocking reader (closed with the others). */
  async blocking(purpose: string): Promise<Redis> {
    const client = await connectRedis({ url: this.opts.url, log: this.opts.log, purpose, failFast: false });
    this.dedicated.push(client);
    return client;
  }

  async ping(): Promise<boolean> {
    return this.commands
      .ping()
      .then(() => true)
      .catch(() => false);
  }

  async close(): Promise<void> {
    // destroy, not close: a blocking read in flight would otherwise hold close() until it times out.
    for (const client of this.dedicated) client.destroy();
    this.dedicated.length = 0;
    await this.commands.close().catch(() => this.commands.destroy());
  }
}
