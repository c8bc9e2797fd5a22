/**
 * WebhookService.planManaged: the operator's one question per reconcile, answered from the real
 * database without changing it: refused as applying would be, or the subscription now and whether
 * applying the spec would change its map, URL or events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';

// Public addresses that are only checked here, never contacted (this server runs no worker).
const PUBLIC = (n: number) => `https://93.184.216.${n}/hook`;

describe('WebhookService.planManaged', () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ env: { SERVICE_WEBHOOKS_ENABLED: 'true' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('says a new subscription differs, and creates nothing', async () => {
    const { map } = await makeMap(s.platform);
    const plan = await s.platform.webhooks.planManaged({
      managedBy: 'kubernetes:plan/new',
      map: map.slug,
      url: PUBLIC(80),
      events: ['map_kill'],
      active: true,
    });
    expect(plan).toEqual({ current: undefined, differs: true });
    expect(await s.platform.webhooks.getManaged('kubernetes:plan/new')).toBeUndefined();
  });

  it('compares URL (canonical) and events (normalised, any order) with the subscription, changing nothing', async () => {
    const { map } = await makeMap(s.platform);
    const spec = { managedBy: 'kubernetes:plan/same', map: map.id, url: PUBLIC(81), events: ['map_kill', 'add_system'], active: true };
    const { subscription } = await s.platform.webhooks.applyManaged({ ...spec, secret: 's'.repeat(44) });
    const same = await s.platform.webhooks.planManaged({ ...spec, url: `HTTPS://93.184.216.81/hook`, events: ['add_system', 'map_kill', 'map_kill'] });
    expect(same).toMatchObject({ differs: false, current: { id: subscription.id, url: PUBLIC(81) } });
    const other = await s.platform.webhooks.planManaged({ ...spec, url: PUBLIC(82) });
    expect(other).toMatchObject({ differs: true, current: { id: subscription.id } });
    expect(await s.platform.webhooks.planManaged({ ...spec, events: ['*'] })).toMatchObject({ differs: true });
    // Nothing was written by the plans.
    expect((await s.platform.webhooks.getManaged(spec.managedBy))!).toMatchObject({ url: PUBLIC(81), events: subscription.events });
  });

  it('answers refusals as values: unknown map, invalid events, a URL with credentials', async () => {
    const { map } = await makeMap(s.platform);
    const base = { managedBy: 'kubernetes:plan/refused', map: map.id, url: PUBLIC(83), events: ['map_kill'], active: true };
    const codeOf = async (spec: typeof base) => {
      const plan = await s.platform.webhooks.planManaged(spec);
      return 'refused' in plan ? { status: plan.refused.status, code: plan.refused.code } : plan;
    };
    expect(await codeOf({ ...base, map: 'no-such-map' })).toEqual({ status: 404, code: 'map_not_found' });
    expect(await codeOf({ ...base, events: ['no_such_event'] })).toMatchObject({ status: 400 });
    expect(await codeOf({ ...base, url: 'https://user:pw@93.184.216.83/hook' })).toMatchObject({ status: 400, code: 'invalid_webhook_url' });
  });
});
