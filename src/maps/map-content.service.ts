import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../errors.js';
import type { Outbox } from '../events/outbox.js';
import { addSystemEvent, connectionAddedEvent, mapKillEvent } from './event-payloads.js';

export interface NewSystem {
  solarSystemId: number;
  /** Used when the solar system is not in the static data. */
  name?: string;
  customName?: string | null;
  description?: string | null;
  tag?: string | null;
  labels?: string | null;
  status?: number;
  visible?: boolean;
  locked?: boolean;
  positionX?: number;
  positionY?: number;
}

export interface NewConnection {
  solarSystemSource: number;
  solarSystemTarget: number;
  type?: number;
  massStatus?: number;
  timeStatus?: number;
  shipSizeType?: number;
  wormholeType?: string | null;
  locked?: boolean;
}

/** zKillboard's block of a killmail, stored as it came (jsonb). */
export interface Zkb {
  awox: boolean;
  destroyedValue: number;
  droppedValue: number;
  fittedValue: number;
  hash: string;
  labels: string[];
  locationID: number;
  npc: boolean;
  points: number;
  solo: boolean;
  totalValue: number;
}

export interface NewKill {
  killmailId: number;
  killTime: Date;
  solarSystemId: number;
  attackerCount: number;
  npc: boolean;
  totalValue: number;
  finalBlowAllianceId?: number | null;
  finalBlowCharId?: number | null;
  finalBlowCorpId?: number | null;
  finalBlowShipTypeId?: number | null;
  finalBlowAllianceTicker?: string | null;
  finalBlowCharName?: string | null;
  finalBlowCorpTicker?: string | null;
  finalBlowShipName?: string | null;
  victimAllianceId?: number | null;
  victimCharId?: number | null;
  victimCorpId?: number | null;
  victimShipTypeId?: number | null;
  victimCharName?: string | null;
  victimCorpTicker?: string | null;
  victimShipName?: string | null;
  zkb: Zkb;
}

export interface NewStructure {
  solarSystemId: number;
  structureTypeId: string;
  structureType: string;
  name: string;
  status: string;
  endTime?: Date | null;
  characterEveId?: string | null;
  notes?: string | null;
  ownerName?: string | null;
  ownerTicker?: string | null;
  ownerId?: string | null;
}

export interface ActivityIncrement {
  characterEveId: string;
  passages?: number;
  connections?: number;
  signatures?: number;
  at?: Date;
}

interface StaticRow {
  solar_system_name: string;
  type_description: string;
  class_title: string;
  statics: string[];
}

/**
 * Seeding side of map content, for the demo, the test factories and the benchmarks. Each change writes
 * its rows and its events in one transaction (the outbox), with the same event payloads as the editing
 * API (event-payloads.ts), but without the API's request rules: a system outside the static data may be
 * named, a system may be added hidden, the same two systems may be connected more than once. The
 * editing API (map-edit.service.ts) shares the kill writer (insertKills).
 */
export class MapContentService {
  constructor(private readonly outbox: Outbox) {}

  async addSystem(em: EntityManager, mapId: string, s: NewSystem): Promise<string> {
    return em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const ctx = tx.getTransactionContext();
      const statics = await conn.execute<StaticRow[]>(
        'select solar_system_name, type_description, class_title, statics from solar_systems where solar_system_id = ?',
        [s.solarSystemId],
        'all',
        ctx,
      );
      const info = statics[0];
      const name = info?.solar_system_name ?? s.name;
      if (!name) throw new NotFoundError('Solar system not found', 'solar_system_not_found');
      const rows = await conn.execute<{ id: string }[]>(
        `insert into map_systems (map_id, solar_system_id, name, custom_name, description, tag, labels, status, visible, locked, position_x, position_y)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (map_id, solar_system_id) do update set visible = excluded.visible, position_x = excluded.position_x,
           position_y = excluded.position_y, updated_at = now()
         returning id`,
        [
          mapId,
          s.solarSystemId,
          name,
          s.customName ?? null,
          s.description ?? null,
          s.tag ?? null,
          s.labels ?? null,
          s.status ?? 0,
          s.visible ?? true,
          s.locked ?? false,
          s.positionX ?? 0,
          s.positionY ?? 0,
        ],
        'all',
        ctx,
      );
      const id = rows[0]!.id;
      if (s.visible !== false) {
        await this.outbox.append(tx, [
          addSystemEvent(mapId, { id, solar_system_id: s.solarSystemId, name, position_x: s.positionX ?? 0, position_y: s.positionY ?? 0 }, info),
        ]);
      }
      return id;
    });
  }

  async addConnection(em: EntityManager, mapId: string, c: NewConnection): Promise<string> {
    return em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const ctx = tx.getTransactionContext();
      const rows = await conn.execute<{ id: string }[]>(
        `insert into map_connections (map_id, solar_system_source, solar_system_target, type, mass_status, time_status, ship_size_type, wormhole_type, locked)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
        [
          mapId,
          c.solarSystemSource,
          c.solarSystemTarget,
          c.type ?? 0,
          c.massStatus ?? 0,
          c.timeStatus ?? 0,
          c.shipSizeType ?? 2,
          c.wormholeType ?? null,
          c.locked ?? false,
        ],
        'all',
        ctx,
      );
      const id = rows[0]!.id;
      const names = await conn.execute<{ solar_system_id: number; name: string }[]>(
        'select solar_system_id, name from map_systems where map_id = ? and solar_system_id in (?, ?)',
        [mapId, c.solarSystemSource, c.solarSystemTarget],
        'all',
        ctx,
      );
      const nameOf = (sid: number) => names.find((n) => n.solar_system_id === sid)?.name ?? null;
      await this.outbox.append(tx, [
        connectionAddedEvent(
          mapId,
          {
            id,
            solar_system_source: c.solarSystemSource,
            solar_system_target: c.solarSystemTarget,
            type: c.type ?? 0,
            mass_status: c.massStatus ?? 0,
            ship_size_type: c.shipSizeType ?? 2,
            time_status: c.timeStatus ?? 0,
            wormhole_type: c.wormholeType ?? null,
            locked: c.locked ?? false,
          },
          nameOf,
        ),
      ]);
      return id;
    });
  }

  /** Idempotent by killmail_id: a known kill is left as it is and emits nothing. Returns true when new. */
  async addKill(em: EntityManager, mapId: string, k: NewKill): Promise<boolean> {
    return em.transactional((tx) => insertKill(this.outbox, tx, mapId, k));
  }

  /** Structure timers emit no events (decisions §5). */
  async addStructure(em: EntityManager, mapId: string, s: NewStructure): Promise<string> {
    const conn = em.getConnection();
    const systems = await conn.execute<{ id: string; name: string }[]>(
      'select id, name from map_systems where map_id = ? and solar_system_id = ?',
      [mapId, s.solarSystemId],
    );
    const system = systems[0];
    if (!system) throw new NotFoundError('System not found', 'system_not_found');
    const rows = await conn.execute<{ id: string }[]>(
      `insert into map_structures (map_id, system_id, solar_system_id, solar_system_name, structure_type_id, structure_type,
         character_eve_id, name, notes, owner_name, owner_ticker, owner_id, status, end_time)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
      [
        mapId,
        system.id,
        s.solarSystemId,
        system.name,
        s.structureTypeId,
        s.structureType,
        s.characterEveId ?? null,
        s.name,
        s.notes ?? null,
        s.ownerName ?? null,
        s.ownerTicker ?? null,
        s.ownerId ?? null,
        s.status,
        s.endTime ?? null,
      ],
    );
    return rows[0]!.id;
  }

  /** Adds to a character's activity counters for the UTC day of `at` (default now). */
  async recordActivity(em: EntityManager, mapId: string, a: ActivityIncrement): Promise<void> {
    const at = a.at ?? new Date();
    const chars = await em.getConnection().execute<{ id: string }[]>('select id from characters where eve_id = ?', [a.characterEveId]);
    const character = chars[0];
    if (!character) throw new NotFoundError('Character not found', 'character_not_found');
    await em.getConnection().execute(
      `insert into character_activity (map_id, character_id, day, passages, connections, signatures, last_activity_at)
       values (?, ?, (?::timestamptz at time zone 'UTC')::date, ?, ?, ?, ?)
       on conflict (map_id, character_id, day) do update set
         passages = character_activity.passages + excluded.passages,
         connections = character_activity.connections + excluded.connections,
         signatures = character_activity.signatures + excluded.signatures,
         last_activity_at = greatest(character_activity.last_activity_at, excluded.last_activity_at)`,
      [mapId, character.id, at, a.passages ?? 0, a.connections ?? 0, a.signatures ?? 0, at],
    );
  }
}

/**
 * Stores one kill inside the caller's transaction (`tx` is the transactional EM) and records its
 * map_kill event; a killmail the map already has is left as it is and emits nothing. True when new.
 */
export async function insertKill(outbox: Outbox, tx: EntityManager, mapId: string, k: NewKill): Promise<boolean> {
  return (await insertKills(outbox, tx, mapId, [k])) === 1;
}

const KILL_COLUMN_COUNT = 23;

/**
 * Stores kills inside the caller's transaction with one multi-row insert, and records a map_kill
 * event per new kill, in input order. A killmail the map already has, or one repeated in `kills`, is
 * left as it is and emits nothing. `system_name` is the map system's name, else the static name.
 * Returns how many kills were new.
 */
export async function insertKills(outbox: Outbox, tx: EntityManager, mapId: string, kills: NewKill[]): Promise<number> {
  const seen = new Set<number>();
  const unique = kills.filter((k) => !seen.has(k.killmailId) && seen.add(k.killmailId));
  if (unique.length === 0) return 0;
  const conn = tx.getConnection();
  const ctx = tx.getTransactionContext();
  const row = `(${Array.from({ length: KILL_COLUMN_COUNT }, (_, i) => (i === KILL_COLUMN_COUNT - 1 ? '?::jsonb' : '?')).join(', ')})`;
  const inserted = await conn.execute<{ killmail_id: number }[]>(
    `insert into map_kills (map_id, killmail_id, kill_time, solar_system_id, attacker_count, npc, total_value,
       final_blow_alliance_id, final_blow_char_id, final_blow_corp_id, final_blow_ship_type_id,
       final_blow_alliance_ticker, final_blow_char_name, final_blow_corp_ticker, final_blow_ship_name,
       victim_alliance_id, victim_char_id, victim_corp_id, victim_ship_type_id,
       victim_char_name, victim_corp_ticker, victim_ship_name, zkb)
     values ${unique.map(() => row).join(', ')}
     on conflict (map_id, killmail_id) do nothing returning killmail_id::float8 as killmail_id`,
    unique.flatMap((k) => [
      mapId,
      k.killmailId,
      k.killTime,
      k.solarSystemId,
      k.attackerCount,
      k.npc,
      k.totalValue,
      k.finalBlowAllianceId ?? null,
      k.finalBlowCharId ?? null,
      k.finalBlowCorpId ?? null,
      k.finalBlowShipTypeId ?? null,
      k.finalBlowAllianceTicker ?? null,
      k.finalBlowCharName ?? null,
      k.finalBlowCorpTicker ?? null,
      k.finalBlowShipName ?? null,
      k.victimAllianceId ?? null,
      k.victimCharId ?? null,
      k.victimCorpId ?? null,
      k.victimShipTypeId ?? null,
      k.victimCharName ?? null,
      k.victimCorpTicker ?? null,
      k.victimShipName ?? null,
      JSON.stringify(k.zkb),
    ]),
    'all',
    ctx,
  );
  if (inserted.length === 0) return 0;
  const isNew = new Set(inserted.map((r) => Number(r.killmail_id)));
  const fresh = unique.filter((k) => isNew.has(k.killmailId));
  const systemIds = [...new Set(fresh.map((k) => k.solarSystemId))];
  const names = await conn.execute<{ sid: number; name: string | null }[]>(
    `select v.sid, coalesce((select name from map_systems where map_id = ? and solar_system_id = v.sid),
                            (select solar_system_name from solar_systems where solar_system_id = v.sid)) as name
     from (values ${systemIds.map(() => '(?::int)').join(', ')}) as v(sid)`,
    [mapId, ...systemIds],
    'all',
    ctx,
  );
  const nameOf = new Map(names.map((n) => [n.sid, n.name]));
  await outbox.append(
    tx,
    fresh.map((k) => mapKillEvent(mapId, k, nameOf.get(k.solarSystemId) ?? null)),
  );
  return fresh.length;
}
