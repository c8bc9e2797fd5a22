import type { RequestHandler, Request as ExRequest } from 'express';
import { rateLimit, ipKeyGenerator, MemoryStore, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { RedisClientType } from 'redis';
import { hashToken } from '../crypto.js';
import { AppError, errorBody } from '../errors.js';

export interface RateLimiter {
  middleware: RequestHandler;
}

/** The rate-limit key: the API key's hash when a bearer token (or `?token=`) is sent, else the client address. */
export function rateLimitKey(req: ExRequest): string {
  const auth = req.headers.authorization;
  const match = auth ? /^Bearer[ ]+(\S+)/i.exec(auth) : null;
  const queryToken = typeof req.query.token === 'string' ? req.query.token : undefined;
  const token = match?.[1] ?? queryToken;
  if (token) return `key:${hashToken(token).slice(0, 32)}`;
  return `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`;
}

/**
 * Fixed one-minute window per key (decisions §8), with `RateLimit-*` headers on every response and
 * `Retry-After` on 429. With Redis the counters are shared by every process; without, in-process.
 */
export function createRateLimiter(opts: { limitPerMinute: number; redis?: RedisClientType<any, any, any, any, any>; prefix: string }): RateLimiter {
  const store: Store = opts.redis
    ? new RedisStore({
        prefix: `${opts.prefix}rl:`,
        sendCommand: (...args: string[]) => opts.redis!.sendCommand(args) as never,
      })
    : new MemoryStore();
  const middleware = rateLimit({
    windowMs: 60_000,
    limit: opts.limitPerMinute,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    store,
    // A Redis outage surfaces as 503 from the error middleware, never as unlimited traffic.
    passOnStoreError: false,
    keyGenerator: rateLimitKey,
    validate: { trustProxy: false, xForwardedForHeader: false, keyGeneratorIpFallback: false },
    handler: (_req, res) => {
      const err = new AppError(429, 'rate_limited', 'Too many requests: limit is ' + opts.limitPerMinute + ' per minute');
      res.status(429).json(errorBody(err));
    },
  });
  return { middleware };
}
