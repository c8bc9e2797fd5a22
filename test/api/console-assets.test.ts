/**
 * The event console's page and scripts are served by the service itself, without a token and without
 * a CDN: the page names each script, and each answers JavaScript, byte for byte the file of assets/console/
 * or, for Cytoscape.js, of the installed package.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';

const require = createRequire(import.meta.url);
const ASSETS = path.resolve(import.meta.dirname, '../../assets/console');

describe('event console scripts', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  it('the page loads only scripts the service serves, in order, Cytoscape.js first', async () => {
    const html = await (await t.fetch('/console')).text();
    const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual([
      '/console/assets/cytoscape.min.js',
      '/console/assets/live-map-api.js',
      '/console/assets/live-map-style.js',
      '/console/assets/live-map-events.js',
      '/console/assets/live-map-labels.js',
      '/console/assets/live-map.js',
      '/console/assets/console.js',
      '/console/assets/webhooks.js',
    ]);
    // Nothing from elsewhere: no absolute URL in any src or href.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const src of scripts) {
      const res = await t.fetch(src!);
      expect(res.status, src).toBe(200);
      expect(res.headers.get('content-type'), src).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('cache-control'), src).toBe('no-cache');
      // The page's own scripts byte for byte (Cytoscape.js: the next test), not merely some text: a
      // route serving another script passed a length of more than 500.
      if (src !== '/console/assets/cytoscape.min.js') {
        expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(path.join(ASSETS, path.basename(src!)))), src).toBe(true);
      }
    }
  });

  it('serves Cytoscape.js as installed, and answers HEAD without a body', async () => {
    const res = await t.fetch('/console/assets/cytoscape.min.js');
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(require.resolve('cytoscape/dist/cytoscape.min.js')))).toBe(true);
    const head = await t.fetch('/console/assets/live-map.js', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answers 404 for a script it does not have', async () => {
    const res = await t.fetch('/console/assets/nope.js');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
