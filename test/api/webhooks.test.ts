import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeCharacter, makeMap } from '../support/factories.js';

// Public addresses that are only checked here, never contacted (this server runs no worker).
const PUBLIC = (n: number) => `https://93.184.216.${n}/hook`;

const SUBSCRIPTION_FIELDS = [
  'active',
  'consecutive_failures',
  'events',
  'id',
  'inserted_at',
  'last_delivery_at',
  'last_error',
  'last_error_at',
  'managed_by',
  'map_id',
  'updated_at',
  'url',
];

describe('webhook management API', () => {
  let s: TestServer;
  let map: { id: string; slug: string };
  let key: string;
  let base: string;

  beforeAll(async () => {
    s = await startTestServer({ env: { SERVICE_WEBHOOKS_ENABLED: 'true' } });
    const made = await makeMap(s.platform);
    map = made.map;
    key = made.key;
    base = `/api/maps/${map.id}/webhooks`;
  });
  afterAll(() => s.close());

  const json = (method: string, body?: unknown) => ({
    method,
    token: key,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });

  it('creates a subscription: 201 with the record and its secret, which the list never shows', async () => {
    const res = await s.fetch(base, json('POST', { url: PUBLIC(1), events: ['add_system', 'map_kill'], active: true }));
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    expect(Object.keys(data).sort()).toEqual([...SUBSCRIPTION_FIELDS, 'secret'].sort());
    expect(data).toMatchObject({ map_id: map.id, url: PUBLIC(1), events: ['add_system', 'map_kill'], active: true, consecutive_failures: 0, managed_by: null });
    expect(data.last_delivery_at).toBeNull();
    expect(typeof data.secret).toBe('string');
    expect(data.secret as string).toHaveLength(44);
    expect(Buffer.from(data.secret as string, 'base64')).toHaveLength(32);
    expect(data.inserted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const list = await s.fetch(base, { token: key });
    expect(list.status).toBe(200);
    const listed = ((await list.json()) as { data: Record<string, unknown>[] }).data;
    expect(listed).toHaveLength(1);
    expect(Object.keys(listed[0]!).sort()).toEqual(SUBSCRIPTION_FIELDS);
    expect(listed[0]!.id).toBe(data.id);
    // The secret is stored encrypted, never in clear.
    const stored = await s.platform.orm.em
      .getConnection()
      .execute<{ secret_encrypted: string }[]>('select secret_encrypted from webhook_subscriptions where id = ?', [data.id]);
    expect(stored[0]!.secret_encrypted).not.toContain(data.secret as string);
  });

  it('answers on the map slug as on its id, and updates, rotates and deletes', async () => {
    const created = (
      (await (await s.fetch(`/api/maps/${map.slug}/webhooks`, json('POST', { url: PUBLIC(2), events: ['*'] }))).json()) as {
        data: { id: string; secret: string; active: boolean; events: string[] };
      }
    ).data;
    expect(created.active).toBe(true);
    expect(created.events).toEqual(['*']);

    const upd = await s.fetch(`${base}/${created.id}`, json('PUT', { events: ['connection_added', 'connection_added'], active: false }));
    expect(upd.status).toBe(200);
    const updated = ((await upd.json()) as { data: Record<string, unknown> }).data;
    expect(updated).toMatchObject({ id: created.id, url: PUBLIC(2), events: ['connection_added'], active: false });
    expect(updated).not.toHaveProperty('secret');

    // `active: true` resets the failure count, also on a subscription that is still active.
    const bump = (n: number) =>
      s.platform.orm.em.fork().getConnection().execute('update webhook_subscriptions set consecutive_failures = ? where id = ?', [n, created.id]);
    for (const [before, body] of [
      [3, { active: true }], // off → on
      [2, { active: true }], // on → on
    ] as const) {
      await bump(before);
      const res = await s.fetch(`${base}/${created.id}`, json('PUT', body));
      expect(((await res.json()) as { data: Record<string, unknown> }).data).toMatchObject({ active: true, consecutive_failures: 0 });
    }
    await bump(4);
    const other = await s.fetch(`${base}/${created.id}`, json('PUT', { events: ['map_kill'] }));
    expect(((await other.json()) as { data: Record<string, unknown> }).data).toMatchObject({ active: true, consecutive_failures: 4 });

    const rot = await s.fetch(`${base}/${created.id}/rotate-secret`, json('POST'));
    expect(rot.status).toBe(200);
    const rotated = (await rot.json()) as { data: Record<string, unknown> };
    expect(Object.keys(rotated.data)).toEqual(['secret']);
    expect(rotated.data.secret).toHaveLength(44);
    expect(rotated.data.secret).not.toBe(created.secret);

    const del = await s.fetch(`${base}/${created.id}`, { method: 'DELETE', token: key });
    expect(del.status).toBe(204);
    expect(await del.text()).toBe('');
    expect((await s.fetch(`${base}/${created.id}`, json('PUT', { active: true }))).status).toBe(404);
    const gone = await s.fetch(`${base}/${created.id}`, { method: 'DELETE', token: key });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ error: 'Webhook not found', code: 'webhook_not_found' });
  });

  it('refuses a second subscription to the same URL and a sixth one (409)', async () => {
    const dup = await s.fetch(base, json('POST', { url: PUBLIC(1), events: ['*'] }));
    expect(dup.status).toBe(409);
    expect(((await dup.json()) as { code: string }).code).toBe('webhook_url_exists');
    const { map: m2, key: k2 } = await makeMap(s.platform);
    const b2 = `/api/maps/${m2.id}/webhooks`;
    const results = await Promise.all(
      [10, 11, 12, 13, 14, 15, 16].map((n) =>
        s.fetch(b2, { method: 'POST', token: k2, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: PUBLIC(n), events: ['*'] }) }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 201, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(((await r.json()) as { code: string }).code).toBe('webhook_limit_reached');
    const listed = ((await (await s.fetch(b2, { token: k2 })).json()) as { data: unknown[] }).data;
    expect(listed).toHaveLength(5);
  });

  it('stores a URL in one spelling, so two spellings of one endpoint are the same URL (409)', async () => {
    const { map: m3, key: k3 } = await makeMap(s.platform);
    const b3 = `/api/maps/${m3.id}/webhooks`;
    const post = (url: string) =>
      s.fetch(b3, { method: 'POST', token: k3, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, events: ['*'] }) });
    const first = await post(' HTTPS://93.184.216.60:443/Hook?a=1#top ');
    expect(first.status).toBe(201);
    expect(((await first.json()) as { data: { url: string } }).data.url).toBe('https://93.184.216.60/Hook?a=1');
    for (const spelling of ['https://93.184.216.60/Hook?a=1', 'https://93.184.216.60:443/Hook?a=1', 'HTTPS://93.184.216.60/Hook?a=1#other']) {
      const dup = await post(spelling);
      expect(dup.status, spelling).toBe(409);
      expect(((await dup.json()) as { code: string }).code).toBe('webhook_url_exists');
    }
    // The path's case and the query are part of the endpoint.
    expect((await post('https://93.184.216.60/hook?a=1')).status).toBe(201);
    const listed = ((await (await s.fetch(b3, { token: k3 })).json()) as { data: { url: string }[] }).data.map((d) => d.url).sort();
    expect(listed).toEqual(['https://93.184.216.60/Hook?a=1', 'https://93.184.216.60/hook?a=1']);
  });

  it.each([
    ['http://93.184.216.50/hook', 'must use https'],
    ['https://[::ffff:0:7f00:1]/hook', 'resolves to public addresses only'],
    ['https://93.184.216.53/a\r\nX-Injected: 1', 'control characters'],
    ['https://93.184.216.54/a b', 'spaces'],
    ['https://93.184.216.55/\u0000', 'NUL character'],
    ['https://127.0.0.1/hook', 'resolves to public addresses only'],
    ['https://10.1.2.3/hook', 'resolves to public addresses only'],
    ['https://169.254.169.254/latest', 'resolves to public addresses only'],
    ['https://100.64.0.1/', 'resolves to public addresses only'],
    ['https://[::1]/hook', 'resolves to public addresses only'],
    ['https://[::ffff:127.0.0.1]/hook', 'resolves to public addresses only'],
    ['https://[fd00:ec2::254]/', 'resolves to public addresses only'],
    ['https://localhost/hook', 'resolves to public addresses only'],
    ['https://user:pw@93.184.216.51/', 'credentials'],
    ['not a url', 'absolute URL'],
    [`https://93.184.216.52/${'a'.repeat(2000)}`, '2000'],
  ])('refuses the URL %s with 400 invalid_webhook_url and creates nothing', async (url, why) => {
    const before = ((await (await s.fetch(base, { token: key })).json()) as { data: unknown[] }).data.length;
    const res = await s.fetch(base, json('POST', { url, events: ['*'] }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; details?: { field: string; message: string }[]; error: string };
    expect(['invalid_webhook_url', 'validation_failed']).toContain(body.code);
    expect(JSON.stringify(body)).toContain(why);
    expect(((await (await s.fetch(base, { token: key })).json()) as { data: unknown[] }).data.length).toBe(before);
  });

  it.each([
    ['http://93.184.216.50/hook', 'must use https'],
    ['https://127.0.0.1/hook', 'must name a host that resolves to public addresses only'],
    ['https://localhost/hook', 'must name a host that resolves to public addresses only'],
    ['https://192.168.1.20/hook', 'must name a host that resolves to public addresses only'],
  ])('says, when it refuses %s, that SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS=true allows such receivers', async (url, why) => {
    const res = await s.fetch(base, json('POST', { url, events: ['*'] }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; error: string; details: { field: string; message: string }[] };
    expect(body.code).toBe('invalid_webhook_url');
    expect(body.error).toContain(why);
    expect(body.error).toContain('SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS=true allows http and local or private receivers (for development only)');
    expect(body.details).toEqual([{ field: 'url', message: expect.stringContaining(why) }]);
  });

  it.each([
    ['ftp://93.184.216.56/hook', 'must use https'],
    ['https://user:pw@93.184.216.57/', 'credentials'],
  ])('does not point to SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS when it would not allow %s either', async (url, why) => {
    const res = await s.fetch(base, json('POST', { url, events: ['*'] }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string };
    expect(body.error).toContain(why);
    expect(body.error).not.toContain('SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS');
  });

  it('validates event names as the stream filter does', async () => {
    const bad = await s.fetch(base, json('POST', { url: PUBLIC(60), events: ['add_system', 'bogus'] }));
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { code: string; details: { field: string; message: string }[] };
    expect(body.code).toBe('validation_failed');
    expect(body.details[0]!.field).toBe('events');
    expect(body.details[0]!.message).toContain('"bogus"');
    // Names the reference defines are accepted, character_updated too though this service never emits it.
    const ok = await s.fetch(base, json('POST', { url: PUBLIC(61), events: ['character_added', 'character_updated'] }));
    expect(ok.status).toBe(201);
    const empty = await s.fetch(base, json('POST', { url: PUBLIC(62), events: [] }));
    expect(empty.status).toBe(400);
    const extra = await s.fetch(base, json('POST', { url: PUBLIC(63), events: ['*'], secret: 'mine' }));
    expect(extra.status).toBe(400);
    const id = ((await ok.json()) as { data: { id: string } }).data.id;
    expect((await s.fetch(`${base}/${id}`, { method: 'DELETE', token: key })).status).toBe(204);
  });

  it('lets only the map owner toggle, routed before /webhooks/{id}', async () => {
    const on = await s.fetch(`${base}/toggle`, json('PUT', { enabled: true }));
    expect(on.status).toBe(200);
    expect(await on.json()).toEqual({ data: { webhooks_enabled: true } });
    const row = await s.platform.orm.em.getConnection().execute<{ webhooks_enabled: boolean }[]>('select webhooks_enabled from maps where id = ?', [map.id]);
    expect(row[0]!.webhooks_enabled).toBe(true);
    const off = await s.fetch(`${base}/toggle`, json('PUT', { enabled: false }));
    expect(await off.json()).toEqual({ data: { webhooks_enabled: false } });

    // A second key of the same map, belonging to another character.
    const other = await makeCharacter(s.platform);
    const issued = await s.platform.admin.issueKey(map.id, { character_eve_id: other.eve_id });
    const denied = await s.fetch(`${base}/toggle`, {
      method: 'PUT',
      token: issued.api_key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { code: string }).code).toBe('not_map_owner');
    const bad = await s.fetch(`${base}/toggle`, json('PUT', { enabled: 'yes' }));
    expect(bad.status).toBe(400);
  });

  it('pages the attempt log with bounded parameters', async () => {
    const id = ((await (await s.fetch(base, { token: key })).json()) as { data: { id: string }[] }).data[0]!.id;
    const ok = await s.fetch(`${base}/${id}/deliveries?limit=200&before=9007199254740991&outcome=success`, { token: key });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ data: [], next_before: null });
    for (const q of ['before=0', 'before=9007199254740992', `before=${'9'.repeat(8000)}`, 'before=abc', 'limit=0', 'limit=201', 'outcome=maybe']) {
      const res = await s.fetch(`${base}/${id}/deliveries?${q}`, { token: key });
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as { code: string }).code, q).toBe('validation_failed');
    }
    expect((await s.fetch(`${base}/not-a-uuid/deliveries`, { token: key })).status).toBe(404);
  });

  it('is never answered from the map read cache: a list right after a change shows it, without an ETag', async () => {
    const { map: m, key: k } = await makeMap(s.platform);
    const b = `/api/maps/${m.id}/webhooks`;
    expect(((await (await s.fetch(b, { token: k })).json()) as { data: unknown[] }).data).toEqual([]);
    await s.fetch(b, { ...json('POST', { url: PUBLIC(80), events: ['*'] }), token: k });
    const after = await s.fetch(b, { token: k });
    expect(after.headers.get('etag')).toBeNull();
    expect(((await after.json()) as { data: unknown[] }).data).toHaveLength(1);
  });

  it('answers one subscription with its delivery state, as the list shows it; 404 webhook_not_found otherwise', async () => {
    // A map of its own: the other tests fill this file's map up to its five subscriptions.
    const own = await makeMap(s.platform);
    const b = `/api/maps/${own.map.id}/webhooks`;
    const created = (
      (await (
        await s.fetch(b, {
          method: 'POST',
          token: own.key,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: PUBLIC(40), events: ['map_kill'] }),
        })
      ).json()) as { data: { id: string } }
    ).data;
    // Delivery state as the worker leaves it after failures.
    await s.platform.orm.em
      .fork()
      .getConnection()
      .execute(`update webhook_subscriptions set consecutive_failures = 2, last_error = 'receiver answered 500', last_error_at = now() where id = ?`, [
        created.id,
      ]);
    const listed = ((await (await s.fetch(b, { token: own.key })).json()) as { data: Record<string, unknown>[] }).data.find((x) => x.id === created.id)!;
    for (const path of [`${b}/${created.id}`, `/api/maps/${own.map.slug}/webhooks/${created.id.toUpperCase()}`]) {
      const res = await s.fetch(path, { token: own.key });
      expect(res.status, path).toBe(200);
      const { data } = (await res.json()) as { data: Record<string, unknown> };
      expect(Object.keys(data).sort()).toEqual(SUBSCRIPTION_FIELDS);
      expect(data).toEqual(listed);
      expect(data).toMatchObject({ id: created.id, url: PUBLIC(40), events: ['map_kill'], consecutive_failures: 2, last_error: 'receiver answered 500' });
      expect(data.last_error_at).toMatch(/Z$/);
    }
    const { key: otherKey } = await makeMap(s.platform);
    for (const [path, token] of [
      [`${b}/00000000-0000-4000-8000-000000000000`, own.key],
      [`${b}/not-a-uuid`, own.key],
      [`${b}/toggle`, own.key],
      [`/api/maps/${(await makeMap(s.platform)).map.id}/webhooks/${created.id}`, otherKey],
    ] as const) {
      const res = await s.fetch(path, { token });
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code, path).toMatch(/^(webhook_not_found|map_not_found)$/);
    }
    const wrongMap = await s.fetch(`/api/maps/${own.map.id}/webhooks/${created.id}`, { token: otherKey });
    expect(await wrongMap.json()).toEqual({ error: 'Map not found', code: 'map_not_found' });
    expect((await s.fetch(`${b}/${created.id}`)).status).toBe(401);
    await s.fetch(`${b}/${created.id}`, { method: 'DELETE', token: own.key });
    const gone = await s.fetch(`${b}/${created.id}`, { token: own.key });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ error: 'Webhook not found', code: 'webhook_not_found' });
  });

  it('hides other maps: a key of another map gets 404, no key 401', async () => {
    const { key: otherKey } = await makeMap(s.platform);
    expect((await s.fetch(base, { token: otherKey })).status).toBe(404);
    expect((await s.fetch(base)).status).toBe(401);
  });

  it('keeps subscriptions of a Kubernetes resource read-only (409 managed_by_kubernetes)', async () => {
    const { map: m, key: k } = await makeMap(s.platform);
    const { subscription, created } = await s.platform.webhooks.applyManaged({
      managedBy: 'kubernetes:team-a/alerts',
      map: m.slug,
      url: PUBLIC(70),
      events: ['map_kill'],
      active: true,
      secret: 's'.repeat(44),
    });
    expect(created).toBe(true);
    const b = `/api/maps/${m.id}/webhooks`;
    const listed = ((await (await s.fetch(b, { token: k })).json()) as { data: { managed_by: string }[] }).data;
    expect(listed.map((x) => x.managed_by)).toEqual(['kubernetes:team-a/alerts']);
    const opts = { token: k, headers: { 'content-type': 'application/json' } };
    for (const res of [
      await s.fetch(`${b}/${subscription.id}`, { ...opts, method: 'PUT', body: JSON.stringify({ active: false }) }),
      await s.fetch(`${b}/${subscription.id}`, { method: 'DELETE', token: k }),
      await s.fetch(`${b}/${subscription.id}/rotate-secret`, { method: 'POST', token: k }),
    ]) {
      expect(res.status).toBe(409);
      expect(((await res.json()) as { code: string }).code).toBe('managed_by_kubernetes');
    }
    // Applying again updates in place; removing deletes.
    const again = await s.platform.webhooks.applyManaged({
      managedBy: 'kubernetes:team-a/alerts',
      map: m.id,
      url: PUBLIC(71),
      events: ['*'],
      active: false,
      secret: 't'.repeat(44),
    });
    expect(again.created).toBe(false);
    expect(again.subscription).toMatchObject({ id: subscription.id, url: PUBLIC(71), events: ['*'], active: false });
    expect((await s.platform.webhooks.listManaged()).map((x) => x.managedBy)).toContain('kubernetes:team-a/alerts');
    expect(await s.platform.webhooks.removeManaged('kubernetes:team-a/alerts')).toBe(true);
    expect(await s.platform.webhooks.getManaged('kubernetes:team-a/alerts')).toBeUndefined();
  });
});

describe('webhook management switched off', () => {
  it('answers 403 webhooks_disabled on every webhook path', async () => {
    const s = await startTestServer();
    try {
      const { map, key } = await makeMap(s.platform);
      for (const [method, path] of [
        ['GET', `/api/maps/${map.id}/webhooks`],
        ['POST', `/api/maps/${map.id}/webhooks`],
        ['PUT', `/api/maps/${map.id}/webhooks/toggle`],
        ['POST', `/api/maps/${map.id}/webhooks/00000000-0000-4000-8000-000000000000/ping`],
      ] as const) {
        const res = await s.fetch(path, { method, token: key });
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual({ error: 'Webhooks are disabled on this server', code: 'webhooks_disabled' });
      }
    } finally {
      await s.close();
    }
  });
});
