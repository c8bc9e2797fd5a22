/**
 * A kill import looks a solar system up in the static data only the first time it sees it: the
 * importer never removes a system, so one found once stays known. An unknown system is looked up every
 * time (the static data may gain it) and refused with 404 until it exists. Real PostgreSQL; the
 * repository is wrapped only to count its lookups.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { killBody } from '../support/map-edit.js';
import { dbOf, type Db } from '../../src/db/db.js';
import { KillsService } from '../../src/maps/kills/kills.service.js';
import type { KillInput } from '../../src/maps/kills/kills.dto.js';
import { SolarSystemRepository } from '../../src/static-data/solar-system.repository.js';
import type { MapKeyPrincipal } from '../../src/http/principal.js';
import { AppError } from '../../src/common/errors.js';
import { Outbox } from '../../src/events/outbox.js';

class CountingSystems extends SolarSystemRepository {
  readonly lookups: number[][] = [];
  override async byIds(db: Db, ids: readonly number[]) {
    this.lookups.push([...ids]);
    return super.byIds(db, ids);
  }
}

describe('kill imports and the static data', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await importFixture(s.platform);
  });
  afterAll(async () => {
    await s?.close();
  });

  /** A kill as the API hands it to the service (the validated body of POST …/kills). */
  const kill = (killmailId: number, solarSystemId: number): KillInput =>
    ({ ...(killBody(solarSystemId, killmailId) as object), kill_time: new Date() }) as unknown as KillInput;

  it('looks a system up once, an unknown one every time, and refuses kills in unknown systems', async () => {
    const { map } = await makeMap(s.platform);
    const principal: MapKeyPrincipal = { kind: 'map_key', keyId: 'test', mapId: map.id, characterId: 'test' };
    const systems = new CountingSystems();
    const db = dbOf(s.platform.orm);
    const kills = new KillsService(db, new Outbox(s.platform.orm), undefined, systems);

    expect(await kills.import(principal, map.id, [kill(150_000_001, 31000005), kill(150_000_002, 31000001)])).toEqual({ inserted: 2, duplicates: 0 });
    expect(systems.lookups).toEqual([[31000005, 31000001]]);

    // Both known now: no lookup.
    expect(await kills.import(principal, map.id, kill(150_000_003, 31000005))).toEqual({ inserted: 1, duplicates: 0 });
    expect(await kills.import(principal, map.id, { kills: [kill(150_000_004, 31000001), kill(150_000_005, 31000005)] })).toEqual({
      inserted: 2,
      duplicates: 0,
    });
    expect(systems.lookups).toHaveLength(1);

    // An unknown system: looked up (only it), refused, nothing stored; and looked up again next time.
    for (let round = 0; round < 2; round++) {
      const err = await kills.import(principal, map.id, [kill(150_000_006, 31000005), kill(150_000_007, 39999999)]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(404);
      expect((err as AppError).code).toBe('solar_system_not_found');
      expect(JSON.stringify((err as AppError).details)).toContain('[1].solar_system_id');
    }
    expect(systems.lookups).toEqual([[31000005, 31000001], [39999999], [39999999]]);
    const stored = await db.all<{ killmail_id: string }>('select killmail_id::text from map_kills where map_id = ? order by killmail_id', [map.id]);
    expect(stored.map((r) => Number(r.killmail_id))).toEqual([150_000_001, 150_000_002, 150_000_003, 150_000_004, 150_000_005]);
  });
});
