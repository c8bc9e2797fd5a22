// The baseline server of bench/api.mjs (`node bench/api.mjs --baseline`): node:http + pg running the product's SQL.
import { createHash } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

// ---------------------------------------------------------------------------------------------------
// Baseline: the SQL of the map repositories (src/maps/*/*.repository.ts), src/maps/map.repository.ts and src/auth/token.service.ts,
// copied as text (`?` → `$n`), with the same key check (sha256 lookup, cached 3 s like TokenService) and
// map check (map row by id, must be the key's map), answering JSON.stringify({ data }).
// ---------------------------------------------------------------------------------------------------

const tsMicro = (c) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const tsSeconds = (c) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

const SYSTEM_COLUMNS = `s.id, s.name, s.status::int as status, s.tag, s.visible, s.description, s.labels,
  ${tsMicro('s.inserted_at')} as inserted_at, ${tsMicro('s.updated_at')} as updated_at, s.locked,
  s.solar_system_id, s.map_id, s.custom_name, s.position_x, s.position_y`;

const CONNECTION_COLUMNS = `c.id, c.type::int as type, c.mass_status::int as mass_status, c.ship_size_type::int as ship_size_type,
  c.time_status::int as time_status, c.map_id, ${tsMicro('c.inserted_at')} as inserted_at, ${tsMicro('c.updated_at')} as updated_at,
  c.solar_system_source, c.solar_system_target, c.wormhole_type`;

const KILL_COLUMNS = `k.killmail_id::float8 as killmail_id, ${tsSeconds('k.kill_time')} as kill_time, k.solar_system_id, k.attacker_count,
  k.npc, k.total_value, k.final_blow_alliance_id::float8 as final_blow_alliance_id, k.final_blow_char_id::float8 as final_blow_char_id,
  k.final_blow_corp_id::float8 as final_blow_corp_id, k.final_blow_ship_type_id::float8 as final_blow_ship_type_id,
  k.final_blow_alliance_ticker, k.final_blow_char_name, k.final_blow_corp_ticker, k.final_blow_ship_name,
  k.victim_alliance_id::float8 as victim_alliance_id, k.victim_char_id::float8 as victim_char_id,
  k.victim_corp_id::float8 as victim_corp_id, k.victim_ship_type_id::float8 as victim_ship_type_id,
  k.victim_char_name, k.victim_corp_ticker, k.victim_ship_name, k.zkb`;

const SQL = {
  key: 'select id, map_id, character_id, key_hash from map_api_keys where key_hash = $1 and revoked_at is null',
  map: 'select id, slug, owner_character_id, webhooks_enabled from maps where id = $1',
  systems: `select ${SYSTEM_COLUMNS} from map_systems s where s.map_id = $1 and s.visible order by s.name, s.solar_system_id`,
  connections: `select ${CONNECTION_COLUMNS} from map_connections c where c.map_id = $1 order by c.inserted_at, c.id`,
  killSystems: 'select solar_system_id from map_systems where map_id = $1 and visible order by solar_system_id',
  kills: `select ${KILL_COLUMNS} from (
         select k.*, row_number() over (partition by k.solar_system_id order by k.kill_time desc, k.killmail_id desc) as rank
         from map_kills k
         join map_systems s on s.map_id = k.map_id and s.solar_system_id = k.solar_system_id and s.visible
         where k.map_id = $1 and k.kill_time >= now() - make_interval(hours => 24)
       ) k
       where k.rank <= 100
       order by k.kill_time desc, k.killmail_id desc
       limit 1000`,
};

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN_RE = /^[A-Za-z0-9_\-.~+/=]{16,256}$/;

export async function runBaseline() {
  const pool = new pg.Pool({ connectionString: process.env.BASELINE_DATABASE_URL, max: Number(process.env.BASELINE_POOL_MAX ?? 10) });
  const keyCache = new Map();
  const send = (res, status, body) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const principal = async (header) => {
    const m = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!m || !TOKEN_RE.test(m[1])) return null;
    const hash = createHash('sha256').update(m[1], 'utf8').digest('hex');
    const now = Date.now();
    const hit = keyCache.get(hash);
    if (hit && hit.expires > now) return hit.mapId;
    const { rows } = await pool.query(SQL.key, [hash]);
    const mapId = rows[0]?.map_id ?? null;
    keyCache.set(hash, { mapId, expires: now + 3000 });
    return mapId;
  };
  const handlers = {
    '/api/map/systems': async (mapId) => (await pool.query(SQL.systems, [mapId])).rows,
    '/api/map/connections': async (mapId) => (await pool.query(SQL.connections, [mapId])).rows,
    '/api/map/systems-kills': async (mapId) => {
      const [systems, kills] = [(await pool.query(SQL.killSystems, [mapId])).rows, (await pool.query(SQL.kills, [mapId])).rows];
      const bySystem = new Map();
      for (const s of systems) bySystem.set(s.solar_system_id, []);
      for (const k of kills) bySystem.get(k.solar_system_id)?.push(k);
      return [...bySystem].map(([solar_system_id, list]) => ({ solar_system_id, kills: list }));
    },
  };
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
      const handler = handlers[url.pathname];
      if (!handler || req.method !== 'GET') return send(res, 404, { error: 'not_found' });
      const keyMapId = await principal(req.headers.authorization);
      if (!keyMapId) return send(res, 401, { error: 'unauthorized' });
      const mapId = url.searchParams.get('map_id')?.trim();
      if (!mapId || !UUID_RE.test(mapId)) return send(res, 400, { error: 'invalid_map_id' });
      const map = (await pool.query(SQL.map, [mapId])).rows[0];
      if (!map || map.id !== keyMapId) return send(res, 404, { error: 'map_not_found' });
      send(res, 200, { data: await handler(map.id) });
    } catch (err) {
      console.error(err);
      if (!res.headersSent) send(res, 503, { error: 'unavailable' });
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.BASELINE_PORT), '127.0.0.1', () => console.log('baseline listening'));
  // Requests still queued when the load stops would hit an ended pool: just exit.
  const stop = () => process.exit(0);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
