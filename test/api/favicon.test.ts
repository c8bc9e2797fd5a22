/**
 * The service's icon: the event console and the API explorer link /favicon.svg, and /favicon.ico (which
 * browsers ask for on their own) answers a real icon instead of a 404.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';

describe('favicon', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  it('GET /favicon.ico answers a 32×32 icon (an ICO holding a PNG), cacheable, without a token', async () => {
    const res = await t.fetch('/favicon.ico');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const bytes = Buffer.from(await res.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), one image; its entry: 32×32, 32 bits, the PNG at offset 22.
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([bytes[6], bytes[7], bytes.readUInt16LE(12)]).toEqual([32, 32, 32]);
    const size = bytes.readUInt32LE(14);
    const offset = bytes.readUInt32LE(18);
    expect(offset + size).toBe(bytes.length);
    expect(bytes.subarray(offset, offset + 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    // The shipped icon itself (557 bytes), not merely an icon under 4 KiB.
    expect(bytes.equals(readFileSync(new URL('../../assets/favicon.ico', import.meta.url)))).toBe(true);
  });

  it('GET /favicon.svg answers the SVG icon', async () => {
    const res = await t.fetch('/favicon.svg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*viewBox="0 0 32 32"/);
  });

  it('answers HEAD with the headers and no body', async () => {
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const res = await t.fetch(path, { method: 'HEAD' });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^image\//);
      expect(await res.text(), path).toBe('');
    }
  });

  it('is linked from the event console and the API explorer', async () => {
    const consoleHtml = await (await t.fetch('/console')).text();
    expect(consoleHtml).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    const explorer = await (await t.fetch('/swaggerui/')).text();
    expect(explorer).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    // swagger-ui-dist's own icons are not linked instead.
    expect(explorer).not.toContain('favicon-32x32.png');
  });

  it('counts requests under their own route label', async () => {
    await t.fetch('/favicon.ico');
    const metrics = await (await fetch(`${t.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/mapintel_http_requests_total\{method="GET",route="\/favicon\.ico",status="200"\} [1-9]/);
  });
});
