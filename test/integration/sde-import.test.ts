/**
 * The static data importer against PostgreSQL: the fixture (a real subset), idempotence, broken sources
 * writing nothing, the URL source (local http server), and the full real data when it is on this machine.
 */
import { dbOf } from '../../src/db/db.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { importStaticData } from '../../src/static-data/sde-importer.js';
import { parseCsv } from '../../src/static-data/sde-source.js';
import { StaticDataError } from '../../src/static-data/sde-derive.js';
import { J152820, JITA, THERA, withoutDetails } from '../support/static-fixture-rows.js';
import { editFile, FIXTURE, FIXTURE_JUMPS, FIXTURE_SYSTEMS, useImportDb } from '../support/sde-fixture.js';
import { RouteGraphSource } from '../../src/static-data/routes/route-graph-source.js';

// The full public static data in a local folder, named by TEST_SDE_DIR (docs/development.md); without it
// the test is reported as skipped.
const FULL_DATA = process.env.TEST_SDE_DIR ?? '';

describe('parseCsv', () => {
  it('handles quoted fields with commas, doubled quotes, line breaks, CRLF, BOM and blank lines', () => {
    const text = '\uFEFFid,name\r\n1,"Jita, The Forge"\r\n\r\n2,"say ""hi"""\n3,"two\nlines"\n4,plain\n';
    expect(parseCsv(text, 'x.csv')).toEqual({
      header: ['id', 'name'],
      headerLine: 1,
      records: [
        { line: 2, fields: ['1', 'Jita, The Forge'] },
        { line: 4, fields: ['2', 'say "hi"'] },
        { line: 5, fields: ['3', 'two\nlines'] },
        { line: 7, fields: ['4', 'plain'] },
      ],
    });
  });

  it('rejects an unterminated quote and text after a closing quote, with the line', () => {
    expect(() => parseCsv('a,b\n1,"open\n', 'x.csv')).toThrow('x.csv line 2: unterminated quoted field');
    expect(() => parseCsv('a,b\n1,2\n3,"x"y\n', 'x.csv')).toThrow('x.csv line 3: unexpected text after a closing quote');
  });
});

describe('importStaticData', () => {
  const h = useImportDb('sde');
  const { execute, scratchCopy } = h;

  it('imports the fixture folder with progress, and the service returns exact DTOs', async () => {
    const messages: string[] = [];
    const started = performance.now();
    const result = await importStaticData(dbOf(h.db.orm), FIXTURE, { progress: (m) => messages.push(m) });
    const took = performance.now() - started;

    expect(result).toMatchObject({ systems: FIXTURE_SYSTEMS, inserted: FIXTURE_SYSTEMS, updated: 0 });
    // The call's own time in whole milliseconds (it is measured from the call's start to its return; a
    // collection may land between its end and ours).
    expect(Number.isInteger(result.durationMs)).toBe(true);
    expect(result.durationMs).toBeLessThanOrEqual(Math.ceil(took));
    expect(result.durationMs).toBeGreaterThanOrEqual(Math.floor(took) - 250);
    expect(messages[0]).toBe(`reading ${FIXTURE}`);
    expect(messages).toContain(`read ${FIXTURE_SYSTEMS} systems`);
    expect(messages).toContain(`read ${FIXTURE_JUMPS} stargate jumps`);
    expect(result.jumps).toBe(FIXTURE_JUMPS);
    expect(messages).toContain(`wrote ${FIXTURE_SYSTEMS}/${FIXTURE_SYSTEMS}`);
    expect(messages.at(-1)).toMatch(/^done in \d+\.\d s \(54 inserted, 0 updated\)$/);
    expect(await h.service.count()).toBe(FIXTURE_SYSTEMS);

    expect(await withoutDetails(h.service, 31001880)).toStrictEqual(J152820);
    expect(await withoutDetails(h.service, 30000142)).toStrictEqual(JITA);
    expect(await withoutDetails(h.service, 31000005)).toStrictEqual(THERA);
    expect(await withoutDetails(h.service, 1)).toBeNull();
    expect(await withoutDetails(h.service, 2 ** 40)).toBeNull();
  });

  it('derives every category of the fixture as in the real data', async () => {
    await importStaticData(dbOf(h.db.orm), FIXTURE, {});
    const rows = await execute<Record<string, unknown>[]>(
      `select solar_system_id, security, system_class, class_title, effect_name, effect_power, statics,
              triglavian_invasion_status, is_shattered, sun_type_id, true_security
         from solar_systems order by solar_system_id`,
    );
    const byId = new Map(rows.map((r) => [r.solar_system_id as number, r]));
    const pick = (id: number) => byId.get(id);

    expect(pick(30000142)).toMatchObject({ true_security: 0.945913, security: '0.9' });
    expect(pick(30002420)).toMatchObject({ system_class: 8, security: '0.1', class_title: '0.1' }); // Egbinger, 0.034555
    expect(pick(30000619)).toMatchObject({ system_class: 9, security: '0.0', class_title: '0.0' }); // BLMX-B, -0.032301
    expect(pick(30004550)).toMatchObject({ system_class: 9, security: '-0.8', class_title: '-0.8' }); // A2V6-6, -0.85
    expect(pick(30000326)).toMatchObject({ system_class: -1, security: '0.0', class_title: 'CCP' }); // WF-1LM
    const wormholeClasses = [31000008, 31000356, 31000881, 31001376, 31001880, 31002367].map((id) => pick(id)?.system_class);
    expect(wormholeClasses).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pick(31000356)).toMatchObject({ class_title: 'C2', effect_name: 'Pulsar', effect_power: 2, statics: ['B274', 'O477'] });
    expect(pick(31002367)).toMatchObject({ class_title: 'C6', effect_name: 'Pulsar', effect_power: 6, statics: ['G024'] });
    expect(pick(31001361)).toMatchObject({ system_class: 3, effect_name: null, effect_power: 3 });
    expect(pick(31002505)).toMatchObject({ system_class: 1, is_shattered: true, effect_name: 'Black Hole' });
    expect(pick(31002595)).toMatchObject({ system_class: 13, class_title: 'C13', is_shattered: true, effect_power: 6 });
    expect(pick(31000001)).toMatchObject({ system_class: 14, class_title: 'D', is_shattered: true, effect_name: 'Red Giant' });
    expect(pick(30000021)).toMatchObject({
      system_class: 25,
      class_title: 'P',
      triglavian_invasion_status: 'Final',
      statics: ['C729'],
      effect_name: 'Dazh Liminality Locus',
      effect_power: 1,
    });
    expect(pick(30003539)).toMatchObject({ system_class: 7, security: '0.5', triglavian_invasion_status: 'Edencom', statics: [] });
    expect(pick(30100000)).toMatchObject({ system_class: 10100, class_title: 'N', security: '-1.0' });
    expect(pick(32000001)).toMatchObject({ system_class: 19, class_title: 'A1', sun_type_id: 0 }); // sunTypeID "None"
  });

  it('is idempotent: a second import overwrites in place, and picks up changed values', async () => {
    await importStaticData(dbOf(h.db.orm), FIXTURE, {});
    const again = await importStaticData(dbOf(h.db.orm), FIXTURE, {});
    expect(again).toMatchObject({ systems: FIXTURE_SYSTEMS, inserted: 0, updated: FIXTURE_SYSTEMS });
    const [counts] = await execute<{ n: string; ids: string }[]>('select count(*) as n, count(distinct solar_system_id) as ids from solar_systems');
    expect(counts).toEqual({ n: String(FIXTURE_SYSTEMS), ids: String(FIXTURE_SYSTEMS) });
    expect(await withoutDetails(h.service, 31001880)).toStrictEqual(J152820);

    const changed = await scratchCopy(async (dir) => {
      await editFile(path.join(dir, 'sde/mapSolarSystems.csv'), (t) =>
        t.replace('30000142,Jita,10000002,20000020,0.945913,3796', '30000142,"Jita, Prime",10000002,20000020,0.3,3796'),
      );
      await editFile(path.join(dir, 'wormholes/wormholeSystems.json'), (t) =>
        JSON.stringify(
          (JSON.parse(t) as { solarSystemID: number; effectName: string | null }[]).map((w) =>
            w.solarSystemID === 31001880 ? { ...w, effectName: 'Magnetar' } : w,
          ),
        ),
      );
    });
    const third = await importStaticData(dbOf(h.db.orm), changed, {});
    expect(third).toMatchObject({ systems: FIXTURE_SYSTEMS, inserted: 0, updated: FIXTURE_SYSTEMS });
    expect(await withoutDetails(h.service, 30000142)).toMatchObject({
      solar_system_name: 'Jita, Prime',
      solar_system_name_lc: 'jita, prime',
      security: '0.3',
      class_title: '0.3',
    });
    expect((await withoutDetails(h.service, 31001880))?.effect_name).toBe('Magnetar');
    expect(await h.service.count()).toBe(FIXTURE_SYSTEMS);
  });

  describe('a broken source throws, naming the file and line, and writes nothing', () => {
    const expectNothingWritten = async (from: string, message: RegExp | string) => {
      await importStaticData(dbOf(h.db.orm), FIXTURE, {});
      await execute(`update solar_systems set region_name = 'before'`);
      const failed = importStaticData(dbOf(h.db.orm), from, { batchSize: 5 });
      await expect(failed).rejects.toThrow(StaticDataError);
      await expect(failed).rejects.toThrow(message);
      const [row] = await execute<{ n: string; untouched: string }[]>(
        `select count(*) as n, count(*) filter (where region_name = 'before') as untouched from solar_systems`,
      );
      expect(row).toEqual({ n: String(FIXTURE_SYSTEMS), untouched: String(FIXTURE_SYSTEMS) });
    };

    it('missing file', async () => {
      const dir = await scratchCopy((d) => rm(path.join(d, 'sde/mapRegions.csv')));
      await expectNothingWritten(dir, `${path.join(dir, 'sde/mapRegions.csv')}: file not found`);
    });

    it('missing folder', async () => {
      await expectNothingWritten('/nonexistent/eve-static', '/nonexistent/eve-static/sde/mapSolarSystems.csv: file not found');
    });

    it('malformed number in a CSV row', async () => {
      const dir = await scratchCopy((d) =>
        editFile(path.join(d, 'sde/mapSolarSystems.csv'), (t) =>
          t.replace('30000326,WF-1LM,10000004,20000047,-0.0019', '30000326,WF-1LM,10000004,20000047,abc'),
        ),
      );
      await expectNothingWritten(dir, /sde\/mapSolarSystems\.csv line 7: security must be a number, got "abc"$/);
    });

    it('wrong field count in a CSV row', async () => {
      const dir = await scratchCopy((d) => editFile(path.join(d, 'sde/mapConstellations.csv'), (t) => t.replace('20000090,VS-8P0', '20000090,VS-8P0,extra')));
      await expectNothingWritten(dir, /sde\/mapConstellations\.csv line 5: expected 2 fields, found 3$/);
    });

    it('missing CSV column', async () => {
      const dir = await scratchCopy((d) => editFile(path.join(d, 'sde/mapRegions.csv'), (t) => t.replace('regionName', 'name')));
      await expectNothingWritten(dir, /sde\/mapRegions\.csv line 1: missing column "regionName"/);
    });

    it('system pointing at an unknown constellation', async () => {
      const dir = await scratchCopy((d) => editFile(path.join(d, 'sde/mapConstellations.csv'), (t) => t.replace('20000020,Kimotoro\n', '')));
      await expectNothingWritten(dir, /sde\/mapSolarSystems\.csv line 4: solar system 30000139: unknown constellationID 20000020$/);
    });

    it('malformed JSON and a malformed JSON entry', async () => {
      const badJson = await scratchCopy((d) => writeFile(path.join(d, 'wormholes/shatteredConstellations.json'), '{"21000334": true,'));
      await expectNothingWritten(badJson, /wormholes\/shatteredConstellations\.json: invalid JSON/);
      const badEntry = await scratchCopy((d) =>
        editFile(path.join(d, 'wormholes/wormholeSystems.json'), (t) => t.replace('"statics": [\n      "H296"\n    ]', '"statics": "H296"')),
      );
      await expectNothingWritten(badEntry, /wormholes\/wormholeSystems\.json entry \d+ \(31001880\): statics must be an array of strings, got "H296"$/);
    });
  });

  it('rolls back every batch when the database rejects a late one (one transaction)', async () => {
    const dir = await scratchCopy((d) =>
      editFile(path.join(d, 'sde/mapSolarSystems.csv'), (t) => t.replace('32000001,AD001,', `32000001,${'A'.repeat(101)},`)),
    );
    const messages: string[] = [];
    await expect(importStaticData(dbOf(h.db.orm), dir, { batchSize: 5, progress: (m) => messages.push(m) })).rejects.toThrow(/too long/);
    expect(messages).toContain('wrote 50/54'); // earlier batches went through before the failure
    expect(await h.service.count()).toBe(0);
  });

  describe('URL source', () => {
    let server: http.Server;
    let base: string;

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
        const file = path.join(FIXTURE, path.normalize(rel));
        if (!file.startsWith(FIXTURE + path.sep)) {
          res.writeHead(400).end();
          return;
        }
        readFile(file).then(
          (body) => res.writeHead(200, { 'content-type': 'text/plain' }).end(body),
          () => res.writeHead(404).end('not found'),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
    });

    it('imports the same rows as the folder', async () => {
      await importStaticData(dbOf(h.db.orm), FIXTURE, {});
      const fromDir = await execute('select * from solar_systems order by solar_system_id');
      await execute('truncate solar_systems');

      const messages: string[] = [];
      const result = await importStaticData(dbOf(h.db.orm), `${base}/sde/`, {
        wormholesUrl: `${base}/wormholes`,
        progress: (m) => messages.push(m),
      });
      expect(result).toMatchObject({ systems: FIXTURE_SYSTEMS, inserted: FIXTURE_SYSTEMS, updated: 0 });
      expect(messages[0]).toBe(`reading ${base}/sde and ${base}/wormholes`);
      expect(await execute('select * from solar_systems order by solar_system_id')).toEqual(fromDir);
      expect(await withoutDetails(h.service, 31000005)).toStrictEqual(THERA);
    });

    it('a missing file (404) names the URL and writes nothing', async () => {
      const failed = importStaticData(dbOf(h.db.orm), `${base}/sde`, { wormholesUrl: `${base}/nowhere` });
      await expect(failed).rejects.toThrow(`${base}/nowhere/wormholeClasses.json: download failed: HTTP 404 (file not found)`);
      expect(await h.service.count()).toBe(0);
    });

    it('an unreachable server names the URL', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      await expect(importStaticData(dbOf(h.db.orm), `http://127.0.0.1:${port}/sde`, { wormholesUrl: `${base}/wormholes` })).rejects.toThrow(
        new RegExp(`^http://127\\.0\\.0\\.1:${port}/sde/mapSolarSystems\\.csv: download failed: fetch failed \\(ECONNREFUSED\\)$`),
      );
    });
  });

  // Values below were checked against the files with an independent script.
  it.runIf(FULL_DATA !== '' && existsSync(FULL_DATA))('imports the full real data (TEST_SDE_DIR)', { timeout: 180_000 }, async () => {
    const started = performance.now();
    const result = await importStaticData(dbOf(h.db.orm), FULL_DATA, {});
    const took = performance.now() - started;
    expect(result).toMatchObject({ systems: 8437, inserted: 8437, updated: 0 });
    expect(result.durationMs).toBeLessThanOrEqual(Math.ceil(took));
    expect(result.durationMs).toBeGreaterThanOrEqual(Math.floor(took) - 250);
    expect(await h.service.count()).toBe(8437);

    expect(await withoutDetails(h.service, 30000142)).toStrictEqual(JITA);
    expect(await withoutDetails(h.service, 31001880)).toStrictEqual(J152820);
    expect(await withoutDetails(h.service, 31000005)).toStrictEqual(THERA);
    expect(await withoutDetails(h.service, 30002420)).toMatchObject({ security: '0.1', system_class: 8 }); // Egbinger
    expect(await withoutDetails(h.service, 30100000)).toMatchObject({ system_class: 10100, type_description: 'Pirate space' });
    expect(await withoutDetails(h.service, 31002505)).toMatchObject({ is_shattered: true, statics: ['N110', 'Z060'] });

    const [stats] = await execute<Record<string, string>[]>(
      `select count(*) filter (where system_class = 13) as c13,
              count(*) filter (where system_class = 7) as hs,
              count(*) filter (where system_class = 8) as ls,
              count(*) filter (where system_class = 9) as ns,
              count(*) filter (where system_class = -1) as unknown,
              count(*) filter (where is_shattered) as shattered,
              count(*) filter (where sun_type_id = 0) as sunless,
              count(*) filter (where triglavian_invasion_status <> 'Normal') as triglavian,
              count(*) filter (where triglavian_invasion_status = 'Final') as pochven,
              count(*) filter (where security = '-0.0') as negative_zero
         from solar_systems`,
    );
    expect(stats).toEqual({
      c13: '25',
      hs: '1194',
      ls: '687',
      ns: '3294',
      unknown: '217',
      shattered: '90',
      sunless: '401',
      triglavian: '192',
      pochven: '27',
      negative_zero: '0',
    });

    // The stargates, and routes over them as the game plans them (Jita to Amarr: 11 jumps through
    // Ahbazon, 45 on the high-sec way, 40 preferring low-sec; to Dodixie 12, 15 and 14).
    expect(result.jumps).toBe(13_776);
    const finder = await new RouteGraphSource(dbOf(h.db.orm)).finder();
    expect(finder.graph.size).toBe(8437);
    const route = (to: number, flag: 'shortest' | 'secure' | 'insecure') =>
      finder.closest({ origin: finder.graph.numberOf(30000142), flag, destinations: [finder.graph.numberOf(to)], count: 1 })[0]!;
    expect([route(30002187, 'shortest').jumps, route(30002187, 'secure').jumps, route(30002187, 'insecure').jumps]).toEqual([11, 45, 40]);
    expect([route(30002659, 'shortest').jumps, route(30002659, 'secure').jumps, route(30002659, 'insecure').jumps]).toEqual([12, 15, 14]);
    expect(route(30002187, 'shortest').systems).toContain(30005196); // Ahbazon, low-sec 0.4
    const highSec = new Set(
      (await execute<{ id: number }[]>(`select solar_system_id as id from solar_systems where security::numeric >= 0.5`)).map((r) => r.id),
    );
    expect(route(30002187, 'secure').systems.every((id) => highSec.has(id))).toBe(true);
  });
});
