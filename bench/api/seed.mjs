// Seeds the map of bench/api.mjs through the product's own code (dist/).
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONNECTIONS, KILLS, log, ROOT, SYSTEMS } from './common.mjs';

/** Deterministic PRNG (mulberry32) so every run seeds the same map. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `tasks` (functions returning promises) with at most `n` in flight. */
async function inPool(n, tasks) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, tasks.length) }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

/** Migrates and seeds through the product's own code (dist/): the core, static data import, admin and map content services. */
export async function seed(env) {
  const { loadConfig } = await import(pathToFileURL(path.join(ROOT, 'dist/common/config.js')).href);
  const { buildCore } = await import(pathToFileURL(path.join(ROOT, 'dist/core/core.js')).href);
  const { createApiServices } = await import(pathToFileURL(path.join(ROOT, 'dist/api/services.js')).href);
  const { importStaticData } = await import(pathToFileURL(path.join(ROOT, 'dist/static-data/sde-importer.js')).href);
  const { dbOf } = await import(pathToFileURL(path.join(ROOT, 'dist/db/db.js')).href);
  const config = loadConfig({ ...env, REDIS_URL: '' });
  const core = await buildCore(config, { migrations: 'apply' });
  const platform = { orm: core.db.orm, ...createApiServices(core), close: () => core.close() };
  try {
    const staticDir = process.env.BENCH_STATIC_DIR || path.join(ROOT, 'assets/eve-static-sample');
    const imported = await importStaticData(dbOf(platform.orm), staticDir, {});
    log(`static data: ${imported.systems} systems from ${path.relative(ROOT, staticDir) || staticDir}`);

    const em = () => platform.orm.em.fork();
    const owner = {
      eve_id: '2119000001',
      name: 'Bench Owner',
      corporation_id: '98900001',
      corporation_ticker: 'BENCH',
      alliance_id: null,
      alliance_ticker: null,
    };
    await platform.admin.upsertCharacter(owner);
    const created = await platform.admin.createMap({
      slug: 'bench',
      name: 'Benchmark chain',
      description: 'seeded by bench/api.mjs',
      owner_eve_id: owner.eve_id,
    });
    const mapId = created.map.id;
    const apiKey = created.api_key.api_key;

    const rnd = prng(20261122);
    const real = await em().getConnection().execute('select solar_system_id from solar_systems order by md5(solar_system_id::text) limit ?', [SYSTEMS]);
    const ids = real.map((r) => r.solar_system_id);
    const synthetic = SYSTEMS - ids.length;
    for (let i = 0; ids.length < SYSTEMS; i++) ids.push(32_900_000 + i); // not in any static data: named below
    const started = performance.now();
    await inPool(
      8,
      ids.map(
        (sid, i) => () =>
          platform.mapContent.addSystem(mapId, {
            solarSystemId: sid,
            name: `BENCH-${sid}`,
            positionX: 100 + (i % 25) * 180,
            positionY: 80 + Math.floor(i / 25) * 120,
            status: i % 7 === 0 ? 1 : 0,
            tag: i % 11 === 0 ? `T${i}` : null,
            description: i % 5 === 0 ? `System note ${i}` : null,
            labels: i % 9 === 0 ? JSON.stringify({ customLabel: 'Static', labels: ['la'] }) : null,
          }),
      ),
    );

    // Connections: a spanning tree (each system links to an earlier one), then random extra links.
    const pairs = new Set();
    const conns = [];
    const addPair = (a, b) => {
      const k = a < b ? `${a}:${b}` : `${b}:${a}`;
      if (a === b || pairs.has(k)) return false;
      pairs.add(k);
      conns.push([a, b]);
      return true;
    };
    for (let i = 1; i < ids.length && conns.length < CONNECTIONS; i++) addPair(ids[Math.floor(rnd() * i)], ids[i]);
    while (conns.length < CONNECTIONS) addPair(ids[Math.floor(rnd() * ids.length)], ids[Math.floor(rnd() * ids.length)]);
    const wormholes = ['K162', 'B274', 'E545', 'N110', 'H296', 'Q003', 'D382', 'C247', 'X877', null];
    await inPool(
      8,
      conns.map(
        ([a, b], i) =>
          () =>
            platform.mapContent.addConnection(mapId, {
              solarSystemSource: a,
              solarSystemTarget: b,
              type: i % 20 === 0 ? 1 : 0,
              massStatus: i % 3,
              timeStatus: i % 4 === 0 ? 1 : 0,
              shipSizeType: i % 5 === 0 ? 1 : 2,
              wormholeType: wormholes[i % wormholes.length],
            }),
      ),
    );

    // Kills spread over the systems (skewed: some systems see many), within the last 24 h.
    const now = Date.now();
    const ships = [
      ['Gila', 17715],
      ['Loki', 29990],
      ['Sabre', 22456],
      ['Tengu', 29984],
      ['Anathema', 11188],
      ['Procurer', 17480],
    ];
    await inPool(
      8,
      Array.from({ length: KILLS }, (_, i) => () => {
        const sid = ids[Math.floor(rnd() ** 2 * ids.length)];
        const [fbShip, fbShipId] = ships[i % ships.length];
        const [vShip, vShipId] = ships[(i * 7 + 3) % ships.length];
        const value = Math.round(1e6 + rnd() * 5e9);
        return platform.mapContent.addKill(mapId, {
          killmailId: 130_000_000 + i,
          killTime: new Date(now - Math.floor(rnd() * 23.5 * 3600_000)),
          solarSystemId: sid,
          attackerCount: 1 + Math.floor(rnd() * 30),
          npc: i % 13 === 0,
          totalValue: value,
          finalBlowAllianceId: i % 3 ? 99000001 + (i % 50) : null,
          finalBlowCharId: 2118000000 + (i % 400),
          finalBlowCorpId: 98000001 + (i % 80),
          finalBlowShipTypeId: fbShipId,
          finalBlowAllianceTicker: i % 3 ? `AL${i % 50}` : null,
          finalBlowCharName: `Hunter ${i % 400}`,
          finalBlowCorpTicker: `C${i % 80}`,
          finalBlowShipName: fbShip,
          victimAllianceId: i % 2 ? 99100001 + (i % 70) : null,
          victimCharId: 2117500000 + i,
          victimCorpId: 98100001 + (i % 120),
          victimShipTypeId: vShipId,
          victimCharName: `Victim ${i}`,
          victimCorpTicker: `V${i % 120}`,
          victimShipName: vShip,
          zkb: {
            awox: i % 97 === 0,
            destroyedValue: Math.round(value * 0.7),
            droppedValue: Math.round(value * 0.3),
            fittedValue: Math.round(value * 0.6),
            hash: createHash('sha1').update(String(i)).digest('hex'),
            labels: i % 4 === 0 ? ['solo', 'pvp'] : ['pvp'],
            locationID: 40_000_000 + i,
            npc: i % 13 === 0,
            points: 1 + (i % 50),
            solo: i % 4 === 0,
            totalValue: value,
          },
        });
      }),
    );
    await em().getConnection().execute('analyze'); // what autovacuum would have done by now
    log(
      `seeded map ${mapId}: ${ids.length} systems (${synthetic} synthetic), ${conns.length} connections, ${KILLS} kills ` +
        `through MapContentService in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return { mapId, apiKey, staticSystems: imported.systems, synthetic };
  } finally {
    await platform.close();
  }
}
