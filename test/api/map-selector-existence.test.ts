/**
 * A map key never learns whether another map exists: every answer to a map selector (`map_id`,
 * `slug`, or the `{map_id}` path segment) is the same whether the other map it names exists or not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeCharacter, makeMap } from '../support/factories.js';

let t: TestServer;
let key: string;
let own: { id: string; slug: string };
let other: { id: string; slug: string };
let ownerEveId: string;
const NO_MAP_ID = '00000000-0000-4000-8000-00000000beef';
const NO_SLUG = 'no-such-map-anywhere';

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  const a = await makeMap(t.platform);
  const b = await makeMap(t.platform);
  key = a.key;
  own = { id: a.map.id as string, slug: a.map.slug as string };
  other = { id: b.map.id as string, slug: b.map.slug as string };
  ownerEveId = (await makeCharacter(t.platform)).eve_id;
});
afterAll(async () => t?.close());

const SELECTOR_ROUTES: [string, string, string][] = [
  ['GET', '/api/map/systems', ''],
  ['GET', '/api/map/system', 'id=30000142&'],
  ['GET', '/api/map/connections', ''],
  ['GET', '/api/map/characters', ''],
  ['GET', '/api/map/systems-kills', ''],
  ['GET', '/api/map/character-activity', ''],
  ['GET', '/api/map/user_characters', ''],
  ['GET', '/api/map/structure-timers', ''],
  ['GET', '/api/map/acls', ''],
  ['POST', '/api/map/acls', ''],
];

async function answer(method: string, path: string): Promise<{ status: number; body: unknown }> {
  const res = await t.fetch(path, {
    method,
    token: key,
    ...(method === 'POST'
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ acl: { name: 'probe', owner_eve_id: ownerEveId } }) }
      : {}),
  });
  return { status: res.status, body: await res.json() };
}

describe.each(SELECTOR_ROUTES)('%s %s with a valid key of its own map', (method, route, extra) => {
  const at = (selector: string) => `${route}?${extra}${selector}`;

  it('answers the same for an existing and a missing other slug next to its own map_id (400 map_selector_conflict)', async () => {
    const existing = await answer(method, at(`map_id=${own.id}&slug=${other.slug}`));
    const missing = await answer(method, at(`map_id=${own.id}&slug=${NO_SLUG}`));
    expect(missing).toEqual(existing);
    expect(existing).toEqual({ status: 400, body: { error: '`map_id` and `slug` name different maps', code: 'map_selector_conflict' } });
  });

  it('answers the same for an existing and a missing other map_id next to its own slug (400 map_selector_conflict)', async () => {
    const existing = await answer(method, at(`map_id=${other.id}&slug=${own.slug}`));
    const missing = await answer(method, at(`map_id=${NO_MAP_ID}&slug=${own.slug}`));
    expect(missing).toEqual(existing);
    expect(existing.status).toBe(400);
  });

  it('answers 404 map_not_found alike for another map and for no map, by map_id, slug or both', async () => {
    const notFound = { status: 404, body: { error: 'Map not found', code: 'map_not_found' } };
    for (const selector of [
      `map_id=${other.id}`,
      `map_id=${NO_MAP_ID}`,
      `slug=${other.slug}`,
      `slug=${NO_SLUG}`,
      `map_id=${other.id}&slug=${other.slug}`,
      `map_id=${NO_MAP_ID}&slug=${NO_SLUG}`,
      `map_id=${other.id}&slug=${NO_SLUG}`,
      `map_id=${NO_MAP_ID}&slug=${other.slug}`,
    ]) {
      expect(await answer(method, at(selector)), selector).toEqual(notFound);
    }
  });
});

describe('/api/maps/{map_id} path segment', () => {
  it('answers 404 map_not_found alike for another map and for no map, by UUID or slug', async () => {
    const notFound = { status: 404, body: { error: 'Map not found', code: 'map_not_found' } };
    for (const segment of [other.id, NO_MAP_ID, other.slug, NO_SLUG]) {
      for (const path of ['/systems', '/connections', '/events']) {
        expect(await answer('GET', `/api/maps/${segment}${path}`), `${segment}${path}`).toEqual(notFound);
      }
    }
    expect((await answer('GET', `/api/maps/${own.slug}/connections`)).status).toBe(200);
    expect((await answer('GET', `/api/maps/${own.id.toUpperCase()}/connections`)).status).toBe(200);
  });
});
