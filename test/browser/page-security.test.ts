/**
 * The pages a browser opens carry protective headers (src/console/page-headers.ts): a
 * Content-Security-Policy that allows scripts and styles from the service only, no framing, no
 * sniffing, on every page and asset under /console and /swaggerui/. In Chromium both pages do their
 * normal work under that policy without a single violation reported, and the explorer keeps no
 * pasted token in localStorage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap, makeSystem } from '../support/factories.js';
import { launchChromium } from '../support/chromium.js';
import { moveSystem } from '../support/sse.js';

const SCREENSHOT = '/tmp/page-security.png';

/** Every URL of the two pages: the pages, their own files, and the libraries they load. */
const URLS = [
  '/console',
  '/console/assets/console.css',
  '/console/assets/console.js',
  '/console/assets/cytoscape.min.js',
  '/console/assets/nope.js',
  '/swaggerui/',
  '/swaggerui/explorer-init.js',
  '/swaggerui/explorer.css',
  '/swaggerui/swagger-ui.css',
  '/swaggerui/swagger-ui-bundle.js',
];

describe('page security headers (Chromium)', () => {
  let t: TestServer;
  let browser: Browser;
  let key: string;
  let slug: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestServer({ env: { SERVICE_SSE_ENABLED: 'true' } }), launchChromium()]);
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

  it.each(URLS)('GET %s: a CSP of the service only, no framing, no sniffing', async (url) => {
    const res = await t.fetch(url);
    await res.arrayBuffer();
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/) as [string, ...string[]])
        .map(([name, ...values]) => [name, values]),
    );
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('sends /swaggerui to /swaggerui/ with the same headers', async () => {
    const res = await t.fetch('/swaggerui', { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/swaggerui/');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  /** Runs `steps` on a fresh page that records CSP violations (event and console); asserts none and no page error. */
  async function withPage(steps: (page: Page) => Promise<void>): Promise<void> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (/content security policy/i.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
    await page.exposeFunction('reportViolation', (text: string) => problems.push(`violation: ${text}`));
    await page.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));`,
    });
    try {
      await steps(page);
      // Reports arrive asynchronously: give the last ones a moment.
      await new Promise((r) => setTimeout(r, 300));
      expect(problems).toEqual([]);
    } catch (err) {
      await page.screenshot({ path: SCREENSHOT, fullPage: true }).catch(() => undefined);
      throw new Error(`${(err as Error).message}\n(screenshot of the page: ${SCREENSHOT})`, { cause: err });
    } finally {
      await context.close();
    }
  }

  it('a violation is reported when a page breaks the policy (the listeners work)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const seen: string[] = [];
    page.on('console', (msg) => seen.push(msg.text()));
    try {
      await page.goto(`${t.url}/console`, { waitUntil: 'load' });
      await page.evaluate(`{ const s = document.createElement('script'); s.textContent = 'window.inlineRan = true'; document.body.append(s); }`);
      await expect.poll(() => seen.some((m) => /content security policy/i.test(m))).toBe(true);
      expect(await page.evaluate('window.inlineRan')).toBeUndefined();
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the explorer authorizes, runs "Try it out" and keeps no token in localStorage, with no CSP violation', async () => {
    await withPage(async (page) => {
      await page.goto(`${t.url}/swaggerui/`, { waitUntil: 'domcontentloaded' });
      await expect(page.title()).resolves.toBe('mapintel API explorer');
      const op = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/api/map/systems"]') });
      await op.waitFor({ state: 'visible' });
      await page.locator('.scheme-container button.authorize').click();
      const dialog = page.locator('.dialog-ux .modal-ux');
      const scheme = dialog.locator('.auth-container').filter({ has: page.locator('h4', { hasText: /^map_key\b/ }) });
      await scheme.locator('input').fill(key);
      await scheme.locator('button.authorize').click();
      await scheme.locator('button', { hasText: 'Logout' }).waitFor({ state: 'visible' });
      await scheme.locator('button.btn-done').click();
      await op.locator('.opblock-summary-path[data-path="/api/map/systems"]').click();
      await op.locator('button.try-out__btn').click();
      await op.locator('input[placeholder="slug"]').fill(slug);
      await op.locator('button.execute').click();
      const status = op.locator('.live-responses-table tr.response .response-col_status').first();
      await expect.poll(async () => (await status.textContent())?.trim(), { timeout: 15_000 }).toBe('200');
      // Swagger UI keeps authorizations under "authorized" when persistAuthorization is on.
      const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage })');
      expect(stored).not.toContain(key);
      expect(await page.evaluate(`localStorage.getItem('authorized')`)).toBeNull();
    });
  }, 60_000);

  it('the console connects, draws the map and lists live events, with no CSP violation', async () => {
    await withPage(async (page) => {
      await page.goto(`${t.url}/console`, { waitUntil: 'domcontentloaded' });
      // The style sheet applied: the map's box has the height console.css gives it.
      await page.fill('#key', key);
      await page.fill('#map', slug);
      await page.click('#connect');
      await page.waitForSelector('#status.live');
      await moveSystem(t, slug, key);
      // (Locators, not waitForFunction: the policy refuses the string evaluation it uses.)
      await page.locator('#events li').first().waitFor();
      await page.waitForSelector('#livemap canvas');
      const height = await page.locator('#livemap').evaluate((el) => el.getBoundingClientRect().height);
      expect(height).toBeGreaterThanOrEqual(420);
    });
  }, 60_000);
});
