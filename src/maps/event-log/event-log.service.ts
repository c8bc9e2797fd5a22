import { tsMicro } from '../../db/sql.js';
import type { Db } from '../../db/db.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { MapAccess } from '../map-access.js';
import type { EventEnvelope } from '../../events/envelope.js';
import type { EventType } from '../../events/outbox.js';
import type { EventFilter } from '../../events/event-filter.js';
import { systemsCondition, type SystemFilter } from '../../events/system-filter.js';

/** The event log in PostgreSQL, for polling clients and for resync after a stream reset. */
export class EventLogService {
  constructor(
    private readonly db: Db,
    private readonly access = new MapAccess(db),
  ) {}

  /**
   * GET /api/maps/{map_id}/events: a page of the key's map's log after `after`, only the events the
   * filters want (`events=` types, `systems=` systems; both apply).
   */
  async page(
    principal: MapKeyPrincipal,
    mapPath: string,
    after: string | undefined,
    limit: number,
    filters: { events?: EventFilter; systems?: SystemFilter } = {},
  ): Promise<{ data: EventEnvelope[]; next_after: string | null }> {
    const map = await this.access.byPath(principal, mapPath);
    const types = filters.events && !filters.events.all ? [...filters.events.types] : null;
    const systems = filters.systems ? [...filters.systems].map(String) : null;
    const data = types === null && systems === null ? await this.list(map.id, after, limit) : await this.listFiltered(map.id, after, limit, types, systems);
    return { data, next_after: data.length === limit ? data.at(-1)!.id : null };
  }

  /** Events of a map with an id after `after`, oldest first, of these types (null: all) naming one of these systems (null: any). */
  async listFiltered(mapId: string, after: string | undefined, limit: number, types: string[] | null, systems: string[] | null): Promise<EventEnvelope[]> {
    const rows = await this.db.allBound<{ event_id: string; type: EventType; map_id: string; created_ms: string; payload: Record<string, unknown> }>(
      `select event_id, type, map_id, (extract(epoch from created_at) * 1000)::bigint as created_ms, payload
       from map_events where map_id = $1 and event_id is not null and ($2::text is null or event_id > $2::text)
         and ($3::text[] is null or type = any($3::text[])) and ${systemsCondition('$4')}
       order by event_id limit $5`,
      [mapId, after ?? null, types, systems, limit],
    );
    return rows.map((r) => ({ id: r.event_id, type: r.type, map_id: r.map_id, ts: new Date(Number(r.created_ms)).toISOString(), payload: r.payload }));
  }

  /** Events of a map with an id, after `after` (exclusive), oldest first. */
  async list(mapId: string, after: string | undefined, limit: number): Promise<EventEnvelope[]> {
    const rows = await this.db.all<{ event_id: string; type: EventType; map_id: string; created_ms: string; payload: Record<string, unknown> }>(
      `select event_id, type, map_id, (extract(epoch from created_at) * 1000)::bigint as created_ms, payload
       from map_events where map_id = ? and event_id is not null ${after ? 'and event_id > ?' : ''}
       order by event_id limit ?`,
      after ? [mapId, after, limit] : [mapId, limit],
    );
    return rows.map((r) => ({ id: r.event_id, type: r.type, map_id: r.map_id, ts: new Date(Number(r.created_ms)).toISOString(), payload: r.payload }));
  }

  /**
   * Events of a map with an id committed after `since`, oldest first, at most `limit`; only the given
   * types (null: every type). What a webhook recover sends again.
   */
  async listSince(mapId: string, since: Date, types: readonly string[] | null, limit: number): Promise<EventEnvelope[]> {
    const rows = await this.db.allBound<{ event_id: string; type: EventType; map_id: string; created_ms: string; payload: Record<string, unknown> }>(
      `select event_id, type, map_id, (extract(epoch from created_at) * 1000)::bigint as created_ms, payload
       from map_events where map_id = $1 and event_id is not null and created_at > $2 and ($3::text[] is null or type = any($3::text[]))
       order by event_id limit $4`,
      [mapId, since, types, limit],
    );
    return rows.map((r) => ({ id: r.event_id, type: r.type, map_id: r.map_id, ts: new Date(Number(r.created_ms)).toISOString(), payload: r.payload }));
  }

  /** One event of the map by id, or undefined (unknown, of another map, or pruned). */
  async byId(mapId: string, eventId: string): Promise<EventEnvelope | undefined> {
    const r = await this.db.one<{ event_id: string; type: EventType; map_id: string; created_ms: string; payload: Record<string, unknown> }>(
      `select event_id, type, map_id, (extract(epoch from created_at) * 1000)::bigint as created_ms, payload
       from map_events where map_id = ? and event_id = ?`,
      [mapId, eventId],
    );
    return r && { id: r.event_id, type: r.type, map_id: r.map_id, ts: new Date(Number(r.created_ms)).toISOString(), payload: r.payload };
  }

  /** Id of the newest event of the map that has its id, or null. */
  async newestId(mapId: string): Promise<string | null> {
    return (
      (await this.db.one<{ id: string | null }>('select max(event_id) as id from map_events where map_id = ? and event_id is not null', [mapId]))?.id ?? null
    );
  }

  /** How many events with an id the log holds for the map after `after`, counting at most `max`. */
  async countAfter(mapId: string, after: string, max: number): Promise<number> {
    const row = await this.db.one<{ n: string }>(
      'select count(*)::text as n from (select 1 from map_events where map_id = ? and event_id > ? order by event_id limit ?) e',
      [mapId, after, max],
    );
    return Number(row?.n ?? 0);
  }

  /** Id of the oldest event the log still holds for the map (older ones were pruned), or null. */
  async oldestId(mapId: string): Promise<string | null> {
    return (
      (await this.db.one<{ id: string | null }>('select min(event_id) as id from map_events where map_id = ? and event_id is not null', [mapId]))?.id ?? null
    );
  }

  /**
   * Events of a map written at or after `since` (ids assigned or not), newest first, at most `limit`:
   * the audit feed's rows. The log holds what its retention keeps.
   */
  async since(mapId: string, since: Date, limit: number): Promise<AuditEventRow[]> {
    return this.db.all<AuditEventRow>(
      `select type, payload, ${tsMicro('created_at')} as inserted_at from map_events
       where map_id = ? and created_at >= ? order by created_at desc, seq desc limit ?`,
      [mapId, since, limit],
    );
  }
}

/** An event as the audit feed reads it. */
export interface AuditEventRow {
  type: string;
  payload: Record<string, unknown>;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
}
