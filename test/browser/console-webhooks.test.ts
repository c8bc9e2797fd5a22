/**
 * The console's webhooks view in a real browser: Chromium opens /console, lists the map's
 * subscriptions with their health, shows the attempt log, and pings, redelivers and recovers through
 * the buttons, against a server with a worker and a loopback receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { launchChromium } from '../support/chromium.js';
import { moveSystem } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { subscribe, toggleWebhooks, WEBHOOKS_ON } from '../support/webhooks.js';
import { apiRole } from '../../src/api/api.role.js';
import { workerRole } from '../../src/worker/worker.role.js';

const SCREENSHOT = '/tmp/console-webhooks.png';

/**
 * Waits until `expression` is true in the page. Polled with page.evaluate: waitForFunction's string
 * predicates are evaluated in a way the console's Content-Security-Policy (`script-src 'self'`, no eval)
 * refuses.
 */
const until = (page: Page, expression: string) => expect.poll(() => page.evaluate(expression), { timeout: 20_000, interval: 50 }).toBe(true);

describe('webhooks view of /console (Chromium)', () => {
  let t: TestServer;
  let browser: Browser;
  let receiver: Receiver;

  beforeAll(async () => {
    [t, browser, receiver] = await Promise.all([startTestServer({ roles: [apiRole, workerRole], env: { ...WEBHOOKS_ON } }), launchChromium(), startReceiver()]);
    await importFixture(t.platform);
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  it('shows subscriptions with their health and attempt log, and pings, redelivers and recovers from the buttons', async () => {
    const { map, key } = await makeMap(t.platform);
    const sub = await subscribe(t, map.id, key, receiver, receiver.url);
    await toggleWebhooks(t, map.id, key);
    const since = new Date(Date.now() - 1_000).toISOString();
    for (const id of [31000005, 31000001]) await moveSystem(t, map.slug, key, id);
    const first = await receiver.waitFor(2, 20_000);
    const eventIds = first.map((r) => String(r.headers['x-service-event-id']));

    const html = await (await t.fetch('/console')).text();
    // Every script is a file of the service (a strict `script-src 'self'` allows the page): no inline script, no inline handler.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\son[a-z]+=/i);

    const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    try {
      await page.goto(`${t.url}/console`, { waitUntil: 'domcontentloaded' });
      await page.fill('#key', key);
      await page.fill('#map', map.slug);
      await page.click('#wh-load');
      const row = page.locator(`#wh-subs tr[data-id="${sub.id}"]`);
      await row.waitFor();
      await expect(row.locator('td.url').textContent()).resolves.toBe(receiver.url);
      await expect(row.locator('td.attempts').textContent()).resolves.toBe('2');
      await expect(row.locator('td.succeeded').textContent()).resolves.toBe('2');
      await expect(row.locator('td.failed').textContent()).resolves.toBe('0');
      await expect(row.locator('td.latency').textContent()).resolves.toMatch(/^\d+ \/ \d+ ms$/);

      await row.locator('button[data-action="attempts"]').click();
      await until(page, 'document.querySelectorAll("#wh-attempts tr").length === 2');
      const logged = await page
        .locator('#wh-attempts tr')
        .evaluateAll((rows) =>
          rows.map((r) => [(r as unknown as { dataset: { eventId: string } }).dataset.eventId, r.querySelector('td.sequence')!.textContent]),
        );
      // Newest first, each with its webhook-sequence.
      expect(logged).toEqual([
        [eventIds[1], '2'],
        [eventIds[0], '1'],
      ]);

      await row.locator('button[data-action="ping"]').click();
      await until(page, 'document.getElementById("wh-status").textContent.startsWith("ping: success (200)")');
      await receiver.waitFor(3, 20_000);
      expect(JSON.parse(receiver.received[2]!.body).type).toBe('ping');

      await page.fill('#wh-event', eventIds[0]!);
      await page.locator(`#wh-subs tr[data-id="${sub.id}"] button[data-action="redeliver"]`).click();
      await until(page, `document.getElementById("wh-status").textContent === "redeliver: add_system ${eventIds[0]} queued"`);
      const again = await receiver.waitFor(4, 20_000);
      expect(again[3]!.headers['x-service-event-id']).toBe(eventIds[0]);
      expect(again[3]!.headers['webhook-sequence']).toBe('1');

      await page.fill('#wh-since', since);
      await page.locator(`#wh-subs tr[data-id="${sub.id}"] button[data-action="recover"]`).click();
      await until(page, 'document.getElementById("wh-status").textContent === "recover: 2 events queued"');
      const recovered = (await receiver.waitFor(6, 20_000)).slice(4);
      expect(recovered.map((r) => r.headers['x-service-event-id'])).toEqual(eventIds);

      // A refused action says why: a recover from before the event log's retention.
      await page.fill('#wh-since', '2001-01-01T00:00:00Z');
      await until(page, 'document.querySelectorAll("#wh-subs tr").length === 1');
      await page.locator(`#wh-subs tr[data-id="${sub.id}"] button[data-action="recover"]`).click();
      await page.waitForSelector('#wh-status.error');
      await expect(page.textContent('#wh-status')).resolves.toMatch(
        /^recover: The server answered 400: `since` is older than the event log holds; the oldest time available is /,
      );
      expect(pageErrors).toEqual([]);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
    } catch (err) {
      await page.screenshot({ path: SCREENSHOT, fullPage: true }).catch(() => undefined);
      throw new Error(`${(err as Error).message}\n(screenshot of the page: ${SCREENSHOT})`, { cause: err });
    } finally {
      await context.close();
    }
  }, 120_000);
});
