import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, ConflictError, NotFoundError, ValidationError, type ErrorDetail } from '../errors.js';
import type { Outbox, OutboxEvent } from '../events/outbox.js';
import { tsSeconds, UUID_RE } from '../db/sql.js';
import { CONNECTION_COLUMNS, SYSTEM_COLUMNS } from './map-data.service.js';
import { CHARACTER_COLUMNS, toCharacterDto } from '../characters/character.repository.js';
import { insertKills, type NewKill } from './map-content.service.js';
import type { ConnectionDto, SystemDto, TrackedCharacterDto } from './map.dto.js';
import type {
  AddConnectionRequest,
  AddSystemRequest,
  CharacterActivityDayDto,
  CharacterActivityRequest,
  KillImportResultDto,
  KillInput,
  SystemFieldsInput,
  SystemStatusName,
  UpdateConnectionRequest,
} from './map-edit.dto.js';
import {
  addSystemEvent,
  connectionAddedEvent,
  connectionRemovedEvent,
  connectionUpdatedEvent,
  deletedSystemEvent,
  systemMetadataChangedEvent,
  type ConnectionRow,
  type NameOf,
  type SystemRow,
  type SystemStaticRow,
} from './event-payloads.js';
import { actorEveId, isJsonText, lockMap, placeholders, queryIn, systemNotFound, type Query } from './edit-support.js';

/** Status names in code order (decisions §3). */
export const SYSTEM_STATUS_NAMES: readonly SystemStatusName[] = ['clear', 'home', 'friendly', 'looking_for', 'warning', 'target', 'dangerous'];

/** Editable system fields, in the order `changed` lists them. */
const SYSTEM_FIELDS = ['position_x', 'position_y', 'custom_name', 'tag', 'status', 'labels', 'description', 'locked'] as const;
type SystemField = (typeof SYSTEM_FIELDS)[number];

/** Editable connection fields, in the order `changed` lists them. */
const CONNECTION_FIELDS = ['type', 'mass_status', 'time_status', 'ship_size_type', 'wormhole_type', 'locked'] as const;
type ConnectionField = (typeof CONNECTION_FIELDS)[number];

const SYSTEM_ROW = `id, solar_system_id, name, custom_name, tag, status::int as status, labels, description, locked, visible, position_x, position_y`;
const CONNECTION_ROW = `id, solar_system_source, solar_system_target, type::int as type, mass_status::int as mass_status,
  ship_size_type::int as ship_size_type, time_status::int as time_status, wormhole_type, locked`;

interface StaticInfo extends SystemStaticRow {
  solar_system_id: number;
  solar_system_name: string;
}

/** The provided fields of a system write, normalised (status as its integer). */
function systemValues(input: SystemFieldsInput, where: string): Partial<Record<SystemField, unknown>> {
  const out: Partial<Record<SystemField, unknown>> = {};
  for (const f of SYSTEM_FIELDS) {
    const v = input[f];
    if (v === undefined) continue;
    out[f] = f === 'status' && typeof v === 'string' ? SYSTEM_STATUS_NAMES.indexOf(v as SystemStatusName) : v;
  }
  if (typeof out.labels === 'string' && !isJsonText(out.labels)) {
    throw new ValidationError([{ field: `${where}labels`, message: 'must be a JSON-encoded value' }]);
  }
  return out;
}

/** The fields whose value differs from the row, in SYSTEM_FIELDS / CONNECTION_FIELDS order. */
function changedFields<F extends string>(fields: readonly F[], row: Record<F, unknown>, values: Partial<Record<F, unknown>>): F[] {
  return fields.filter((f) => f in values && values[f] !== row[f]);
}

function setClause(fields: readonly string[]): string {
  return fields.map((f) => `${f} = ?`).join(', ');
}

function namesOf(rows: { solar_system_id: number; name: string }[]): NameOf {
  const byId = new Map(rows.map((r) => [r.solar_system_id, r.name]));
  return (sid) => byId.get(sid) ?? null;
}

/** Names of systems on the map (visible or not), for connection events. */
async function mapSystemNames(q: Query, mapId: string, ids: number[]): Promise<NameOf> {
  if (!ids.length) return () => null;
  const unique = [...new Set(ids)];
  const rows = await q<{ solar_system_id: number; name: string }>(
    `select solar_system_id, name from map_systems where map_id = ? and solar_system_id in (${placeholders(unique.length)})`,
    [mapId, ...unique],
  );
  return namesOf(rows);
}

async function visibleSystem(q: Query, mapId: string, solarSystemId: number): Promise<SystemRow | undefined> {
  const rows = await q<SystemRow>(`select ${SYSTEM_ROW} from map_systems where map_id = ? and solar_system_id = ? and visible`, [mapId, solarSystemId]);
  return rows[0];
}

function connectionIdOf(id: string): string {
  if (!UUID_RE.test(id)) throw new NotFoundError('Connection not found', 'connection_not_found');
  return id.toLowerCase();
}

function normaliseWormholeType<T extends { wormhole_type?: string | null }>(input: T): T {
  return typeof input.wormhole_type === 'string' ? { ...input, wormhole_type: input.wormhole_type.toUpperCase() } : input;
}

function toNewKill(k: KillInput): NewKill {
  return {
    killmailId: k.killmail_id,
    killTime: k.kill_time,
    solarSystemId: k.solar_system_id,
    attackerCount: k.attacker_count,
    npc: k.npc,
    totalValue: k.total_value,
    finalBlowAllianceId: k.final_blow_alliance_id ?? null,
    finalBlowCharId: k.final_blow_char_id ?? null,
    finalBlowCorpId: k.final_blow_corp_id ?? null,
    finalBlowShipTypeId: k.final_blow_ship_type_id ?? null,
    finalBlowAllianceTicker: k.final_blow_alliance_ticker ?? null,
    finalBlowCharName: k.final_blow_char_name ?? null,
    finalBlowCorpTicker: k.final_blow_corp_ticker ?? null,
    finalBlowShipName: k.final_blow_ship_name ?? null,
    victimAllianceId: k.victim_alliance_id ?? null,
    victimCharId: k.victim_char_id ?? null,
    victimCorpId: k.victim_corp_id ?? null,
    victimShipTypeId: k.victim_ship_type_id ?? null,
    victimCharName: k.victim_char_name ?? null,
    victimCorpTicker: k.victim_corp_ticker ?? null,
    victimShipName: k.victim_ship_name ?? null,
    zkb: k.zkb,
  };
}

/**
 * The editing API's writes to systems, connections, kills, tracking and activity. Every change writes
 * its rows and its events (decisions §5) in one transaction; a refused request writes nothing.
 */
export class MapEditService {
  constructor(private readonly outbox: Outbox) {}

  /**
   * Adds systems (or shows hidden ones again, keeping their earlier settings unless given). A system
   * already visible is updated with the given fields instead. Events: add_system for each system
   * that appears, system_metadata_changed (with `changed`) for each visible one that changed.
   * With `batch`, error details name the body path as `systems[0].…`.
   */
  async addSystems(em: EntityManager, mapId: string, inputs: AddSystemRequest[], batch: boolean): Promise<SystemDto[]> {
    const where = (i: number) => (batch ? `systems[${i}].` : '');
    const seen = new Map<number, number>();
    const dupes: ErrorDetail[] = [];
    inputs.forEach((s, i) => {
      if (seen.has(s.solar_system_id)) dupes.push({ field: `${where(i)}solar_system_id`, message: `${s.solar_system_id} is listed more than once` });
      seen.set(s.solar_system_id, i);
    });
    if (dupes.length) throw new ValidationError(dupes);
    const values = inputs.map((s, i) => systemValues(s, where(i)));
    const ids = inputs.map((s) => s.solar_system_id);

    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const statics = await q<StaticInfo>(
        `select solar_system_id, solar_system_name, type_description, class_title, statics from solar_systems
         where solar_system_id in (${placeholders(ids.length)})`,
        ids,
      );
      const staticById = new Map(statics.map((s) => [s.solar_system_id, s]));
      const unknown = inputs.flatMap((s, i) =>
        staticById.has(s.solar_system_id) ? [] : [{ field: `${where(i)}solar_system_id`, message: `${s.solar_system_id} is not a known solar system` }],
      );
      if (unknown.length) throw new AppError(404, 'solar_system_not_found', 'Solar system not found', unknown);

      const existing = await q<SystemRow>(
        `select ${SYSTEM_ROW} from map_systems where map_id = ? and solar_system_id in (${placeholders(ids.length)})`,
        [mapId, ...ids],
      );
      const existingById = new Map(existing.map((r) => [r.solar_system_id, r]));
      const events: OutboxEvent[] = [];
      const resultIds: string[] = [];

      for (const [i, input] of inputs.entries()) {
        const info = staticById.get(input.solar_system_id)!;
        const v = values[i]!;
        const row = existingById.get(input.solar_system_id);
        if (!row) {
          const inserted = await q<SystemRow>(
            `insert into map_systems (map_id, solar_system_id, name, custom_name, description, tag, labels, status, visible, locked, position_x, position_y)
             values (?, ?, ?, ?, ?, ?, ?, ?, true, ?, ?, ?) returning ${SYSTEM_ROW}`,
            [
              mapId,
              input.solar_system_id,
              info.solar_system_name,
              v.custom_name ?? null,
              v.description ?? null,
              v.tag ?? null,
              v.labels ?? null,
              v.status ?? 0,
              v.locked ?? false,
              v.position_x ?? 0,
              v.position_y ?? 0,
            ],
          );
          events.push(addSystemEvent(mapId, inserted[0]!, info));
          resultIds.push(inserted[0]!.id);
        } else if (!row.visible) {
          const fields = Object.keys(v) as SystemField[];
          const shown = await q<SystemRow>(
            `update map_systems set visible = true, ${fields.map((f) => `${f} = ?, `).join('')}updated_at = now() where id = ? returning ${SYSTEM_ROW}`,
            [...fields.map((f) => v[f]), row.id],
          );
          events.push(addSystemEvent(mapId, shown[0]!, info));
          resultIds.push(row.id);
        } else {
          const changed = changedFields(SYSTEM_FIELDS, row, v);
          if (changed.length) {
            const updated = await q<SystemRow>(`update map_systems set ${setClause(changed)}, updated_at = now() where id = ? returning ${SYSTEM_ROW}`, [
              ...changed.map((f) => v[f]),
              row.id,
            ]);
            events.push(systemMetadataChangedEvent(mapId, updated[0]!, changed));
          }
          resultIds.push(row.id);
        }
      }
      await this.outbox.append(tx, events);
      const rows = await q<SystemDto>(`select ${SYSTEM_COLUMNS} from map_systems s where s.id in (${placeholders(resultIds.length)})`, resultIds);
      const byId = new Map(rows.map((r) => [r.id, r]));
      return resultIds.map((id) => byId.get(id)!);
    });
  }

  /** Changes a visible system's fields; system_metadata_changed lists the fields that changed (no event when none did). */
  async updateSystem(em: EntityManager, mapId: string, solarSystemId: number, input: SystemFieldsInput): Promise<SystemDto> {
    const v = systemValues(input, '');
    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const row = await visibleSystem(q, mapId, solarSystemId);
      if (!row) throw systemNotFound();
      const changed = changedFields(SYSTEM_FIELDS, row, v);
      if (changed.length) {
        const updated = await q<SystemRow>(`update map_systems set ${setClause(changed)}, updated_at = now() where id = ? returning ${SYSTEM_ROW}`, [
          ...changed.map((f) => v[f]),
          row.id,
        ]);
        await this.outbox.append(tx, [systemMetadataChangedEvent(mapId, updated[0]!, changed)]);
      }
      const rows = await q<SystemDto>(`select ${SYSTEM_COLUMNS} from map_systems s where s.id = ?`, [row.id]);
      return rows[0]!;
    });
  }

  /**
   * Hides a visible system (visible=false, settings kept) and removes its connections. Events, in one
   * transaction: connection_removed for each removed connection, then deleted_system. A locked
   * system is refused (409 `system_locked`).
   */
  async deleteSystem(em: EntityManager, mapId: string, solarSystemId: number): Promise<void> {
    await em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const row = await visibleSystem(q, mapId, solarSystemId);
      if (!row) throw systemNotFound();
      if (row.locked) throw new ConflictError('system_locked', 'System is locked; unlock it before deleting it');
      const removed = await q<ConnectionRow>(
        `select ${CONNECTION_ROW} from map_connections where map_id = ? and (solar_system_source = ? or solar_system_target = ?)
         order by inserted_at, id`,
        [mapId, solarSystemId, solarSystemId],
      );
      if (removed.length) await q(`delete from map_connections where id in (${placeholders(removed.length)})`, removed.map((c) => c.id));
      const nameOf = await mapSystemNames(
        q,
        mapId,
        removed.flatMap((c) => [c.solar_system_source, c.solar_system_target]),
      );
      await q('update map_systems set visible = false, updated_at = now() where id = ?', [row.id]);
      await this.outbox.append(tx, [...removed.map((c) => connectionRemovedEvent(mapId, c, nameOf)), deletedSystemEvent(mapId, row)]);
    });
  }

  /**
   * Connects two visible systems of the map. Event connection_added. 404 `system_not_found` when an
   * end is not on the map; 409 `connection_exists` when the two are already connected (either way).
   */
  async addConnection(em: EntityManager, mapId: string, body: AddConnectionRequest): Promise<ConnectionDto> {
    const input = normaliseWormholeType(body);
    if (input.solar_system_source === input.solar_system_target) {
      throw new ValidationError([{ field: 'solar_system_target', message: 'must differ from solar_system_source' }]);
    }
    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const ends = await q<{ solar_system_id: number; name: string }>(
        'select solar_system_id, name from map_systems where map_id = ? and visible and solar_system_id in (?, ?)',
        [mapId, input.solar_system_source, input.solar_system_target],
      );
      const missing = (['solar_system_source', 'solar_system_target'] as const)
        .filter((f) => !ends.some((e) => e.solar_system_id === input[f]))
        .map((f) => ({ field: f, message: `${input[f]} is not a system on this map` }));
      if (missing.length) throw systemNotFound(missing);
      const dup = await q(
        `select id from map_connections where map_id = ?
           and ((solar_system_source = ? and solar_system_target = ?) or (solar_system_source = ? and solar_system_target = ?)) limit 1`,
        [mapId, input.solar_system_source, input.solar_system_target, input.solar_system_target, input.solar_system_source],
      );
      if (dup.length) throw new ConflictError('connection_exists', 'These systems are already connected');
      const rows = await q<ConnectionRow>(
        `insert into map_connections (map_id, solar_system_source, solar_system_target, type, mass_status, time_status, ship_size_type, wormhole_type, locked)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${CONNECTION_ROW}`,
        [
          mapId,
          input.solar_system_source,
          input.solar_system_target,
          input.type ?? 0,
          input.mass_status ?? 0,
          input.time_status ?? 0,
          input.ship_size_type ?? 2,
          input.wormhole_type ?? null,
          input.locked ?? false,
        ],
      );
      const row = rows[0]!;
      await this.outbox.append(tx, [connectionAddedEvent(mapId, row, namesOf(ends))]);
      return this.connectionDto(q, row.id);
    });
  }

  /** Changes a connection; connection_updated lists the fields that changed (no event when none did). */
  async updateConnection(em: EntityManager, mapId: string, id: string, body: UpdateConnectionRequest): Promise<ConnectionDto> {
    const connectionId = connectionIdOf(id);
    const input = normaliseWormholeType(body);
    const v: Partial<Record<ConnectionField, unknown>> = {};
    for (const f of CONNECTION_FIELDS) if (input[f] !== undefined) v[f] = input[f];
    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const row = await this.connectionRow(q, mapId, connectionId);
      const changed = changedFields(CONNECTION_FIELDS, row, v);
      if (changed.length) {
        const updated = await q<ConnectionRow>(
          `update map_connections set ${setClause(changed)}, updated_at = now() where id = ? returning ${CONNECTION_ROW}`,
          [...changed.map((f) => v[f]), row.id],
        );
        const nameOf = await mapSystemNames(q, mapId, [row.solar_system_source, row.solar_system_target]);
        await this.outbox.append(tx, [connectionUpdatedEvent(mapId, updated[0]!, nameOf, changed)]);
      }
      return this.connectionDto(q, row.id);
    });
  }

  /** Removes a connection; event connection_removed. A locked connection is refused (409 `connection_locked`). */
  async deleteConnection(em: EntityManager, mapId: string, id: string): Promise<void> {
    const connectionId = connectionIdOf(id);
    await em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const row = await this.connectionRow(q, mapId, connectionId);
      if (row.locked) throw new ConflictError('connection_locked', 'Connection is locked; unlock it before deleting it');
      await q('delete from map_connections where id = ?', [row.id]);
      const nameOf = await mapSystemNames(q, mapId, [row.solar_system_source, row.solar_system_target]);
      await this.outbox.append(tx, [connectionRemovedEvent(mapId, row, nameOf)]);
    });
  }

  /**
   * Stores killmails the map does not know yet, in one transaction; each new one emits map_kill. A
   * killmail_id already stored (or repeated in the batch) is a duplicate: left as it is, no event.
   * `fieldPrefix` names a kill's body path in error details (`kills[0].`, `[0].`).
   */
  async importKills(em: EntityManager, mapId: string, kills: KillInput[], fieldPrefix: (index: number) => string = () => ''): Promise<KillImportResultDto> {
    const ids = [...new Set(kills.map((k) => k.solar_system_id))];
    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      const known = await q<{ solar_system_id: number }>(
        `select solar_system_id from solar_systems where solar_system_id in (${placeholders(ids.length)})`,
        ids,
      );
      const knownIds = new Set(known.map((r) => r.solar_system_id));
      const unknown = kills.flatMap((k, i) =>
        knownIds.has(k.solar_system_id) ? [] : [{ field: `${fieldPrefix(i)}solar_system_id`, message: `${k.solar_system_id} is not a known solar system` }],
      );
      if (unknown.length) throw new AppError(404, 'solar_system_not_found', 'Solar system not found', unknown);
      const inserted = await insertKills(this.outbox, tx, mapId, kills.map(toNewKill));
      return { inserted, duplicates: kills.length - inserted };
    });
  }

  /** Tracks or untracks a known character on the map (adds it to the map when needed). No event. */
  async setTracked(em: EntityManager, mapId: string, eveId: string, tracked: boolean): Promise<TrackedCharacterDto> {
    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      const chars = await q<Record<string, unknown>>(`select ch.id, ${CHARACTER_COLUMNS} from characters ch where ch.eve_id = ?`, [eveId]);
      const ch = chars[0];
      if (!ch) throw new NotFoundError('Character not found', 'character_not_found');
      const rows = await q<{ id: string; tracked: boolean }>(
        `insert into map_characters (map_id, character_id, tracked) values (?, ?, ?)
         on conflict (map_id, character_id) do update set tracked = excluded.tracked,
           updated_at = case when map_characters.tracked = excluded.tracked then map_characters.updated_at else now() end
         returning id, tracked`,
        [mapId, ch.id, tracked],
      );
      return { id: rows[0]!.id, character: toCharacterDto(ch), tracked: rows[0]!.tracked, map_id: mapId };
    });
  }

  /**
   * Adds to today's (UTC) activity counters of a character: `character_eve_id`, else the key's
   * character. Each counter saturates at 2147483647. At least one increment must be positive.
   */
  async recordActivity(em: EntityManager, mapId: string, actorCharacterId: string, input: CharacterActivityRequest): Promise<CharacterActivityDayDto> {
    const passages = input.passages ?? 0;
    const connections = input.connections ?? 0;
    const signatures = input.signatures ?? 0;
    if (passages + connections + signatures === 0) {
      throw new ValidationError([{ field: 'body', message: 'at least one of passages, connections, signatures must be positive' }]);
    }
    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      const eveId = input.character_eve_id ?? (await actorEveId(q, actorCharacterId));
      const chars = await q<Record<string, unknown>>(`select ch.id, ${CHARACTER_COLUMNS} from characters ch where ch.eve_id = ?`, [eveId]);
      const ch = chars[0];
      if (!ch) throw new NotFoundError('Character not found', 'character_not_found');
      const cap = (col: string) => `least(character_activity.${col}::bigint + excluded.${col}, 2147483647)::int`;
      const rows = await q<{ day: string; passages: number; connections: number; signatures: number; timestamp: string }>(
        `insert into character_activity (map_id, character_id, day, passages, connections, signatures, last_activity_at)
         values (?, ?, (now() at time zone 'UTC')::date, ?, ?, ?, now())
         on conflict (map_id, character_id, day) do update set
           passages = ${cap('passages')}, connections = ${cap('connections')}, signatures = ${cap('signatures')},
           last_activity_at = greatest(character_activity.last_activity_at, excluded.last_activity_at)
         returning to_char(day, 'YYYY-MM-DD') as day, passages, connections, signatures, ${tsSeconds('last_activity_at')} as timestamp`,
        [mapId, ch.id, passages, connections, signatures],
      );
      const r = rows[0]!;
      return { character: toCharacterDto(ch), day: r.day, passages: r.passages, connections: r.connections, signatures: r.signatures, timestamp: r.timestamp };
    });
  }

  private async connectionRow(q: Query, mapId: string, id: string): Promise<ConnectionRow> {
    const rows = await q<ConnectionRow>(`select ${CONNECTION_ROW} from map_connections where map_id = ? and id = ?`, [mapId, id]);
    if (!rows[0]) throw new NotFoundError('Connection not found', 'connection_not_found');
    return rows[0];
  }

  private async connectionDto(q: Query, id: string): Promise<ConnectionDto> {
    const rows = await q<ConnectionDto>(`select ${CONNECTION_COLUMNS} from map_connections c where c.id = ?`, [id]);
    return rows[0]!;
  }
}
