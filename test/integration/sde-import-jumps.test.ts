/**
 * The stargate jumps of the static data import (sde/mapSolarSystemJumps.csv) against real PostgreSQL:
 * rows, replacement, a source without the file, refused rows, and the route graph read anew after an
 * import (in this process and in another).
 */
import { describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { dbOf } from '../../src/db/db.js';
import { importStaticData } from '../../src/static-data/sde-importer.js';
import { RouteGraphSource } from '../../src/static-data/routes/route-graph-source.js';
import { editFile, FIXTURE, FIXTURE_JUMPS, FIXTURE_SYSTEMS, useImportDb } from '../support/sde-fixture.js';

const h = useImportDb('sdejumps');
const { execute, scratchCopy } = h;

describe('stargate jumps (sde/mapSolarSystemJumps.csv)', () => {
  const jumps = () => execute<{ from_solar_system_id: number; to_solar_system_id: number }[]>('select * from solar_system_jumps order by 1, 2');
  const stamp = async () => (await execute<{ systems: number; jumps: number }[]>('select systems, jumps from static_data_imports'))[0];

  it('imports each row (both directions of a stargate), replaces them on the next import, and stamps the import', async () => {
    await importStaticData(dbOf(h.db.orm), FIXTURE, {});
    const rows = await jumps();
    expect(rows).toHaveLength(FIXTURE_JUMPS);
    expect(rows).toContainEqual({ from_solar_system_id: 30000142, to_solar_system_id: 30000144 }); // Jita → Perimeter
    expect(rows).toContainEqual({ from_solar_system_id: 30000144, to_solar_system_id: 30000142 });
    expect(await stamp()).toEqual({ systems: FIXTURE_SYSTEMS, jumps: FIXTURE_JUMPS });

    const fewer = await scratchCopy((d) => editFile(path.join(d, 'sde/mapSolarSystemJumps.csv'), (t) => t.replace(/^30000142,30000144\n/m, '')));
    expect(await importStaticData(dbOf(h.db.orm), fewer, {})).toMatchObject({ jumps: FIXTURE_JUMPS - 1 });
    expect(await jumps()).toHaveLength(FIXTURE_JUMPS - 1);
  });

  it('a source without the file imports no jumps and says so', async () => {
    const dir = await scratchCopy((d) => rm(path.join(d, 'sde/mapSolarSystemJumps.csv')));
    await importStaticData(dbOf(h.db.orm), FIXTURE, {});
    const messages: string[] = [];
    expect(await importStaticData(dbOf(h.db.orm), dir, { progress: (m) => messages.push(m) })).toMatchObject({ systems: FIXTURE_SYSTEMS, jumps: 0 });
    expect(messages).toContain('no mapSolarSystemJumps.csv in the source: no stargate jumps (routes only over the wormhole connections given)');
    expect(await jumps()).toEqual([]);
  });

  it('a jump naming a system the source lacks, a malformed id, a repeated row: the file and line, nothing written', async () => {
    for (const [row, problem] of [
      ['30000142,30000001', 'toSolarSystemID 30000001 is not a solar system of mapSolarSystems.csv'],
      ['30000142,x', 'toSolarSystemID must be an integer, got "x"'],
      ['30000142,30000144', 'the jump from 30000142 to 30000144 is listed twice'],
      ['30000142,30000142', 'a jump from 30000142 to itself'],
    ]) {
      const dir = await scratchCopy((d) => editFile(path.join(d, 'sde/mapSolarSystemJumps.csv'), (t) => `${t}${row}\n`));
      await expect(importStaticData(dbOf(h.db.orm), dir, {})).rejects.toThrow(
        `${path.join(dir, 'sde/mapSolarSystemJumps.csv')} line ${FIXTURE_JUMPS + 2}: ${problem}`,
      );
      expect(await h.service.count()).toBe(0);
      expect(await jumps()).toEqual([]);
    }
  });

  it('a process reads the graph anew after an import in it', async () => {
    await importStaticData(dbOf(h.db.orm), FIXTURE, {});
    const graphs = new RouteGraphSource(dbOf(h.db.orm));
    expect((await graphs.finder()).graph.stargates).toBe(FIXTURE_JUMPS / 2);
    const dir = await scratchCopy((d) => rm(path.join(d, 'sde/mapSolarSystemJumps.csv')));
    await importStaticData(dbOf(h.db.orm), dir, {});
    expect((await graphs.finder()).graph.stargates).toBe(0);
  });

  it('another process reads the graph anew within its revalidation period', async () => {
    await importStaticData(dbOf(h.db.orm), FIXTURE, {});
    const graphs = new RouteGraphSource(dbOf(h.db.orm), 0);
    expect((await graphs.finder()).graph.stargates).toBe(FIXTURE_JUMPS / 2);
    // An import elsewhere: the rows and the stamp change without this process's import count.
    await execute('delete from solar_system_jumps');
    await execute('update static_data_imports set imported_at = clock_timestamp()');
    await expect.poll(async () => (await graphs.finder()).graph.stargates, { timeout: 5000 }).toBe(0);
  });
});
