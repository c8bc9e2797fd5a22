import { createHash } from 'node:crypto';
import type { Redis } from './redis.js';

/**
 * A Lua script run by its SHA1 (EVALSHA), its body sent only when the node does not hold it yet
 * (NOSCRIPT: a new node, a restart, a failover to a replica that never ran it, SCRIPT FLUSH), as
 * node-redis's own client-level scripts do. A script run on every connect or tick then costs a few
 * dozen bytes a call instead of its whole body, which Redis would otherwise read and hash each time.
 */
export class RedisScript {
  readonly sha: string;

  constructor(readonly body: string) {
    this.sha = createHash('sha1').update(body).digest('hex');
  }

  async run(redis: Redis, o: { keys: string[]; arguments: string[] }): Promise<unknown> {
    try {
      return await redis.evalSha(this.sha, o);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      // EVAL runs it and keeps it on that node: later calls there find it by its SHA1.
      return redis.eval(this.body, o);
    }
  }
}
