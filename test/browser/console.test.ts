/**
 * The event console in a real browser: Chromium opens /console, connects with a map key through the
 * browser's EventSource, shows the map's events live, and resumes after the server drops the
 * connection with nothing lost and nothing shown twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { launchChromium } from '../support/chromium.js';
import { moveSystem } from '../support/sse.js';
import type { StreamHandle } from '../../src/stream/stream.role.js';

const SCREENSHOT = '/tmp/console.png';

describe('event console at /console (Chromium)', () => {
  let t: TestServer;
  let browser: Browser;
  let key: string;
  let slug: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestServer({ env: { SERVICE_SSE_ENABLED: 'true', STREAM_RETRY_MS: '200' } }), launchChromium()]);
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    key = m.key;
    slug = m.map.slug;
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows live events through EventSource and resumes after a dropped connection without loss or repeat', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    try {
      await page.goto(`${t.url}/console`, { waitUntil: 'domcontentloaded' });
      await expect(page.title()).resolves.toBe('mapintel event console');
      await page.fill('#key', key);
      await page.fill('#map', slug);
      await page.click('#connect');
      await page.waitForSelector('#status.live');
      for (let i = 0; i < 3; i++) await moveSystem(t, slug, key);
      // The list starts with the log's last events (li.past); the stream's come after.
      await expect.poll(() => page.locator('#events li:not(.past)').count()).toBeGreaterThanOrEqual(3);

      // The server drops the stream; the page opens it again from the last applied event.
      const stream = t.server.roles.get('stream') as StreamHandle;
      for (const s of stream.service.open) s.close('shutdown');
      await page.waitForSelector('#status:not(.live)');
      for (let i = 0; i < 3; i++) await moveSystem(t, slug, key);
      await page.waitForSelector('#status.live');
      await expect.poll(() => page.locator('#events li:not(.past)').count()).toBeGreaterThanOrEqual(6);
      await new Promise((r) => setTimeout(r, 300));

      const items = page.locator('#events li:not(.past)');
      const ids: string[] = [];
      for (let i = (await items.count()) - 1; i >= 0; i--) ids.push((await items.nth(i).getAttribute('data-id')) ?? '');
      expect(ids.length).toBe(6);
      expect(new Set(ids).size).toBe(6);
      expect([...ids].sort()).toEqual(ids);
      await expect(page.textContent('#last')).resolves.toBe(ids.at(-1));
      await expect(page.textContent('#count')).resolves.toBe('6');
      expect(pageErrors).toEqual([]);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
    } catch (err) {
      await page.screenshot({ path: SCREENSHOT, fullPage: true }).catch(() => undefined);
      throw new Error(`${(err as Error).message}\n(screenshot of the page: ${SCREENSHOT})`, { cause: err });
    } finally {
      await context.close();
    }
  }, 60_000);

  it("decodes the page's icon and /favicon.ico as 32×32 images", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${t.url}/console`, { waitUntil: 'domcontentloaded' });
      const linked = await page.getAttribute('link[rel="icon"]', 'href');
      expect(linked).toBe('/favicon.svg');
      // In the page (a string: the tests' TypeScript has no DOM types).
      const decode = (url: string) =>
        page.evaluate(`new Promise((resolve) => {
          const img = new Image();
          img.onload = () => resolve(img.naturalWidth + 'x' + img.naturalHeight);
          img.onerror = () => resolve('error');
          img.src = ${JSON.stringify(url)};
        })`);
      const sizes = [await decode(linked!), await decode('/favicon.ico')];
      expect(sizes).toEqual(['32x32', '32x32']);
    } finally {
      await context.close();
    }
  });
});
