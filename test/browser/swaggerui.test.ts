/**
 * The API explorer in a real browser: Chromium loads /swaggerui, authorizes with a map key and runs
 * GET /api/map/systems through "Try it out".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap, makeSystem } from '../support/factories.js';
import { launchChromium } from '../support/chromium.js';

const SCREENSHOT = '/tmp/swaggerui.png';

describe('API explorer at /swaggerui (Chromium)', () => {
  let t: TestServer;
  let browser: Browser;
  let key: string;
  let slug: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestServer(), launchChromium()]);
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    key = m.key;
    slug = m.map.slug;
    await makeSystem(t.platform, m.map.id, 30000142, { positionX: 10, positionY: 20 });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Runs `steps` on a fresh page; on failure saves a full-page screenshot for debugging. */
  async function withPage(steps: (page: Page) => Promise<void>): Promise<void> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    try {
      await steps(page);
      expect(pageErrors).toEqual([]);
    } catch (err) {
      await page.screenshot({ path: SCREENSHOT, fullPage: true }).catch(() => undefined);
      throw new Error(`${(err as Error).message}\n(screenshot of the page: ${SCREENSHOT})`, { cause: err });
    } finally {
      await context.close();
    }
  }

  it('authorizes with the map key and runs GET /api/map/systems with "Try it out"', async () => {
    await withPage(async (page) => {
      await page.goto(`${t.url}/swaggerui`, { waitUntil: 'domcontentloaded' });
      await expect(page.title()).resolves.toBe('mapintel API explorer');

      // The UI has loaded the spec from /api/openapi.json.
      const op = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/api/map/systems"]') });
      await op.waitFor({ state: 'visible' });
      await expect(page.locator('.info .title').textContent()).resolves.toContain('mapintel');

      // Authorize the map_key bearer scheme.
      await page.locator('.scheme-container button.authorize').click();
      const dialog = page.locator('.dialog-ux .modal-ux');
      await dialog.waitFor({ state: 'visible' });
      const mapKeyScheme = dialog.locator('.auth-container').filter({ has: page.locator('h4', { hasText: /^map_key\b/ }) });
      await mapKeyScheme.locator('input').fill(key);
      await mapKeyScheme.locator('button.authorize').click();
      // Once authorized the section offers "Logout" and shows the value as ******.
      await mapKeyScheme.locator('button', { hasText: 'Logout' }).waitFor({ state: 'visible' });
      await mapKeyScheme.locator('button.btn-done').click();
      await dialog.waitFor({ state: 'detached' });

      // Expand the operation, fill the selector and execute.
      await op.locator('.opblock-summary-path[data-path="/api/map/systems"]').click();
      await op.locator('button.try-out__btn').click();
      await op.locator('input[placeholder="slug"]').fill(slug);
      await op.locator('button.execute').click();

      const status = op.locator('.live-responses-table tr.response .response-col_status').first();
      await expect.poll(async () => (await status.textContent())?.trim(), { timeout: 15_000 }).toBe('200');
      const body = op.locator('.live-responses-table tr.response .response-col_description pre.microlight').first();
      const text = (await body.textContent()) ?? '';
      expect(text).toContain('"name": "Jita"');
      expect(text).toContain(`"solar_system_id": 30000142`);

      // The request was made with the key: the curl shown carries the bearer header.
      const curl = (await op.locator('.curl-command').textContent()) ?? '';
      expect(curl).toContain(`Authorization: Bearer ${key}`);
      expect(curl).toContain(`/api/map/systems?slug=${slug}`);
    });
  }, 60_000);

  it('shows every operation of the spec with its lock icon, and none on system-static-info and the route finder', async () => {
    await withPage(async (page) => {
      await page.goto(`${t.url}/swaggerui`, { waitUntil: 'domcontentloaded' });
      await page.locator('.opblock').first().waitFor({ state: 'visible' });
      const ops = await page.locator('.opblock').evaluateAll((els) =>
        els.map((el) => ({
          method: el.querySelector('.opblock-summary-method')?.textContent?.trim(),
          path: el.querySelector('.opblock-summary-path')?.getAttribute('data-path'),
          locked: el.querySelector('.authorization__btn') !== null,
        })),
      );
      const expected: [string, string][] = [
        ['GET', '/api/map/systems'],
        ['GET', '/api/map/system'],
        ['GET', '/api/map/connections'],
        ['GET', '/api/map/characters'],
        ['GET', '/api/map/systems-kills'],
        ['GET', '/api/map/character-activity'],
        ['GET', '/api/map/user_characters'],
        ['GET', '/api/map/structure-timers'],
        ['GET', '/api/map/acls'],
        ['POST', '/api/map/acls'],
        ['GET', '/api/common/system-static-info'],
        ['GET', '/api/characters'],
        ['GET', '/api/acls/{id}'],
        ['PUT', '/api/acls/{id}'],
        ['POST', '/api/acls/{acl_id}/members'],
        ['PUT', '/api/acls/{acl_id}/members/{member_id}'],
        ['DELETE', '/api/acls/{acl_id}/members/{member_id}'],
        ['POST', '/route/findClosest'],
        ['GET', '/api/maps/{map_id}/routes'],
      ];
      const open = ['/api/common/system-static-info', '/route/findClosest'];
      for (const [method, path] of expected) {
        const found = ops.find((o) => o.method === method && o.path === path);
        expect(found, `${method} ${path} in the explorer`).toBeDefined();
        expect(found!.locked, `${method} ${path} lock icon`).toBe(!open.includes(path));
      }
    });
  }, 60_000);
});
