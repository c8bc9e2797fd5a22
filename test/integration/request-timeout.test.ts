/**
 * A client that sends its headers and part of a body, then stalls, gets 408 `request_timeout` JSON and
 * loses its socket once SERVICE_REQUEST_TIMEOUT_MS has passed (shortened here), instead of holding the
 * socket for Node's default of five minutes.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';

const TIMEOUT_MS = 1000;

interface Outcome {
  response: string;
  closedAfterMs: number;
}

/** Sends `head` and `partialBody` on a raw socket, never the rest; resolves when the server closes it. */
function stall(url: string, head: string, partialBody: string): Promise<Outcome> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port) });
    let response = '';
    let started = 0;
    socket.on('connect', () => {
      started = Date.now();
      socket.write(head + partialBody);
    });
    socket.on('data', (chunk: Buffer) => (response += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ response, closedAfterMs: Date.now() - started }));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`socket still open after 25 s; received: ${JSON.stringify(response)}`));
    }, 25_000).unref();
  });
}

describe('SERVICE_REQUEST_TIMEOUT_MS', () => {
  let t: TestServer;
  let mapId: string;
  let key: string;

  beforeAll(async () => {
    t = await startTestServer({ env: { SERVICE_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
    const m = await makeMap(t.platform);
    mapId = m.map.id;
    key = m.key;
  });
  afterAll(async () => t?.close());

  it('answers 408 request_timeout JSON to a stalled body and closes the socket within the timeout', async () => {
    const body = JSON.stringify({ solar_system_id: 30000142, position_x: 1, position_y: 2 });
    const head =
      `POST /api/maps/${mapId}/systems HTTP/1.1\r\nHost: ${new URL(t.url).host}\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { response, closedAfterMs } = await stall(t.url, head, body.slice(0, 10));
    const [statusLine, ...rest] = response.split('\r\n');
    expect(statusLine).toBe('HTTP/1.1 408 Request Timeout');
    const [headers, payload] = rest.join('\r\n').split('\r\n\r\n') as [string, string];
    expect(headers.toLowerCase()).toContain('content-type: application/json');
    expect(JSON.parse(payload)).toEqual({ error: 'Request timeout', code: 'request_timeout' });
    expect(closedAfterMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    // The timeout plus Node's check interval (a tenth of it) and whatever a busy machine adds; without the
    // setting the socket would stay open for Node's five minutes.
    expect(closedAfterMs).toBeLessThan(TIMEOUT_MS + 10_000);
    expect(t.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  });

  it('lets a client that sends its whole request in time through', async () => {
    const res = await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key });
    expect(res.status).toBe(200);
  });
});
