/**
 * One writer per table: the seeding service (demo, factories, benchmarks) writes through the same
 * repositories as the editing API, so the editing rules that protect a table hold for both. And the
 * map services check a map key's access themselves, whichever way the request names the map.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeCharacter, makeMap, makeSystem } from '../support/factories.js';
import type { MapKeyPrincipal } from '../../src/http/principal.js';

const CAP = 2_147_483_647;
const JITA = 30000142;

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false' } });
  await importFixture(t.platform);
});
afterAll(async () => t?.close());

async function keyOf(mapId: string): Promise<MapKeyPrincipal> {
  const row = (
    await t.platform.orm.em.fork().getConnection().execute<{ owner_character_id: string }[]>('select owner_character_id from maps where id = ?', [mapId])
  )[0]!;
  return { kind: 'map_key', keyId: 'test', mapId, characterId: row.owner_character_id };
}

describe('seeded character activity', () => {
  it('saturates each counter at 2147483647 like the editing API instead of failing the write', async () => {
    const p = t.platform;
    const { map } = await makeMap(p);
    const pilot = await makeCharacter(p, { name: 'Seeded Cap' });
    const at = new Date();
    await p.mapContent.recordActivity(map.id, { characterEveId: pilot.eve_id, passages: CAP, connections: 1, at });
    await p.mapContent.recordActivity(map.id, { characterEveId: pilot.eve_id, passages: CAP, connections: 2, at });
    const rows = await p.orm.em
      .fork()
      .getConnection()
      .execute<{ passages: number; connections: number }[]>(
        'select a.passages, a.connections from character_activity a join characters ch on ch.id = a.character_id where a.map_id = ? and ch.eve_id = ?',
        [map.id, pilot.eve_id],
      );
    expect(rows).toEqual([{ passages: CAP, connections: 3 }]);
  });
});

describe('map access in the services', () => {
  it('answers 404 map_not_found for another map, named by path or by selector, and reads nothing', async () => {
    const p = t.platform;
    const mine = await makeMap(p);
    const theirs = await makeMap(p);
    await makeSystem(p, theirs.map.id as string, JITA);
    const principal = await keyOf(mine.map.id as string);
    for (const ref of [theirs.map.id as string, theirs.map.slug as string, { map_id: theirs.map.id as string }, { slug: theirs.map.slug as string }]) {
      await expect(p.systems.list(principal, ref, true)).rejects.toMatchObject({ status: 404, code: 'map_not_found' });
    }
    expect(await p.systems.list(principal, mine.map.slug as string, true)).toEqual([]);
  });

  it('answers 400 map_identifier_required for an empty selector', async () => {
    const principal = await keyOf((await makeMap(t.platform)).map.id as string);
    await expect(t.platform.connections.list(principal, {})).rejects.toMatchObject({ status: 400, code: 'map_identifier_required' });
  });
});
