// The servers bench/stream.mjs measures: the product's stream role, the bare node:http SSE fan-out, and
// Centrifugo. Each start function takes the run's context ({ env, prefix, redis, maps, nextId, closers,
// peers }) and adds a peer to `ctx.peers`: name → { srv, ready(), targets, setRate(r) }.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deleteKeys, freePort, startChild, waitReady } from '../support.mjs';
import { CENTRIFUGO_VERSION, ensureCentrifugo } from '../build-centrifugo.mjs';
import { dist, DIST, envelope, jwt, log, MAPS, redisUrl, ROOT, STREAM_NODE_OPTIONS } from './settings.mjs';

/** The product (`node dist/cli.js serve --roles stream`); its events are published through the product's own Redis publisher. */
export async function startProduct(ctx) {
  const { env, prefix, redis, maps, nextId, closers, peers } = ctx;
  const productPort = await freePort();
  const prof = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
  if (prof) mkdirSync(prof, { recursive: true });
  const product = startChild(
    'product',
    [
      ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      path.join(DIST, 'cli.js'),
      'serve',
      '--roles',
      'stream',
    ],
    {
      PATH: process.env.PATH ?? '',
      ...env,
      NODE_ENV: 'production',
      // As the chart runs a stream pod (stream.nodeOptions); BENCH_STREAM_NODE_OPTIONS= for Node's defaults.
      NODE_OPTIONS: STREAM_NODE_OPTIONS,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      SERVICE_SSE_ENABLED: 'true',
      STREAM_MAX_PER_MAP: '1000000',
      STREAM_MAX_PER_KEY: '1000000',
      STREAM_MAX_PER_PROCESS: '1000000',
      SERVICE_RATE_LIMIT_PER_MINUTE: '1000000',
      PORT: String(productPort),
      HOST: '127.0.0.1',
      OPS_PORT: '0',
      // More settings of the product, e.g. BENCH_PRODUCT_ENV='{"STREAM_HEAP_GROWTH_PERCENT":"0"}'.
      ...JSON.parse(process.env.BENCH_PRODUCT_ENV || '{}'),
    },
    { cwd: ROOT, port: productPort },
  );
  closers.push(() => product.stop());
  // The product's events, spread over the maps, each with sent_at: published as the relay does (each map's
  // stream and channel, and its partition's stream).
  const { RedisEventPublisher, StreamKeys } = await dist('events/transport/redis.js');
  const publisherOf = new RedisEventPublisher(redis, new StreamKeys(prefix, 16), 10_000);
  let rate = 0;
  let seq = 0;
  let publishing = Promise.resolve();
  const publisher = setInterval(() => {
    const count = Math.round(rate / 100);
    if (!count) return;
    const byMap = new Map();
    for (let i = 0; i < count; i++) {
      const map = maps[seq++ % maps.length];
      byMap.set(map.id, [...(byMap.get(map.id) ?? []), envelope(nextId, map.id)]);
    }
    // One round after another, as one relay publishes: a map's publishes never overlap.
    publishing = publishing.then(() => Promise.all([...byMap].map(([mapId, events]) => publisherOf.publish(mapId, events).catch(() => publisherOf.forget()))));
  }, 10);
  closers.push(async () => clearInterval(publisher));
  peers.set('product', {
    srv: product,
    // Listening once it answers (401: the token is wrong on purpose).
    ready: () => waitReady(product, `${product.url}/api/maps/${maps[0].id}/events/stream?token=nope`, 60_000, (res) => res.status === 401),
    targets: maps.map((m) => ({ url: `${product.url}/api/maps/${m.id}/events/stream`, token: m.key })),
    setRate: (r) => (rate = r),
  });
}

/** (a) The minimal node:http SSE fan-out (bench/stream-baseline.mjs). */
export async function startBaseline(ctx) {
  const { maps, closers, peers } = ctx;
  const basePort = await freePort();
  const baseline = startChild(
    'baseline',
    [path.join(ROOT, 'bench/stream-baseline.mjs')],
    { PATH: process.env.PATH ?? '', BASELINE_PORT: String(basePort), MAPS: String(MAPS) },
    { cwd: ROOT, port: basePort },
  );
  closers.push(() => baseline.stop());
  peers.set('baseline', {
    srv: baseline,
    ready: async () => undefined,
    targets: maps.map((_, i) => ({ url: `${baseline.url}/m${i}/` })),
    setRate: (r) => fetch(`${baseline.url}/rate`, { method: 'POST', body: String(r) }),
  });
}

/** (b) Centrifugo, built on first use; answers a note when it could not be built (the bench goes on without it), else ''. */
export async function startCentrifugo(ctx) {
  const { redis, maps, nextId, closers, peers } = ctx;
  const built = await ensureCentrifugo({ log });
  if (built.error) {
    const note = `baseline (b) NOT MEASURED: Centrifugo v${CENTRIFUGO_VERSION} could not be built (${built.error})`;
    log(`!!! ${note}; going on without it`);
    return note;
  }
  const cfPort = await freePort();
  const cfPrefix = `mapintel-bench-stream-cf:${process.pid}-${randomBytes(3).toString('hex')}`;
  const secret = randomBytes(24).toString('hex');
  const apiKey = randomBytes(24).toString('hex');
  const dir = path.join(ROOT, '.cache/bench-stream');
  mkdirSync(dir, { recursive: true });
  const configPath = path.join(dir, `centrifugo-${process.pid}.json`);
  writeFileSync(
    configPath,
    JSON.stringify({
      address: '127.0.0.1',
      port: cfPort,
      log_level: 'error',
      token_hmac_secret_key: secret,
      api_key: apiKey,
      uni_sse: true,
      health: true,
      engine: 'redis',
      redis_address: redisUrl,
      redis_prefix: cfPrefix,
      // A bounded history per channel, as the product keeps per map (hot history for resumption).
      history_size: 1000,
      history_ttl: '600s',
    }),
    { mode: 0o600 },
  );
  const cf = startChild('centrifugo', ['-c', configPath], { PATH: process.env.PATH ?? '' }, { cwd: dir, port: cfPort, command: built.path });
  closers.push(() => cf.stop());
  closers.push(async () => deleteKeys(redis, cfPrefix));
  let rate = 0;
  let seq = 0;
  const publisher = setInterval(() => {
    const count = Math.round(rate / 100);
    if (!count) return;
    const commands = [];
    for (let i = 0; i < count; i++) {
      const n = seq++ % maps.length;
      commands.push({ publish: { channel: `m${n}`, data: envelope(nextId, maps[n].id) } });
    }
    fetch(`${cf.url}/api/batch`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: JSON.stringify({ commands }) }).then(
      (r) => r.arrayBuffer(),
      (err) => log(`centrifugo publish failed: ${err.message}`),
    );
  }, 10);
  closers.push(async () => clearInterval(publisher));
  const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
  peers.set('centrifugo', {
    srv: cf,
    ready: () => waitReady(cf, `${cf.url}/health`, 30_000),
    targets: maps.map((_, i) => ({
      url: `${cf.url}/connection/uni_sse?cf_connect=${encodeURIComponent(JSON.stringify({ token: jwt({ sub: `bench-${i}`, channels: [`m${i}`], exp }, secret) }))}`,
    })),
    setRate: (r) => (rate = r),
  });
  return '';
}
