import type { Db } from '../../db/db.js';
import type { Outbox } from '../../events/outbox.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { SolarSystemRepository } from '../../static-data/solar-system.repository.js';
import { MapAccess, type MapReference } from '../map-access.js';
import { mapKillEvent } from '../event-payloads.js';
import { solarSystemsNotFound } from '../edit-support.js';
import type { KillImportResultDto, KillInput } from './kills.dto.js';
import { killsOfBody, killTimeProblem, toNewKill, uniqueKills } from './kills.rules.js';
import { NotFoundError, ValidationError } from '../../common/errors.js';
import { KillRepository, type NewKill } from './kill.repository.js';

/** Solar system ids a KillsService remembers at most (the static data has about 8,500). */
const KNOWN_SYSTEMS_MAX = 20_000;

/** Kills of a map: the editing API's import, the seeding writes and retention. */
export class KillsService {
  private readonly access: MapAccess;
  /**
   * Solar system ids the static data holds, as found by earlier imports: the importer adds and updates
   * systems but never removes one, so a kill in a system seen before needs no lookup (one round trip
   * fewer per import; there are about 8,500 systems).
   */
  private readonly knownSystems = new Set<number>();

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly kills = new KillRepository(),
    private readonly solarSystems = new SolarSystemRepository(),
  ) {
    this.access = new MapAccess(db);
  }

  /**
   * Stores killmails the map does not know yet, all or none; each new one emits map_kill. A
   * killmail_id already stored (or repeated in the batch) is a duplicate: left as it is, no event. The
   * body is one kill, an array or `{kills}`; error details name a kill's body path (`kills[0].`, `[0].`).
   */
  async import(principal: MapKeyPrincipal, ref: MapReference, body: KillInput | KillInput[] | { kills: KillInput[] }): Promise<KillImportResultDto> {
    const map = await this.access.resolve(principal, ref);
    const { kills, fieldPrefix } = killsOfBody(body);
    const now = Date.now();
    const badTimes = kills.flatMap((k, i) => {
      const problem = killTimeProblem(k.kill_time, now);
      return problem ? [{ field: `${fieldPrefix(i)}kill_time`, message: problem }] : [];
    });
    if (badTimes.length) throw new ValidationError(badTimes);
    // The systems are static data, checked before the write (looked up only while not seen before); the
    // write is one statement, atomic on its own (`store`). No explicit transaction: one or two round trips
    // instead of four, and an event's time (its transaction's start) is that much closer to its commit.
    const unseen = kills.map((k) => k.solar_system_id).filter((id) => !this.knownSystems.has(id));
    const found = unseen.length ? await this.solarSystems.byIds(this.db, unseen) : new Map<number, unknown>();
    for (const id of found.keys()) if (this.knownSystems.size < KNOWN_SYSTEMS_MAX) this.knownSystems.add(id);
    const unknown = kills.flatMap((k, i) =>
      this.knownSystems.has(k.solar_system_id) || found.has(k.solar_system_id)
        ? []
        : [{ field: `${fieldPrefix(i)}solar_system_id`, message: `${k.solar_system_id} is not a known solar system` }],
    );
    if (unknown.length) throw solarSystemsNotFound(unknown);
    const inserted = await this.store(this.db, map.id, kills.map(toNewKill));
    return { inserted, duplicates: kills.length - inserted };
  }

  /**
   * Stores kills (in the transaction of `db` when it has one, else in one of their own) and records a
   * map_kill event per new kill, in input order. A killmail the map already has, or one repeated in
   * `kills`, is left as it is and emits nothing. `system_name` is the map system's name, else the
   * static name. Returns how many kills were new.
   */
  async store(db: Db, mapId: string, kills: readonly NewKill[]): Promise<number> {
    const unique = uniqueKills(kills);
    if (unique.length === 0) return 0;
    // One statement stores the kills and appends the events of the new ones: atomic on its own, so a
    // single kill costs one round trip and no explicit transaction.
    const inserted = await this.kills.insertNewWithEvents(
      db,
      mapId,
      unique,
      unique.map((k) => mapKillEvent(mapId, k, null).payload),
    );
    if (inserted > 0) this.outbox.appended(db);
    return inserted;
  }

  /**
   * Deletes one kill of the map by its killmail id (404 `kill_not_found` when the map has none). No
   * event: the event catalogue has no type for a removed kill, and `map_kill` announces new kills
   * only. The map's read version moves with the delete, so reads and their ETags change at once.
   */
  async remove(principal: MapKeyPrincipal, ref: MapReference, killmailId: number): Promise<void> {
    const map = await this.access.resolve(principal, ref);
    if (!(await this.kills.deleteOne(this.db, map.id, killmailId))) throw new NotFoundError('Kill not found', 'kill_not_found');
  }

  /** Deletes kills older than `retentionDays` (every map), `batch` per statement; how many went. */
  async prune(retentionDays: number, batch: number): Promise<number> {
    return this.kills.pruneOlderThan(this.db, retentionDays, batch);
  }
}
