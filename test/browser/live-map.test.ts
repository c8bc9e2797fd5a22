/**
 * The live map of the event console in a real browser: Chromium opens /console with the demo map's
 * key; the picture (Cytoscape.js's nodes and edges, read through window.__mapintelLiveMap) matches the
 * REST answers, follows edits made through the API without a reload, loads again on `event: reset`,
 * shows a system's details on a click, says why a stream was refused, and draws a map of 500 systems
 * and 800 connections. It writes the screenshots docs/operations.md shows (docs/images/, with UPDATE_SCREENSHOTS=1).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeKill, makeMap } from '../support/factories.js';
import { launchChromium } from '../support/chromium.js';
import { openStream, type SseConnection } from '../support/sse.js';
import { seedDemo } from '../../src/cli/demo.js';
import { expectPictureMatchesRest, openConsole, picture, seedLargeMap, type Picture } from './live-map-support.js';

// The pictures docs/operations.md shows are rewritten with UPDATE_SCREENSHOTS=1; a plain test run writes them
// to .test-results/ (git-ignored), so that running the tests leaves the checkout as it was.
const IMAGES = path.resolve(import.meta.dirname, process.env.UPDATE_SCREENSHOTS === '1' ? '../../docs/images' : '../../.test-results');
const FAILURE_SCREENSHOT = '/tmp/live-map.png';
const THERA = 31000005;

describe('the live map at /console (Chromium)', () => {
  let t: TestServer;
  let browser: Browser;
  let key: string;
  const slug = 'demo';

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      // A small backfill limit, so that a resume after a few missed events gets `event: reset`; a large
      // rate limit, so that the pages' static-info requests (one per system, by address) never run out.
      startTestServer({ env: { SERVICE_SSE_ENABLED: 'true', STREAM_RETRY_MS: '200', STREAM_BACKFILL_MAX: '3', SERVICE_RATE_LIMIT_PER_MINUTE: '5000' } }),
      launchChromium(),
    ]);
    await importFixture(t.platform);
    key = (await seedDemo({ ...t.platform, orm: t.platform.orm })).apiKey;
    mkdirSync(IMAGES, { recursive: true });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Runs `steps` on a fresh page; no page errors allowed; on failure saves a screenshot. */
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

  const api = (p: string, init: RequestInit = {}) =>
    t.fetch(p, { ...init, token: key, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });

  it('draws the demo map as the REST API has it: positions, names, status, connections, signature and kill counts', async () => {
    await withPage(async (page) => {
      await openConsole(page, t.url, key, slug);
      const shown = await expectPictureMatchesRest(page, t, key, slug);
      expect(shown.nodes.length).toBeGreaterThanOrEqual(12);
      expect(shown.edges.length).toBeGreaterThanOrEqual(12);
      // Home is labelled with its tag; Thera carries its class, signatures and kills.
      const home = shown.nodes.find((n) => n.tag === 'HOME')!;
      expect(home.label.split('\n')[0]).toBe('HOME · J104859');
      expect(home.status).toBe('home');
      // Classes come from /api/common/system-static-info, a request per system, in the background.
      await expect.poll(async () => (await picture(page)).nodes.filter((n) => !n.cls).map((n) => n.name), { timeout: 30_000 }).toEqual([]);
      const thera = (await picture(page)).nodes.find((n) => n.ssid === THERA)!;
      expect(thera.label).toMatch(/^Thera\nThera · 3 sigs · ☠ 3$/);
      expect((await picture(page)).nodes.find((n) => n.ssid === 30000142)!.cls).toBe('HS');
      await page.screenshot({ path: path.join(IMAGES, 'live-map.png') });
    });
  }, 120_000);

  it('shows a clicked system’s details: static information, signatures and recent kills', async () => {
    await withPage(async (page) => {
      await openConsole(page, t.url, key, slug);
      // A real click where the system is drawn.
      const box = (await page.locator('#livemap').boundingBox())!;
      const at = (await page.evaluate(`window.__mapintelLiveMap.cy.getElementById('s${THERA}').renderedPosition()`)) as { x: number; y: number };
      await page.mouse.click(box.x + at.x, box.y + at.y);
      const details = page.locator('#details');
      await details.waitFor({ state: 'visible' });
      await expect(details.getAttribute('data-ssid')).resolves.toBe(String(THERA));
      await page.waitForSelector('#details .static dl');
      await page.waitForSelector('#details .sigs li');
      const text = (await details.textContent()) ?? '';
      expect(text).toContain('Thera');
      // Static information (/api/common/system-static-info), the signatures and the recent kills.
      expect(text).toMatch(/class\s*Thera/);
      expect(text).toMatch(/region\s*G-R00031/);
      expect(await page.locator('#details .sigs li').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining('THR-001'), expect.stringContaining('REL-303')]),
      );
      expect(text).toMatch(/Recent kills \(3\)/);
      expect(await page.locator('#details .kills li').count()).toBe(3);
      await page.screenshot({ path: path.join(IMAGES, 'live-map-details.png') });
    });
  }, 120_000);

  it('applies edits made through the API without a reload: system added, connection removed, system moved', async () => {
    await withPage(async (page) => {
      await openConsole(page, t.url, key, slug);
      const before = await picture(page);
      const took: Record<string, number> = {};
      const timed = async (what: string, edit: () => Promise<Response>, seen: (p: Picture) => boolean) => {
        const res = await edit();
        expect(res.status, await res.clone().text()).toBeLessThan(300);
        const start = Date.now();
        await expect.poll(async () => seen(await picture(page)), { timeout: 15_000, interval: 25 }).toBe(true);
        took[what] = Date.now() - start;
      };

      // A system added (AD001 is the one system of the sample not on the demo map).
      await timed(
        'system added',
        () =>
          api(`/api/maps/${slug}/systems`, {
            method: 'POST',
            body: JSON.stringify({ solar_system_id: 32000001, position_x: 1500, position_y: 400, status: 'warning' }),
          }),
        (p) => p.nodes.some((n) => n.ssid === 32000001 && n.x === 1500 && n.y === 400),
      );
      // A connection removed.
      const gone = before.edges[0]!;
      await timed(
        'connection removed',
        () => api(`/api/maps/${slug}/connections/${gone.id}`, { method: 'DELETE' }),
        (p) => !p.edges.some((e) => e.id === gone.id),
      );
      // A system moved and renamed.
      await timed(
        'system moved',
        () =>
          api(`/api/maps/${slug}/systems/${THERA}`, { method: 'PATCH', body: JSON.stringify({ position_x: 777, position_y: -55, custom_name: 'Thera hub' }) }),
        (p) => p.nodes.some((n) => n.ssid === THERA && n.x === 777 && n.y === -55 && n.label.startsWith('Thera hub')),
      );
      // A connection updated, a signature and a kill: counts and styles follow.
      const updated = before.edges[1]!;
      await timed(
        'connection updated',
        () => api(`/api/maps/${slug}/connections/${updated.id}`, { method: 'PATCH', body: JSON.stringify({ mass_status: 2, time_status: 1 }) }),
        (p) => p.edges.some((e) => e.id === updated.id && e.mass === 'critical' && e.time === 'eol'),
      );
      await timed(
        'signature added',
        () =>
          api(`/api/maps/${slug}/systems/32000001/signatures`, {
            method: 'PUT',
            body: JSON.stringify({ signatures: [{ signature_id: 'NEW-001', group: 'Wormhole' }] }),
          }),
        (p) => p.nodes.some((n) => n.ssid === 32000001 && n.sigs === 1),
      );
      const mapId = (await t.platform.admin.listMaps()).find((m) => m.slug === slug)!.id;
      const start = Date.now();
      await makeKill(t.platform, mapId, 32000001, { killTime: new Date(Date.now() - 60_000) });
      await expect.poll(async () => (await picture(page)).nodes.find((n) => n.ssid === 32000001)?.kills, { timeout: 15_000 }).toBe(1);
      took['kill'] = Date.now() - start;
      console.log(`[live-map] API edit to picture, milliseconds: ${JSON.stringify(took)}`);

      // No reload happened, and the picture is the REST state.
      await expect(page.evaluate('window.__mapintelLiveMap.loads')).resolves.toBe(1);
      await expectPictureMatchesRest(page, t, key, slug);
    });
  }, 120_000);

  it('loads the state again from REST on `event: reset` (a resume after more events than the backfill keeps)', async () => {
    await withPage(async (page) => {
      await openConsole(page, t.url, key, slug);
      // One event seen, so that the page has a last id to resume from.
      expect((await api(`/api/maps/${slug}/systems/${THERA}`, { method: 'PATCH', body: JSON.stringify({ position_x: 900, position_y: 0 }) })).status).toBe(200);
      await page.waitForSelector('#events li[data-type="system_metadata_changed"]');
      await page.click('#disconnect');
      // Five moves while away: more than STREAM_BACKFILL_MAX (3), so the resume gets a reset.
      for (let i = 1; i <= 5; i++) {
        const res = await api(`/api/maps/${slug}/systems/${THERA}`, { method: 'PATCH', body: JSON.stringify({ position_x: 900 + i, position_y: 10 * i }) });
        expect(res.status).toBe(200);
      }
      await expect(picture(page).then((p) => p.nodes.find((n) => n.ssid === THERA)!.x)).resolves.not.toBe(905);
      await page.click('#reconnect');
      await page.waitForSelector('#events li[data-type="reset"]');
      await expect.poll(() => page.evaluate('window.__mapintelLiveMap.loads')).toBe(2);
      const thera = (await picture(page)).nodes.find((n) => n.ssid === THERA)!;
      expect([thera.x, thera.y]).toEqual([905, 50]);
      await expectPictureMatchesRest(page, t, key, slug);
    });
  }, 120_000);

  it('says in the page why the stream was refused: 401 for a wrong key, 429 over the per-key cap, 403 with streams off', async () => {
    // 401: a key that does not exist.
    await withPage(async (page) => {
      await openConsole(page, t.url, 'mik_' + 'x'.repeat(40), slug, { expectLive: false });
      await page.waitForSelector('#status.error');
      await expect(page.textContent('#status')).resolves.toMatch(/^This key is not valid here .* \(401\)$/);
    });
    // 429: another key of the map already holds its ten streams (STREAM_MAX_PER_KEY).
    const mapId = (await t.platform.admin.listMaps()).find((m) => m.slug === slug)!.id;
    const second = await t.platform.admin.issueKey(mapId, { character_eve_id: '2117000001', name: 'second' });
    const held: SseConnection[] = [];
    try {
      for (let i = 0; i < 10; i++)
        held.push(await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${second.api_key}` } }));
      expect(held.map((s) => s.status)).toEqual(Array(10).fill(200));
      await withPage(async (page) => {
        await openConsole(page, t.url, second.api_key, slug, { expectLive: false });
        await page.waitForSelector('#status.error');
        await expect(page.textContent('#status')).resolves.toMatch(/Too many requests or streams \(429\)\. Retry in \d+ s\./);
      });
    } finally {
      for (const s of held) s.close();
    }
    // 403: a server with the stream switched off.
    const off = await startTestServer();
    try {
      const m = await makeMap(off.platform);
      await withPage(async (page) => {
        await openConsole(page, off.url, m.key, m.map.slug, { expectLive: false });
        await page.waitForSelector('#status.error');
        await expect(page.textContent('#status')).resolves.toMatch(/Refused \(403\)\. The event stream may be switched off/);
      });
    } finally {
      await off.close();
    }
  }, 180_000);

  it('draws a map of 500 systems and 800 connections and stays usable: zoom and a click on a system', async () => {
    const seeding = Date.now();
    const big = await seedLargeMap(t.platform, 500, 800);
    const seeded = Date.now();
    await withPage(async (page) => {
      await openConsole(page, t.url, big.key, big.slug, { loadTimeout: 120_000 });
      console.log(`[live-map] 500 systems, 800 connections: seeded in ${seeded - seeding} ms, page connected and loaded in ${Date.now() - seeded} ms`);
      const shown = await expectPictureMatchesRest(page, t, big.key, big.slug);
      expect([shown.nodes.length, shown.edges.length]).toEqual([500, 800]);
      // Zoom with the mouse wheel over the map.
      const box = (await page.locator('#livemap').boundingBox())!;
      const zoom = () => page.evaluate('window.__mapintelLiveMap.cy.zoom()') as Promise<number>;
      const before = await zoom();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, -600);
      await expect.poll(zoom, { timeout: 30_000 }).toBeGreaterThan(before);
      // Click a system where it is drawn: its details open.
      const target = shown.nodes[250]!;
      const at = (await page.evaluate(`window.__mapintelLiveMap.cy.getElementById('${target.id}').renderedPosition()`)) as { x: number; y: number };
      await page.evaluate(`window.__mapintelLiveMap.cy.center(window.__mapintelLiveMap.cy.getElementById('${target.id}'))`);
      const centred = (await page.evaluate(`window.__mapintelLiveMap.cy.getElementById('${target.id}').renderedPosition()`)) as { x: number; y: number };
      expect(centred).not.toEqual(at);
      await page.mouse.click(box.x + centred.x, box.y + centred.y);
      await page.waitForSelector(`#details[data-ssid="${target.ssid}"]`, { timeout: 30_000 });
      await expect(page.textContent('#details h2')).resolves.toBe(target.name);
    });
  }, 300_000);
});
