/**
 * The live map at /console as a mapper uses it (Chromium): labels readable at the fitted zoom of a
 * 69-system map (level of detail: names at a readable size, overlapping ones left out until the zoom
 * makes room), search by name with zoom-to, a connection's details on a click, the legend in view, the
 * last events of the log on connect as sentences, and a message per kind of key refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { launchChromium } from '../support/chromium.js';
import { seedDemo } from '../../src/cli/demo.js';
import { openConsole, seedLargeMap } from './live-map-support.js';

const FAILURE_SCREENSHOT = '/tmp/live-map-mapper.png';
const THERA = 31000005;

interface Label {
  ssid: number;
  text: string;
  fontPx: number;
  x1: number;
  x2: number;
  y1: number;
  y2: number;
}
/** The labels as drawn, once the level of detail has been laid out for the current zoom. */
async function labels(page: Page): Promise<Label[]> {
  await page.evaluate('window.__mapintelLiveMap.labels.layout()');
  return page.evaluate('window.__mapintelLiveMap.labels.rendered()') as Promise<Label[]>;
}
const overlap = (a: Label, b: Label) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
function overlapping(shown: Label[]): [number, number][] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < shown.length; i++)
    for (let j = i + 1; j < shown.length; j++) if (overlap(shown[i]!, shown[j]!)) pairs.push([shown[i]!.ssid, shown[j]!.ssid]);
  return pairs;
}

describe('the live map for a mapper (Chromium)', () => {
  let t: TestServer;
  let browser: Browser;
  let key: string;
  const slug = 'demo';

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestServer({ env: { SERVICE_SSE_ENABLED: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '5000' } }), launchChromium()]);
    await importFixture(t.platform);
    key = (await seedDemo({ ...t.platform, orm: t.platform.orm })).apiKey;
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

  it('labels every system of a 69-system map readably at the fitted zoom, without overlaps', async () => {
    const big = await seedLargeMap(t.platform, 69, 100, 10);
    await withPage(async (page) => {
      await openConsole(page, t.url, big.key, big.slug);
      const zoom = (await page.evaluate('window.__mapintelLiveMap.cy.zoom()')) as number;
      // Fitted, the two-line labels would be drawn below 7 px: the names are drawn at a readable size instead.
      expect(zoom * 12).toBeLessThan(7);
      const all = await labels(page);
      expect(all).toHaveLength(69);
      const shown = all.filter((l) => l.text);
      expect(shown.map((l) => l.text).sort()).toEqual(Array.from({ length: 69 }, (_, i) => `Grid ${i}`).sort());
      for (const l of shown) expect(l.fontPx).toBeGreaterThanOrEqual(10);
      expect(overlapping(shown)).toEqual([]);
    });
  }, 300_000);

  it('on a denser map leaves out the labels that would overlap, and brings them back zoomed in', async () => {
    const dense = await seedLargeMap(t.platform, 69, 60, 23);
    await withPage(async (page) => {
      await openConsole(page, t.url, dense.key, dense.slug);
      const shown = (await labels(page)).filter((l) => l.text);
      expect(shown.length).toBeGreaterThanOrEqual(20);
      expect(shown.length).toBeLessThan(69);
      for (const l of shown) expect(l.fontPx).toBeGreaterThanOrEqual(10);
      expect(overlapping(shown)).toEqual([]);
      // Zoomed in on a corner: every system in view is labelled, with its full two-line label.
      // (`void`: the page's answer is not the Cytoscape.js core, which Playwright would serialize.)
      await page.evaluate(
        "void (window.__mapintelLiveMap.cy.zoom(1.2), window.__mapintelLiveMap.cy.center(window.__mapintelLiveMap.cy.getElementById('s33000000')))",
      );
      const box = (await page.locator('#livemap').boundingBox())!;
      const inView = (await labels(page)).filter((l) => l.x1 >= 0 && l.x2 <= box.width && l.y1 >= 0 && l.y2 <= box.height);
      expect(inView.length).toBeGreaterThanOrEqual(4);
      expect(inView.filter((l) => !l.text)).toEqual([]);
      expect(overlapping(inView)).toEqual([]);
    });
  }, 300_000);

  it('finds a system by name and zooms to it; says when nothing matches', async () => {
    await withPage(async (page) => {
      await openConsole(page, t.url, key, slug);
      await page.fill('#search', 'zzz-none');
      await expect(page.textContent('#search-results')).resolves.toBe('no system of the map matches');
      await page.fill('#search', 'ther');
      await expect(page.locator('#search-results button').first().textContent()).resolves.toBe('Thera');
      await page.press('#search', 'Enter');
      await page.waitForSelector(`#details[data-ssid="${THERA}"]`);
      expect(await page.locator('#search-results li').count()).toBe(0);
      const box = (await page.locator('#livemap').boundingBox())!;
      const at = (await page.evaluate(`window.__mapintelLiveMap.cy.getElementById('s${THERA}').renderedPosition()`)) as { x: number; y: number };
      expect(Math.abs(at.x - box.width / 2)).toBeLessThan(2);
      expect(Math.abs(at.y - box.height / 2)).toBeLessThan(2);
      expect(await page.evaluate('window.__mapintelLiveMap.cy.zoom()')).toBeGreaterThanOrEqual(1.2);
      const thera = (await labels(page)).find((l) => l.ssid === THERA)!;
      expect(thera.text).toMatch(/^Thera\n/);
      // A click on a result does the same.
      await page.fill('#search', 'J1048');
      const hit = await page.locator('#search-results button').first().getAttribute('data-ssid');
      await expect(page.locator('#search-results button').first().textContent()).resolves.toMatch(/J1048/);
      await page.click('#search-results button');
      await page.waitForSelector(`#details[data-ssid="${hit}"]`);
    });
  }, 120_000);

  it('shows a connection’s details on a click: type, wormhole type, mass, time status, ship size', async () => {
    await withPage(async (page) => {
      await openConsole(page, t.url, key, slug);
      // The connection with a wormhole type whose middle is farthest from any system, zoomed in on.
      const pick = (await page.evaluate(`(() => {
        const cy = window.__mapintelLiveMap.cy;
        let best = null;
        for (const e of cy.edges()) {
          if (!e.data('label')) continue;
          const m = e.midpoint();
          const clear = Math.min(...cy.nodes().map((n) => Math.hypot(n.position('x') - m.x, n.position('y') - m.y)));
          if (!best || clear > best.clear) best = { id: e.id(), clear, m };
        }
        cy.zoom(1); cy.pan({ x: cy.width() / 2 - best.m.x, y: cy.height() / 2 - best.m.y });
        return best.id;
      })()`)) as string;
      const box = (await page.locator('#livemap').boundingBox())!;
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await page.waitForSelector(`#details[data-connection="${pick}"]`);
      const res = await t.fetch(`/api/map/connections?slug=${slug}`, { token: key });
      const all = ((await res.json()) as { data: { id: string; mass_status: number; time_status: number; type: number; wormhole_type: string }[] }).data;
      const c = all.find((x) => x.id === pick)!;
      const facts = await page.locator('#details dl').textContent();
      expect(facts).toContain(`type${['wormhole', 'stargate', 'jump bridge'][c.type]}`);
      expect(facts).toContain(`wormhole${c.wormhole_type}`);
      expect(facts).toContain(`mass${['normal mass', 'half mass', 'critical mass'][c.mass_status]}`);
      expect(facts).toMatch(c.time_status === 0 ? /timefresh/ : /timeend of life/);
      expect(facts).toMatch(/ship size(small|medium|large|freighter|capital)/);
      await expect(page.textContent('#details h2')).resolves.toMatch(/^.+ ⇄ .+$/);
      expect(await page.evaluate(`window.__mapintelLiveMap.cy.getElementById('${pick}').selected()`)).toBe(true);
    });
  }, 120_000);

  it('has the legend in view at load: status fills, class rings, mass colours, end of life, kills', async () => {
    await withPage(async (page) => {
      await openConsole(page, t.url, key, slug);
      const legend = page.locator('#legend');
      expect(await legend.isVisible()).toBe(true);
      const box = (await legend.boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(950);
      expect(box.x + box.width).toBeLessThanOrEqual(1500);
      const text = (await legend.textContent()) ?? '';
      for (const word of ['home', 'dangerous', 'C5', 'Thera', 'critical', 'end of life', 'kills']) expect(text).toContain(word);
      expect(await page.locator('#legend .sw').count()).toBeGreaterThanOrEqual(15);
    });
  }, 120_000);

  it('lists the last events of the map’s log on connect, as sentences', async () => {
    const m = await makeMap(t.platform);
    const edit = (path: string, method: string, body: unknown) =>
      t.fetch(`/api/maps/${m.map.id}${path}`, { method, token: m.key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await edit('/systems', 'POST', { solar_system_id: THERA, position_x: 0, position_y: 0 })).status).toBe(201);
    expect((await edit('/systems', 'POST', { solar_system_id: 31000001, position_x: 200, position_y: 0 })).status).toBe(201);
    expect((await edit('/connections', 'POST', { solar_system_source: THERA, solar_system_target: 31000001, wormhole_type: 'K162' })).status).toBe(201);
    expect((await edit(`/systems/${THERA}`, 'PATCH', { status: 'dangerous', tag: 'T' })).status).toBe(200);
    await withPage(async (page) => {
      await openConsole(page, t.url, m.key, m.map.slug);
      await expect.poll(() => page.locator('#events li.past').count()).toBe(4);
      const sentences = await page.locator('#events li .sentence').allTextContents();
      expect(sentences).toEqual([
        'System Thera: tag T, status dangerous.',
        'Connection Thera ⇄ Sentinel MZ added (K162, wormhole, normal mass, large, fresh).',
        'System Sentinel MZ added.',
        'System Thera added.',
      ]);
      // The payload is there for the curious, folded away.
      expect(await page.locator('#events li code').first().isVisible()).toBe(false);
      // A live event goes on top, as a sentence, once.
      expect((await edit(`/systems/31000001`, 'PATCH', { custom_name: 'Home' })).status).toBe(200);
      await expect.poll(() => page.locator('#events li .sentence').first().textContent()).toBe('System Home: renamed “Home”.');
      expect(await page.locator('#events li').count()).toBe(5);
    });
  }, 120_000);

  it('says what each kind of refused key is and what to use instead', async () => {
    const other = await makeMap(t.platform);
    const acl = await t.fetch(`/api/map/acls?map_id=${other.map.id}`, {
      method: 'POST',
      token: other.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ acl: { name: 'Corp', owner_eve_id: other.ownerEveId } }),
    });
    expect(acl.status).toBe(200);
    const aclKey = ((await acl.json()) as { data: { api_key: string } }).data.api_key;
    const cases: [string, RegExp][] = [
      [aclKey, /^This is an ACL API key \(acl_…\): .*Use a map API key/],
      [ADMIN_TOKEN, /^This is the admin token: .*Use a map API key/],
      ['mik_' + 'x'.repeat(43), /^This key is not valid here .*Paste a map API key/],
      [other.key, /^No such map for this key \(404/],
    ];
    const said: string[] = [];
    for (const [token, expected] of cases)
      await withPage(async (page) => {
        await openConsole(page, t.url, token, slug, { expectLive: false });
        await page.waitForSelector('#status.error');
        const text = (await page.textContent('#status')) ?? '';
        expect(text).toMatch(expected);
        said.push(text);
      });
    expect(new Set(said).size).toBe(4);
  }, 180_000);
});
