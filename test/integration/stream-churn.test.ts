/**
 * Churn against the stream caps: three `serve --roles stream` processes (the built binary) on one
 * Redis of the test's own, kept without persistence; clients connecting, reading, never reading,
 * resuming from far back, aborting mid-request and disconnecting at random, against one map and,
 * for half of them, one key. In the middle a stream process is SIGKILLed and started again, and later
 * Redis restarts empty. Every process logs a line when a stream opens and its access line when it
 * closes: from them, the connections open at every moment, per map and per key, are known exactly
 * (a slot is given back after its access line, and taken before its open line), and never pass the
 * caps. Every second each process's RSS is sampled and stays under RSS_BOUND. Once the churn stops,
 * the caps' counts in Redis equal the connections actually open, and each process's lease gauge its
 * connection gauge.
 *
 * On the redis-cluster tier (TEST_REDIS_CLUSTER) the Redis of the test's own is a 3-master cluster,
 * and its restart is a master's: the one serving the map is SIGKILLed, its replica takes over, and it
 * is started again.
 *
 * STREAM_CHURN_SECONDS sets the churn's length (default 30); `make bench-stream-churn` runs it for
 * five minutes. The load is bounded: loopback only, CLIENTS clients each with one request at a time.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ENCRYPTION_KEY, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { testDatabaseEnv, TEST_REDIS_CLUSTER } from '../support/db.js';
import { metricSum, scrape } from '../support/metrics.js';
import { freePort } from '../support/redis-server.js';
import { RestartableRedis } from '../support/restartable-redis.js';
import { mapKey } from '../../src/redis/redis-keys.js';
import { waitFor } from '../support/wait.js';
import { apiRole } from '../../src/api/api.role.js';
import { connectRedis, type Redis } from '../../src/redis/redis.js';
import { madeUpEventsOf } from '../support/event-catalog.js';
import { countedConnections } from '../../src/stream/stream-caps.redis.js';
import { createLogger } from '../../src/common/log.js';

const CHURN_MS = Number(process.env.STREAM_CHURN_SECONDS ?? 30) * 1000;
const PER_MAP = 50;
const PER_KEY = 10;
const LEASE_MS = 9_000;
const CLIENTS = 80;
/** Half the chart's memory limit (1 GiB): a stream process idles at about 170 MiB and peaked at about 350 MiB in this churn. */
const RSS_BOUND = 512 * 1024 * 1024;
const EVENTS = 500;

interface Proc {
  cli: CliProcess;
  port: number;
  url: string;
  opsUrl: string;
  killedAt?: number;
}

const clusterEnv: Record<string, string> = TEST_REDIS_CLUSTER ? { REDIS_CLUSTER: 'true' } : {};

let redis: RestartableRedis;
let t: TestServer;
let inspect: Redis;
let slug: string;
let mapId: string;
let firstId: string;
const keys: string[] = [];
/** The three serving now, by slot. */
const procs: Proc[] = [];
/** Every process started, the killed one included (their logs). */
const started: Proc[] = [];

function procEnv(port: number): Record<string, string> {
  return {
    ...testDatabaseEnv(t.config.databaseSchema),
    DATABASE_POOL_MAX: '4',
    REDIS_URL: redis.url,
    ...clusterEnv,
    REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
    SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    SERVICE_SSE_ENABLED: 'true',
    SERVICE_RATE_LIMIT_PER_MINUTE: '1000000',
    STREAM_MAX_PER_MAP: String(PER_MAP),
    STREAM_MAX_PER_KEY: String(PER_KEY),
    STREAM_LEASE_MS: String(LEASE_MS),
    STREAM_KEEPALIVE_MS: '1000',
    PORT: String(port),
    HOST: '127.0.0.1',
    OPS_PORT: '0',
    OPS_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  };
}

async function startProc(port: number): Promise<Proc> {
  const cli = startCli(['serve', '--roles', 'stream'], procEnv(port));
  const p: Proc = { cli, port, url: `http://127.0.0.1:${port}`, opsUrl: '' };
  started.push(p);
  await cli.waitForLog('listening', 60_000);
  p.opsUrl = (await cli.waitForLog('ops port listening', 30_000)).url as string;
  return p;
}

const alive = (p: Proc) => p.cli.child.exitCode === null && p.cli.child.signalCode === null;

beforeAll(async () => {
  redis = await RestartableRedis.create(TEST_REDIS_CLUSTER, () => mapKey(t.config.redisKeyPrefix, mapId, 'caps:counts'));
  t = await startTestServer({ redis: true, env: { REDIS_URL: redis.url, ...clusterEnv }, roles: [apiRole] });
  inspect = await connectRedis({ url: redis.url, purpose: 'churn-inspect', log: createLogger('silent'), cluster: TEST_REDIS_CLUSTER });
  const m = await makeMap(t.platform);
  slug = m.map.slug;
  mapId = m.map.id;
  keys.push(m.key);
  for (let i = 0; i < 29; i++) keys.push((await t.platform.admin.issueKey(slug, { character_eve_id: m.ownerEveId })).api_key);
  // A history to resume from: about 2 MB, more than a socket's buffers take. Made up (not a kill's
  // payload): not held to the event catalog.
  madeUpEventsOf(mapId);
  const conn = t.platform.orm.em.fork().getConnection();
  await conn.execute(
    `insert into map_events (map_id, type, payload)
     select ?, 'map_kill', jsonb_build_object('n', g, 'pad', repeat('x', 4000)) from generate_series(1, ${EVENTS}) g`,
    [mapId],
  );
  await conn.execute(`select pg_notify('mapintel_events', '')`);
  await waitFor(
    async () =>
      Number((await conn.execute<{ n: string }[]>('select count(*) as n from map_events where map_id = ? and event_id is not null', [mapId]))[0]!.n) === EVENTS,
    60_000,
    'every event given its id',
  );
  firstId = (await conn.execute<{ id: string }[]>('select min(event_id) as id from map_events where map_id = ?', [mapId]))[0]!.id;
  const ports = [await freePort(), await freePort(), await freePort()];
  procs.push(...(await Promise.all(ports.map((port) => startProc(port)))));
}, 180_000);

afterAll(async () => {
  for (const p of started) await p.cli.stop();
  inspect?.destroy();
  await t?.close();
  await redis?.destroy();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (n: number) => Math.floor(Math.random() * n);

type Kind = 'read' | 'silent' | 'abort' | 'resume-read' | 'resume-silent';
const KINDS: Kind[] = ['read', 'silent', 'abort', 'resume-read', 'resume-silent'];

/** What the clients got, by status (0: refused by a dead process, or aborted before an answer). */
const statuses = new Map<number, number>();
/** The churn's sockets open now, destroyed when it stops. */
const churning = new Set<net.Socket>();

/**
 * One stream request on a raw socket. `hold` ms after a 200 the client disconnects (a `silent` or
 * `resume-silent` client reads the status line and nothing after); `abort` disconnects 0–5 ms after
 * sending the request; a refusal is read and closed. Resolves when the socket is closed.
 */
function request(
  port: number,
  key: string,
  kind: Kind,
  hold: number,
  opts: { requestId?: string; onOpen?: () => void; sockets?: Set<net.Socket> } = {},
): Promise<number> {
  return new Promise((resolve) => {
    const resume = kind.startsWith('resume') ? `?last_event_id=${firstId}` : '';
    const s = net.connect({ host: '127.0.0.1', port });
    const active = opts.sockets ?? new Set<net.Socket>();
    active.add(s);
    let status = 0;
    let head = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      if (!active.delete(s)) return;
      s.destroy();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      resolve(status);
    };
    s.on('error', finish);
    s.on('close', finish);
    const id = opts.requestId ? `X-Request-Id: ${opts.requestId}\r\n` : '';
    s.write(`GET /api/maps/${slug}/events/stream${resume} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n${id}\r\n`);
    if (kind === 'abort') {
      timer = setTimeout(finish, Math.random() * 5);
      return;
    }
    timer = setTimeout(finish, 30_000);
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (!m) return;
      status = Number(m[1]);
      s.off('data', onData);
      if (status !== 200) return finish();
      clearTimeout(timer);
      if (hold !== Infinity) timer = setTimeout(finish, hold);
      if (kind.endsWith('silent')) s.pause();
      else s.resume();
      opts.onOpen?.();
    };
    s.on('data', onData);
  });
}

interface Interval {
  proc: number;
  keyId: string;
  from: number;
  to: number;
}

/** Every stream's open interval, from the processes' log lines (a killed process's end when it was killed). */
function intervals(): Interval[] {
  const out: Interval[] = [];
  started.forEach((p, proc) => {
    const logs = p.cli.logs();
    const closes = new Map<string, number>();
    for (const l of logs)
      if (l.msg === 'request' && l.status === 200 && String(l.url).includes('/events/stream')) closes.set(String(l.requestId), Date.parse(String(l.time)));
    for (const l of logs) {
      if (l.msg !== 'stream opened' || l.mapId !== mapId) continue;
      const to = closes.get(String(l.requestId)) ?? p.killedAt ?? Infinity;
      // Its client had gone before it opened (a process that kept the slot anyway): never an open connection.
      if (to < Date.parse(String(l.time))) continue;
      out.push({ proc, keyId: String(l.keyId), from: Date.parse(String(l.time)), to });
    }
  });
  return out;
}

/** The most connections open at once, per map and per key: exactly (every change) and at each second. */
function peaks(all: Interval[], from: number, to: number) {
  // Ends before starts at the same millisecond: a slot is given back before another process takes it.
  const changes = all.flatMap((i) => [{ at: i.from, d: 1, key: i.keyId }, ...(i.to === Infinity ? [] : [{ at: i.to, d: -1, key: i.keyId }])]);
  changes.sort((a, b) => a.at - b.at || a.d - b.d);
  let map = 0;
  let mapPeak = 0;
  const byKey = new Map<string, number>();
  let keyPeak = 0;
  for (const c of changes) {
    map += c.d;
    const k = (byKey.get(c.key) ?? 0) + c.d;
    byKey.set(c.key, k);
    mapPeak = Math.max(mapPeak, map);
    keyPeak = Math.max(keyPeak, k);
  }
  const sampled: { at: number; map: number; key: number }[] = [];
  for (let at = from; at <= to; at += 1000) {
    const open = all.filter((i) => i.from <= at && i.to > at);
    const perKey = new Map<string, number>();
    for (const i of open) perKey.set(i.keyId, (perKey.get(i.keyId) ?? 0) + 1);
    sampled.push({ at, map: open.length, key: Math.max(0, ...perKey.values()) });
  }
  return { mapPeak, keyPeak, sampled };
}

function rssOf(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? Number(kb[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

describe('stream caps under churn', () => {
  it(
    `never admit past 50 per map or 10 per key through ${CHURN_MS / 1000} s of churn, a SIGKILL and a Redis restart, and agree with the open sockets once it stops`,
    async () => {
      const idle = procs.map((p) => rssOf(p.cli.child.pid));
      const begin = Date.now();
      let stopping = false;
      // Long-lived readers (three of the hot key): they hold through the churn, the kill and the restart.
      const holders: { hot: boolean; open: boolean }[] = [];
      const holderSockets = new Set<net.Socket>();
      for (let i = 0; i < 10; i++) {
        const h = { hot: i < 3, open: false };
        holders.push(h);
        void request(procs[i % 3]!.port, i < 3 ? keys[0]! : keys[20 + i]!, 'read', Infinity, {
          requestId: `churn-holder-${i}`,
          onOpen: () => (h.open = true),
          sockets: holderSockets,
        }).then(() => (h.open = false));
      }
      await waitFor(() => holders.every((h) => h.open), 30_000, 'the long-lived readers admitted');

      const rss: number[][] = [];
      const sampler = setInterval(() => rss.push(started.map((p) => (alive(p) ? rssOf(p.cli.child.pid) : 0))), 1000);
      const loops = Array.from({ length: CLIENTS }, async () => {
        while (!stopping) {
          const p = procs[rand(3)]!;
          const key = Math.random() < 0.5 ? keys[0]! : keys[1 + rand(19)]!;
          const status = await request(p.port, key, KINDS[rand(KINDS.length)]!, 200 + rand(3800), { sockets: churning });
          await sleep(status === 200 ? rand(200) : 100 + rand(400));
        }
      });

      // A fifth in: a stream process dies without a word, and a new one takes its place.
      await sleep(CHURN_MS * 0.2);
      const victim = procs[1]!;
      victim.killedAt = Date.now();
      victim.cli.child.kill('SIGKILL');
      procs[1] = await startProc(victim.port);
      // Two fifths in: Redis restarts, without the leases (admissions wait while they are written back,
      // and the churn goes on past that).
      await sleep(Math.max(0, begin + CHURN_MS * 0.4 - Date.now()));
      const redisDownAt = Date.now();
      await redis.restart();
      const redisUpAt = Date.now();
      await sleep(Math.max(0, begin + CHURN_MS - Date.now()));

      stopping = true;
      const stoppedAt = Date.now();
      for (const s of churning) s.destroy();
      await Promise.all(loops);
      clearInterval(sampler);

      const all = intervals();
      const { mapPeak, keyPeak, sampled } = peaks(all, begin, stoppedAt);
      const rssPeak = Math.max(0, ...rss.flat());
      const summary = {
        churnSeconds: CHURN_MS / 1000,
        streamsOpened: all.length,
        statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])),
        mapPeak,
        keyPeak,
        sampledMapPeak: Math.max(...sampled.map((s) => s.map)),
        sampledKeyPeak: Math.max(...sampled.map((s) => s.key)),
        rssPeakMiB: Math.round(rssPeak / 1048576),
        rssPeakMiBByProcess: started.map((_, i) => Math.round(Math.max(0, ...rss.map((r) => r[i] ?? 0)) / 1048576)),
        rssIdleMiBByProcess: idle.map((b) => Math.round(b / 1048576)),
        // The largest RSS of any process in each quarter of the churn: a growth from quarter to quarter would be a leak.
        rssPeakMiBByQuarter: [0, 1, 2, 3].map((q) =>
          Math.round(Math.max(0, ...rss.slice(Math.floor((rss.length * q) / 4), Math.floor((rss.length * (q + 1)) / 4)).flat()) / 1048576),
        ),
        redisDownMs: redisUpAt - redisDownAt,
        loadAverage: os.loadavg().map((l) => l.toFixed(2)),
      };
      console.log(`stream churn: ${JSON.stringify(summary)}`);
      expect(mapPeak, JSON.stringify(summary)).toBeLessThanOrEqual(PER_MAP);
      expect(keyPeak, JSON.stringify(summary)).toBeLessThanOrEqual(PER_KEY);
      expect(rssPeak).toBeLessThan(RSS_BOUND);
      // Real churn: the caps were reached, and nothing answered a server error (503 only while Redis was lost).
      expect(statuses.get(429) ?? 0).toBeGreaterThan(0);
      const failures = started.flatMap((p) => p.cli.logs().filter((l) => l.msg === 'stream request failed'));
      expect(
        [...statuses.keys()].filter((s) => s >= 500 && s !== 503),
        JSON.stringify(failures.slice(0, 3)),
      ).toEqual([]);
      const open = () => holders.filter((h) => h.open);
      // The servers have seen every churn client go: their connections are the readers still open.
      await waitFor(
        async () => {
          let n = 0;
          for (const p of procs) n += metricSum(await scrape(p.opsUrl), 'mapintel_stream_clients') ?? 0;
          return n === open().length;
        },
        30_000,
        'the servers hold only the long-lived readers',
      );
      // The caps' counts in Redis (of processes whose entry has not expired) come to the same within a lease period.
      const hotKeyId = started[0]!.cli.logs().find((l) => l.msg === 'stream opened' && l.requestId === 'churn-holder-0')?.keyId;
      expect(hotKeyId).toBeDefined();
      const counts = async () => {
        const { map, key: hot } = await countedConnections(inspect, t.config.redisKeyPrefix, mapId, String(hotKeyId));
        return { map, hot };
      };
      let agreedAfter = -1;
      await waitFor(
        async () => {
          const c = await counts();
          if (c.map !== open().length || c.hot !== open().filter((h) => h.hot).length) return false;
          agreedAfter = Date.now() - stoppedAt;
          return true;
        },
        30_000,
        'the caps count exactly the open connections',
      );
      console.log(`stream churn at rest: ${JSON.stringify({ agreedMsAfterStop: agreedAfter, openAtRest: open().length, loadAverage: os.loadavg() })}`);
      // Each process: its leases are its connections, and Redis has them all.
      for (const p of procs) {
        const text = await scrape(p.opsUrl);
        const leases = metricSum(text, 'mapintel_stream_leases');
        expect(leases).toBeDefined();
        expect(leases).toBe(metricSum(text, 'mapintel_stream_clients'));
        expect(metricSum(text, 'mapintel_stream_leases_in_redis')).toBe(leases);
      }
      for (const s of holderSockets) s.destroy();
    },
    180_000 + CHURN_MS * 2,
  );
});
