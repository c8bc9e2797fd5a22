/**
 * The reads of `map_api_keys` and of a map by id or slug, each through its one repository
 * (src/auth/map-key.repository.ts, src/maps/map.repository.ts), as the token service, the key directory
 * and the operator's map facts use them, over the real tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { apiRole } from '../../src/api/api.role.js';
import { dbOf, type Db } from '../../src/db/db.js';
import { hashToken } from '../../src/common/crypto.js';
import { MapKeyRepository } from '../../src/auth/map-key.repository.js';
import { KeyDirectory } from '../../src/auth/key-directory.js';
import { MapRefRepository, mapReference } from '../../src/maps/map.repository.js';
import { DbMapFacts } from '../../src/operator/map-facts.js';

let t: TestServer;
let db: Db;
const keys = new MapKeyRepository();
const maps = new MapRefRepository();
let first: Awaited<ReturnType<typeof makeMap>>;
let second: Awaited<ReturnType<typeof makeMap>>;
let revokedKey: string;

beforeAll(async () => {
  t = await startTestServer({ roles: [apiRole] });
  db = dbOf(t.platform.orm);
  first = await makeMap(t.platform);
  second = await makeMap(t.platform);
  const issued = await t.platform.admin.issueKey(first.map.id, { character_eve_id: first.ownerEveId, name: 'to revoke' });
  await t.platform.admin.revokeKey(first.map.id, issued.id);
  revokedKey = issued.api_key;
});

afterAll(async () => {
  await t?.close();
});

describe('MapKeyRepository', () => {
  it('byHash finds a live key with its map, character and profile, and a revoked one marked revoked', async () => {
    const live = await keys.byHash(db, hashToken(first.key));
    expect(live).toMatchObject({ map_id: first.map.id, key_hash: hashToken(first.key), stream_profile: 'spec', revoked: false });
    expect(live!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof live!.character_id).toBe('string');
    expect(await keys.byHash(db, hashToken(revokedKey))).toMatchObject({ map_id: first.map.id, revoked: true });
    expect(await keys.byHash(db, hashToken('mik_not-a-key-of-anything'))).toBeUndefined();
  });

  it('livePrefixes lists the hash prefixes of live keys only, and of those created since a time when given', async () => {
    const all = await keys.livePrefixes(db, 16, null);
    expect(all).toContain(hashToken(first.key).slice(0, 16));
    expect(all).toContain(hashToken(second.key).slice(0, 16));
    expect(all).not.toContain(hashToken(revokedKey).slice(0, 16));
    expect(all.every((p) => /^[0-9a-f]{16}$/.test(p))).toBe(true);
    expect(await keys.livePrefixes(db, 16, new Date(Date.now() + 3_600_000))).toEqual([]);
  });

  it('is what the key directory knows: live keys may be keys, revoked ones and made-up tokens not', async () => {
    const directory = new KeyDirectory(db);
    expect(await directory.mayBeKey(hashToken(first.key))).toBe(true);
    expect(await directory.mayBeKey(hashToken(revokedKey))).toBe(false);
  });
});

describe('a map by id or slug', () => {
  it('mapReference takes a UUID in any case for an id and anything else for a slug', () => {
    expect(mapReference('0F8E4A1C-1111-4222-8333-944445555666')).toEqual({ column: 'id', value: '0f8e4a1c-1111-4222-8333-944445555666' });
    expect(mapReference('my-map')).toEqual({ column: 'slug', value: 'my-map' });
  });

  it('MapRefRepository.byReference finds the same map by its id, its upper-case id and its slug', async () => {
    const want = { id: first.map.id, slug: first.map.slug, webhooksEnabled: false };
    expect(await maps.byReference(db, first.map.id)).toMatchObject(want);
    expect(await maps.byReference(db, first.map.id.toUpperCase())).toMatchObject(want);
    expect(await maps.byReference(db, first.map.slug)).toMatchObject(want);
    expect(await maps.byReference(db, 'no-such-map')).toBeUndefined();
  });

  it('the admin API answers the same map by id and by slug', async () => {
    expect(await t.platform.admin.getMap(first.map.slug)).toEqual(await t.platform.admin.getMap(first.map.id.toUpperCase()));
  });
});

describe("the operator's map facts (no SQL of their own)", () => {
  const facts = () => new DbMapFacts(db);

  it('accepts a live key of the named map, by slug or id', async () => {
    const bySlug = await facts().checkMapKey(first.map.slug, first.key);
    expect(bySlug).toMatchObject({ ok: true, mapId: first.map.id });
    expect(await facts().checkMapKey(first.map.id, ` ${first.key}\n`)).toEqual(bySlug);
  });

  it('tells a missing map, a key of another map, a revoked key and no key apart', async () => {
    expect(await facts().checkMapKey('no-such-map', first.key)).toMatchObject({ ok: false, reason: 'MapNotFound' });
    expect(await facts().checkMapKey(second.map.slug, first.key)).toMatchObject({ ok: false, reason: 'MapKeyOtherMap' });
    expect(await facts().checkMapKey(first.map.slug, revokedKey)).toMatchObject({ ok: false, reason: 'MapKeyRevoked' });
    expect(await facts().checkMapKey(first.map.slug, 'mik_made-up')).toMatchObject({ ok: false, reason: 'MapKeyInvalid' });
  });

  it('reads webhooks_enabled of the maps asked for, leaving out maps that do not exist', async () => {
    await db.run('update maps set webhooks_enabled = true where id = ?', [second.map.id]);
    const enabled = await facts().webhooksEnabled([first.map.id, second.map.id, second.map.id, '00000000-0000-4000-8000-000000000000']);
    expect([...enabled.entries()].sort()).toEqual(
      [
        [first.map.id, false],
        [second.map.id, true],
      ].sort(),
    );
    expect(await facts().webhooksEnabled([])).toEqual(new Map());
  });
});
