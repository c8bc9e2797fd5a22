/**
 * Global stream caps across three stream processes (`mapintel serve --roles stream`, the built
 * binary) over one database and Redis: 300 concurrent connects never get more than the per-key or
 * per-map cap admitted, and the slots a SIGKILLed process held are free again within 30 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ENCRYPTION_KEY, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { testDatabaseEnv } from '../support/db.js';
import { freePort } from '../support/redis-server.js';

let t: TestServer;
let slug: string;
let keys: string[] = [];
const procs: { cli: CliProcess; url: string; opsUrl: string }[] = [];
/** Admitted streams, with their responses kept referenced: a collected response would close its stream. */
const held: { abort: AbortController; res: Response }[] = [];

beforeAll(async () => {
  t = await startTestServer({ redis: true, env: { SERVICE_SSE_ENABLED: 'true' } });
  const m = await makeMap(t.platform);
  slug = m.map.slug;
  const owner = m.ownerEveId;
  keys = [m.key];
  for (let i = 0; i < 29; i++) keys.push((await t.platform.admin.issueKey(slug, { character_eve_id: owner })).api_key);
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const cli = startCli(['serve', '--roles', 'stream'], {
      ...testDatabaseEnv(t.config.databaseSchema),
      REDIS_URL: t.config.redisUrl!,
      ...(t.config.redisCluster ? { REDIS_CLUSTER: 'true' } : {}),
      REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
      SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      SERVICE_SSE_ENABLED: 'true',
      // 600 connects from one address within a minute: the rate limit is not what this file tests.
      SERVICE_RATE_LIMIT_PER_MINUTE: '100000',
      PORT: String(port),
      HOST: '127.0.0.1',
      OPS_PORT: '0',
      OPS_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    procs.push({ cli, url: `http://127.0.0.1:${port}`, opsUrl: '' });
  }
  for (const p of procs) {
    await p.cli.waitForLog('listening', 60_000);
    p.opsUrl = (await p.cli.waitForLog('ops port listening')).url as string;
  }
}, 120_000);

afterAll(async () => {
  for (const h of held) h.abort.abort();
  for (const p of procs) await p.cli.stop();
  await t?.close();
});

/** Connects; an admitted stream stays open (held) until `releaseAll`. Returns the status. */
async function connect(base: string, key: string): Promise<number> {
  const abort = new AbortController();
  try {
    const res = await fetch(`${base}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${key}` }, signal: abort.signal });
    if (res.status === 200) held.push({ abort, res });
    else await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

/** Connections the stream processes closed themselves (revoked, slow, ...): none while the tests hold them. */
async function serverCloses(): Promise<number> {
  let n = 0;
  for (const p of procs) {
    if (p.cli.child.exitCode !== null || p.cli.child.signalCode !== null) continue;
    const text = await (await fetch(`${p.opsUrl}/metrics`)).text();
    for (const m of text.matchAll(/^mapintel_stream_server_closes_total\{[^}]*\} (\d+)/gm)) n += Number(m[1]);
  }
  return n;
}

async function releaseAll(): Promise<void> {
  for (const h of held.splice(0)) h.abort.abort();
  await new Promise((r) => setTimeout(r, 500));
}

describe('stream caps across three stream processes', () => {
  it('admits exactly 10 of 300 concurrent connects with one key, whatever process they reach', async () => {
    const statuses = await Promise.all(Array.from({ length: 300 }, (_, i) => connect(procs[i % 3]!.url, keys[0]!)));
    expect(statuses.filter((s) => s === 200).length).toBe(10);
    expect(statuses.filter((s) => s === 429).length).toBe(290);
    // Two revocation sweeps pass over the held streams (every key is valid): none is closed.
    await new Promise((r) => setTimeout(r, 4_500));
    expect(await serverCloses()).toBe(0);
    await releaseAll();
  }, 60_000);

  it('admits exactly 50 of 300 concurrent connects to one map, and frees a SIGKILLed process’s slots within 30 s', async () => {
    const statuses = await Promise.all(Array.from({ length: 300 }, (_, i) => connect(procs[i % 3]!.url, keys[i % 30]!)));
    const tally = statuses.reduce<Record<number, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {});
    expect(statuses.filter((s) => s === 200).length, `statuses: ${JSON.stringify(tally)}`).toBe(50);
    expect(await serverCloses()).toBe(0);
    // The process holding the most of the 50 (17 at least) dies; which one that is depends on which
    // answered first (a slow one may hold none, and killing it would free nothing).
    const admittedBy = [0, 1, 2].map((p) => statuses.filter((s, i) => s === 200 && i % 3 === p).length);
    const victimIndex = admittedBy.indexOf(Math.max(...admittedBy));
    const victim = procs[victimIndex]!;
    const survivor = procs[(victimIndex + 1) % 3]!;
    expect(await connect(survivor.url, keys[5]!)).toBe(429);
    // It dies without releasing anything.
    victim.cli.child.kill('SIGKILL');
    const killedAt = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    // Its leases still count: the map stays full for now.
    expect(await connect(survivor.url, keys[6]!)).toBe(429);
    // Its connections are gone; the map stays full until its leases run out, then admits again.
    let admitted = 0;
    /** What each try after the kill got (ms after the kill, key index, status), for the failure message. */
    const tries: string[] = [];
    while (Date.now() - killedAt < 35_000 && admitted === 0) {
      await new Promise((r) => setTimeout(r, 1000));
      const k = Math.floor(Math.random() * 30);
      const status = await connect(survivor.url, keys[k]!);
      tries.push(`${Date.now() - killedAt} ms key ${k}: ${status}`);
      if (status === 200) admitted++;
    }
    expect(admitted, `tries after the kill: ${tries.join('; ')}`).toBe(1);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    await releaseAll();
  }, 90_000);
});
