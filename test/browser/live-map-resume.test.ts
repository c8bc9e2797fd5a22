/**
 * The live map at /console follows the stream from its read (Chromium): edits made between the map
 * read and the stream's start are applied once (the read's `Map-Event-Id` is where the stream resumes),
 * and the header shows who is watching (`GET …/presence`, then `presence_changed` frames).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { launchChromium } from '../support/chromium.js';
import { openStream } from '../support/sse.js';
import { expectPictureMatchesRest, openConsole, picture } from './live-map-support.js';

const FAILURE_SCREENSHOT = '/tmp/live-map-resume.png';
const THERA = 31000005;

describe('the live map follows the stream from its read (Chromium)', () => {
  let t: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestServer({ env: { SERVICE_SSE_ENABLED: 'true' } }), launchChromium()]);
    await importFixture(t.platform);
  }, 900_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function withPage(steps: (page: Page) => Promise<void>): Promise<void> {
    const context = await browser.newContext({ viewport: { width: 1500, height: 950 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    try {
      await steps(page);
      expect(pageErrors).toEqual([]);
    } catch (err) {
      await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => undefined);
      throw new Error(`${(err as Error).message}\n(screenshot of the page: ${FAILURE_SCREENSHOT})`, { cause: err });
    } finally {
      await context.close();
    }
  }

  async function mapWithTwoSystems() {
    const m = await makeMap(t.platform);
    const edit = async (path: string, method: string, body: unknown) => {
      const res = await t.fetch(`/api/maps/${m.map.id}${path}`, {
        method,
        token: m.key,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
    };
    await edit('/systems', 'POST', { solar_system_id: THERA, position_x: 0, position_y: 0 });
    await edit('/systems', 'POST', { solar_system_id: 31000001, position_x: 300, position_y: 0 });
    return { ...m, edit };
  }

  it('applies, once, the edits made after the map was read and before the stream opened', async () => {
    const m = await mapWithTwoSystems();
    await withPage(async (page) => {
      // The systems answer is taken, then edits are made, then the page gets that (older) answer; the
      // same between the connections read and the page.
      let systemsHeld = false;
      let connectionsHeld = false;
      await page.route('**/api/map/systems?*', async (route) => {
        const response = await route.fetch();
        if (!systemsHeld) {
          systemsHeld = true;
          await m.edit(`/systems/${THERA}`, 'PATCH', { position_x: 4242, position_y: 17 });
          await m.edit('/systems', 'POST', { solar_system_id: 31000008, position_x: 600, position_y: 0 });
        }
        await route.fulfill({ response });
      });
      await page.route('**/api/map/connections?*', async (route) => {
        const response = await route.fetch();
        if (!connectionsHeld) {
          connectionsHeld = true;
          await m.edit('/connections', 'POST', { solar_system_source: THERA, solar_system_target: 31000001 });
        }
        await route.fulfill({ response });
      });
      await openConsole(page, t.url, m.key, m.map.slug);
      expect([systemsHeld, connectionsHeld]).toEqual([true, true]);
      const shown = await expectPictureMatchesRest(page, t, m.key, m.map.slug);
      expect(shown.nodes.find((n) => n.ssid === THERA)).toMatchObject({ x: 4242, y: 17 });
      expect(shown.nodes.map((n) => n.ssid).sort()).toEqual([31000001, THERA, 31000008].sort());
      expect(shown.edges).toHaveLength(1);
      // Each of the map's events is listed once (the log's last ones, then the stream's), none twice.
      const log = await t.fetch(`/api/maps/${m.map.id}/events?after=00000000000000000000000000&limit=100`, { token: m.key });
      const ids = ((await log.json()) as { data: { id: string }[] }).data.map((e) => e.id);
      expect(ids).toHaveLength(5);
      await expect
        .poll(async () => (await page.locator('#events li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')))).reverse())
        .toEqual(ids);
      await expect(page.evaluate('window.__mapintelLiveMap.loads')).resolves.toBe(1);
      expect((await picture(page)).nodes).toHaveLength(3);
    });
  }, 120_000);

  it('shows who is watching in the header, and follows connects and disconnects', async () => {
    const m = await makeMap(t.platform);
    const second = await t.platform.admin.issueKey(m.map.id, { character_eve_id: m.ownerEveId, name: 'scout tablet' });
    const unnamed = await t.platform.admin.issueKey(m.map.id, { character_eve_id: m.ownerEveId });
    await withPage(async (page) => {
      await openConsole(page, t.url, m.key, m.map.slug);
      const presence = page.locator('#presence');
      await expect.poll(() => presence.getAttribute('data-connections'), { timeout: 15_000 }).toBe('1');
      expect(await presence.isVisible()).toBe(true);
      const open = (k: string) => openStream(`${t.url}/api/maps/${m.map.slug}/events/stream`, { headers: { authorization: `Bearer ${k}` } });
      const stream = await open(second.api_key);
      const other = await open(unnamed.api_key);
      try {
        await expect.poll(() => presence.getAttribute('data-connections'), { timeout: 15_000 }).toBe('3');
        await expect(presence.textContent()).resolves.toMatch(/^watching: 3 — /);
        await expect(presence.textContent()).resolves.toContain('scout tablet');
        await expect(presence.textContent()).resolves.toContain('an unnamed key');
        other.close();
        await expect.poll(() => presence.getAttribute('data-connections'), { timeout: 15_000 }).toBe('2');
        // Key names only, never key material.
        expect(await presence.textContent()).not.toContain(second.api_key);
        expect(await presence.textContent()).not.toContain(m.key);
      } finally {
        stream.close();
        other.close();
      }
      await expect.poll(() => presence.getAttribute('data-connections'), { timeout: 15_000 }).toBe('1');
      await page.click('#disconnect');
      expect(await presence.isVisible()).toBe(false);
    });
  }, 120_000);
});
