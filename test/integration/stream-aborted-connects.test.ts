/**
 * Clients that disconnect while their stream request is still being checked (a page reload, a flaky
 * mobile network): the request finishes its checks after the client is gone, and must leave nothing
 * behind: no cap slot, no connection in the process's count. The admissions are held at a gate until
 * every client has gone, so each disconnect lands inside the checks, whatever the machine's speed.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { metricSum, scrape } from '../support/metrics.js';
import { openStream, type SseConnection } from '../support/sse.js';
import { waitFor } from '../support/wait.js';
import type { StreamHandle } from '../../src/stream/stream.role.js';
import type { StreamCaps } from '../../src/stream/stream-caps.js';
import { countedConnections } from '../../src/stream/stream-caps.redis.js';

let t: TestServer;
let key: string;
let slug: string;
let mapId: string;
let caps: StreamCaps;

beforeAll(async () => {
  t = await startTestServer({
    redis: true,
    env: { SERVICE_SSE_ENABLED: 'true', STREAM_MAX_PER_KEY: '10', STREAM_MAX_PER_PROCESS: '12', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' },
  });
  const m = await makeMap(t.platform);
  key = m.key;
  slug = m.map.slug;
  mapId = m.map.id;
  const service = (t.server.roles.get('stream') as StreamHandle).service;
  caps = (service as unknown as { d: { caps: StreamCaps } }).d.caps;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** A stream request on a raw socket, the socket kept (not read) so the test can cut it. */
function rawRequest(): net.Socket {
  const { port } = new URL(t.url);
  const s = net.connect({ host: '127.0.0.1', port: Number(port) });
  s.on('error', () => undefined);
  s.write(`GET /api/maps/${slug}/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  return s;
}

const streamRequestLines = () => t.logs.filter((l) => l.msg === 'request' && String(l.url).includes('/events/stream')).length;

describe('stream requests whose client left during the checks', () => {
  it('keep no slot and no connection: the key’s whole cap and the process’s ceiling are free again', async () => {
    // Every admission waits at the gate until the test opens it.
    const admit = caps.admit.bind(caps);
    let arrived = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    caps.admit = async (mapId, keyId) => {
      arrived++;
      await gate;
      return admit(mapId, keyId);
    };
    const sockets = Array.from({ length: 30 }, () => rawRequest());
    await waitFor(() => arrived === 30, 30_000, 'every request at the admission');
    for (const s of sockets) s.destroy();
    // The server has seen every client go (the access log line comes when the connection closes).
    await waitFor(() => streamRequestLines() >= 30, 30_000, 'every request closed');
    open();
    caps.admit = admit;
    await waitFor(async () => metricSum(await scrape(t.opsUrl), 'mapintel_stream_admissions_total') === 30, 30_000, 'every admission answered');

    const metrics = await scrape(t.opsUrl);
    expect(metricSum(metrics, 'mapintel_stream_clients')).toBe(0);
    expect(metricSum(metrics, 'mapintel_stream_leases')).toBe(0);
    expect(caps.held()).toBe(0);
    // The key's ten slots, all free: ten streams of it open, the eleventh is refused.
    const streams: SseConnection[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const c = await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
        streams.push(c);
        expect(c.status).toBe(200);
      }
      const over = await t.fetch(`/api/maps/${slug}/events/stream`, { token: key });
      expect(over.status).toBe(429);
      expect(((await over.json()) as { code: string }).code).toBe('key_stream_limit');
      const open10 = await scrape(t.opsUrl);
      expect(metricSum(open10, 'mapintel_stream_clients')).toBe(10);
      expect(metricSum(open10, 'mapintel_stream_leases')).toBe(10);
      // The map's count in Redis is the ten streams, no more.
      expect((await countedConnections(t.platform.redis!, t.config.redisKeyPrefix, mapId)).map).toBe(10);
    } finally {
      for (const c of streams) c.close();
    }
  }, 120_000);
});
