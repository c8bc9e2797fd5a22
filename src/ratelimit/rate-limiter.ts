import type { RequestHandler, Request as ExRequest } from 'express';
import { rateLimit, ipKeyGenerator, MemoryStore, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { isClusterConnection, sendKeyed, type Redis } from '../redis/redis.js';
import { hashToken } from '../common/crypto.js';
import { AppError, errorBody } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import { TokenService } from '../auth/token.service.js';
import { presentedToken, requestPrincipal, type PresentedToken } from '../auth/request-token.js';
import { FallbackStore } from './fallback-store.js';

export interface RateLimiter {
  middleware: RequestHandler;
}

/** The token a request presents, with its hash: a bearer token, else `?token=` (the event stream accepts one there). */
function tokenOf(req: ExRequest): PresentedToken | undefined {
  const bearer = presentedToken(req);
  if (bearer) return bearer;
  const query = req.query.token;
  return typeof query === 'string' && TokenService.isWellFormed(query) ? { token: query, hash: hashToken(query) } : undefined;
}

/** Lookups per window of one token whose address has spent its lookup budget (a key resolves once, then it is cached). */
const KEY_LOOKUPS_PER_WINDOW = 10;

/**
 * The rate-limit bucket of a request (decisions §8): a valid API key (or the admin token) has its own,
 * by the key's hash; everything else, unknown keys included, counts against the client address.
 *
 * Telling a key from a made-up one takes a database lookup unless the token service's caches know
 * the token. Those lookups have a budget of their own per address (as many per window as requests),
 * charged before the lookup and given back when the token is a key. Once an address has spent it on
 * unknown tokens, a further token is looked up only when the process's key directory knows its hash
 * (a valid key, or one revoked since the directory was read), within a budget of that token's own;
 * every other token is answered 429 without a lookup. A valid key is therefore never refused for
 * what other clients behind its address sent, and a flood of made-up tokens costs no lookup at all.
 */
function bucketChooser(tokens: TokenService, store: Store, limit: number): (req: ExRequest) => Promise<string> {
  return async (req) => {
    const address = `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`;
    const presented = tokenOf(req);
    if (!presented) return address;
    const { token, hash } = presented;
    // The bearer token's resolution is shared with the rest of the request (request-token.ts).
    const resolve = () => (presented === presentedToken(req) ? requestPrincipal(req, tokens) : tokens.resolveAny(token, hash));
    const ownBucket = `key:${hash.slice(0, 32)}`;
    const cached = tokens.cached(token, hash);
    if (cached !== undefined) return cached ? ownBucket : address;
    if (tokens.knownRecently(token, hash)) return (await resolve()) ? ownBucket : address;
    const lookups = `lookup:${address}`;
    const { totalHits } = await store.increment(lookups);
    if (totalHits > limit) {
      // Over the address's budget: the answer is this bucket (counted once more, it is over the limit:
      // 429), unless the token may be a key, which is looked up within its own bound.
      if (!(await tokens.mayBeKey(token, hash))) return lookups;
      const { totalHits: tokenHits } = await store.increment(`lookup-key:${hash.slice(0, 32)}`);
      if (tokenHits > KEY_LOOKUPS_PER_WINDOW) return lookups;
      if (!(await resolve())) return lookups;
      await store.decrement(lookups);
      return ownBucket;
    }
    const principal = await resolve();
    if (!principal) return address;
    await store.decrement(lookups);
    return ownBucket;
  };
}

/**
 * Fixed one-minute window per bucket (decisions §8), with `RateLimit-*` headers on every response and
 * `Retry-After` on 429. With Redis the counters are shared by every process, and kept in-process
 * while Redis is unreachable (FallbackStore); without Redis, in-process.
 */
export function createRateLimiter(opts: { limitPerMinute: number; redis?: Redis; prefix: string; tokens: TokenService; log?: Logger }): RateLimiter {
  const redis = opts.redis;
  const store: Store = redis
    ? new FallbackStore(
        new RedisStore(
          // Each bucket is one key, one command at a time: on a Redis Cluster the buckets spread over
          // the shards, routed by key (the store loads its scripts on the node of the key it runs them on).
          isClusterConnection(redis)
            ? { prefix: `${opts.prefix}rl:`, sendCommandCluster: ({ key, command }) => sendKeyed(redis, key, command) as never }
            : { prefix: `${opts.prefix}rl:`, sendCommand: (...args: string[]) => redis.sendCommand(args) as never },
        ),
        () => redis.isReady,
        opts.log,
      )
    : new MemoryStore();
  const middleware = rateLimit({
    windowMs: 60_000,
    limit: opts.limitPerMinute,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    store,
    // The fallback store already keeps counting in-process when Redis fails; an error that still
    // reaches here must not turn into unlimited traffic.
    passOnStoreError: false,
    keyGenerator: bucketChooser(opts.tokens, store, opts.limitPerMinute),
    validate: { trustProxy: false, xForwardedForHeader: false, keyGeneratorIpFallback: false },
    handler: (_req, res) => {
      const err = new AppError(429, 'rate_limited', 'Too many requests: limit is ' + opts.limitPerMinute + ' per minute');
      res.status(429).json(errorBody(err));
    },
  });
  return { middleware };
}
