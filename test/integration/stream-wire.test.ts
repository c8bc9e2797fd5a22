/**
 * The stream's bytes on the wire, read from raw TCP sockets: HTTP/1.1 chunked transfer coding that
 * decodes to exactly the frames (live frames are written already framed, several in one write),
 * HTTP/1.0 without chunk framing, and the slow-consumer disconnect at 1 MiB unsent through real
 * sockets while a reading client on the same map receives everything. Real server (api + stream
 * roles), the machine's PostgreSQL and Redis.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicFactory } from 'ulid';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { openStream, type Frame } from '../support/sse.js';
import { madeUpEvent } from '../support/event-catalog.js';
import type { EventEnvelope } from '../../src/events/envelope.js';

let t: TestServer;
let key: string;
let slug: string;
let mapId: string;
const nextId = monotonicFactory();

beforeAll(async () => {
  t = await startTestServer({ redis: true, env: { SERVICE_SSE_ENABLED: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  await importFixture(t.platform);
  const m = await makeMap(t.platform);
  key = m.key;
  slug = m.map.slug;
  mapId = m.map.id;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** A made-up event (its payload is not a kill's: not held to the event catalog). */
function envelope(payload: Record<string, unknown> = {}): EventEnvelope {
  return madeUpEvent({ id: nextId(), type: 'map_kill', map_id: mapId, ts: new Date().toISOString(), payload } as EventEnvelope);
}

/** Publishes events in one call, as the relay does: the stream process's tail reads them as one run. */
async function publish(events: EventEnvelope[]): Promise<void> {
  await t.server.core.events.publisher.publish(mapId, events);
}

/** A raw HTTP request on a TCP socket; collects every byte the server sends. */
function rawRequest(httpVersion: '1.0' | '1.1', method = 'GET') {
  const u = new URL(t.url);
  const socket = net.connect(Number(u.port), u.hostname);
  let bytes = Buffer.alloc(0);
  socket.on('data', (c: Buffer) => (bytes = Buffer.concat([bytes, c])));
  const closed = new Promise<void>((r) => socket.on('close', () => r()));
  socket.write(`${method} /api/maps/${slug}/events/stream HTTP/${httpVersion}\r\nHost: ${u.host}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  return {
    socket,
    closed,
    bytes: () => bytes,
    async until(pred: (b: Buffer) => boolean, timeoutMs = 10_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!pred(bytes)) {
        if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(bytes.toString('latin1').slice(-400))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

function splitHead(b: Buffer): { head: string; body: Buffer } {
  const cut = b.indexOf('\r\n\r\n');
  return { head: b.subarray(0, cut).toString('latin1'), body: b.subarray(cut + 4) };
}

/** Decodes a chunked body; throws on anything that is not exact chunk framing. Returns the data and whether it ended. */
function dechunk(body: Buffer): { data: string; complete: boolean } {
  let at = 0;
  const parts: Buffer[] = [];
  while (at < body.length) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) return { data: Buffer.concat(parts).toString('utf8'), complete: false };
    const sizeText = body.subarray(at, eol).toString('latin1');
    if (!/^[0-9a-f]+$/.test(sizeText)) throw new Error(`bad chunk size ${JSON.stringify(sizeText)} at ${at}`);
    const size = parseInt(sizeText, 16);
    if (body.length < eol + 2 + size + 2) return { data: Buffer.concat(parts).toString('utf8'), complete: false };
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    if (body.subarray(eol + 2 + size, eol + 4 + size).toString('latin1') !== '\r\n') throw new Error(`chunk at ${at} does not end in CRLF`);
    at = eol + 4 + size;
  }
  return { data: Buffer.concat(parts).toString('utf8'), complete: true };
}

const eventIds = (text: string) => [...text.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]);

describe('the stream on the wire', () => {
  it('HTTP/1.1: a chunked body that decodes to exactly the frames, a run of events included', async () => {
    const c = rawRequest('1.1');
    await c.until((b) => b.includes('event: connected'));
    const { head } = splitHead(c.bytes());
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head.toLowerCase()).toContain('transfer-encoding: chunked');
    expect(head.toLowerCase()).toContain('content-type: text/event-stream; charset=utf-8');
    const run = [envelope({ n: 1 }), envelope({ n: 2, text: 'ünïcødé ✓' }), envelope({ n: 3 })];
    await publish(run);
    await c.until((b) => eventIds(dechunk(splitHead(b).body).data).length === 3);
    const decoded = dechunk(splitHead(c.bytes()).body);
    expect(decoded.complete).toBe(true);
    expect(decoded.data.startsWith('retry: ')).toBe(true);
    const frames = decoded.data.split('\n\n').filter((f) => f.startsWith('id: '));
    expect(frames).toEqual(run.map((e) => `id: ${e.id}\ndata: ${JSON.stringify(e)}`));
    c.socket.destroy();
  });

  it('HTTP/1.0: the frames as plain bytes, no chunk framing', async () => {
    const c = rawRequest('1.0');
    await c.until((b) => b.includes('event: connected'));
    const { head } = splitHead(c.bytes());
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head.toLowerCase()).not.toContain('transfer-encoding');
    const run = [envelope({ n: 1 }), envelope({ n: 2 })];
    await publish(run);
    await c.until((b) => eventIds(splitHead(b).body.toString('utf8')).length === 2);
    const body = splitHead(c.bytes()).body.toString('utf8');
    expect(body).toMatch(/^retry: \d+\n\nevent: connected\ndata: \{.*\}\n\n/);
    expect(body.endsWith(run.map((e) => `id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`).join(''))).toBe(true);
    c.socket.destroy();
  });

  it('HEAD: headers only, no body bytes even when events arrive, and the answer ends (no stream is held)', async () => {
    const c = rawRequest('1.1', 'HEAD');
    await c.until((b) => b.includes('\r\n\r\n'));
    await publish([envelope()]);
    await new Promise((r) => setTimeout(r, 500));
    const { head, body } = splitHead(c.bytes());
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head.toLowerCase()).toContain('content-type: text/event-stream; charset=utf-8');
    expect(body.length).toBe(0);
    // The answer is complete: a second request on the same connection is answered too.
    const u = new URL(t.url);
    c.socket.write(`HEAD /api/maps/${slug}/events/stream HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    await c.closed;
    expect(
      c
        .bytes()
        .toString('latin1')
        .match(/HTTP\/1\.1 200 OK/g),
    ).toHaveLength(2);
  });

  it('disconnects a client that stops reading once 1 MiB is unsent; a reading client on the same map gets every event', async () => {
    const slowBefore = await slowConsumerCount();
    const slowClosesBefore = await serverCloses('slow_consumer');
    const stuck = rawRequest('1.1');
    await stuck.until((b) => b.includes('event: connected'));
    stuck.socket.pause();
    const reader = await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
    await reader.waitFor((f) => f.event === 'connected');
    const big = 'x'.repeat(256 * 1024);
    const sent: string[] = [];
    // The kernel's socket buffers take a few MB first; then the server's own buffer grows past 1 MiB.
    for (let round = 0; round < 80 && (await slowConsumerCount()) === slowBefore; round++) {
      const run = [envelope({ big }), envelope({ big })];
      sent.push(...run.map((e) => e.id));
      await publish(run);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await slowConsumerCount()).toBe(slowBefore + 1);
    expect(await serverCloses('slow_consumer')).toBe(slowClosesBefore + 1);
    const got = await reader.waitFor((f: Frame) => f.id !== undefined, sent.length, 30_000);
    expect(got.map((f) => f.id)).toEqual(sent);
    reader.close();
    // The stuck client's connection is gone on the server's side: it finds the end once it reads.
    stuck.socket.resume();
    await stuck.closed;
  }, 60_000);
});

async function serverCloses(reason: string): Promise<number> {
  const text = await (await fetch(`${t.opsUrl}/metrics`)).text();
  return Number(new RegExp(`^mapintel_stream_server_closes_total\\{reason="${reason}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

async function slowConsumerCount(): Promise<number> {
  const text = await (await fetch(`${t.opsUrl}/metrics`)).text();
  return Number(/^mapintel_stream_slow_consumer_disconnects_total (\d+)/m.exec(text)?.[1] ?? NaN);
}
