import type { Db } from '../../db/db.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import type { AclListItemDto } from './map-read.dto.js';
import { CharacterRepository } from '../../characters/character.repository.js';
import { MapAccess, type MapSelector } from '../map-access.js';
import { SystemRepository } from '../systems/system.repository.js';
import { KillRepository } from '../kills/kill.repository.js';
import type { KillDto, SystemKillsDto } from '../kills/kills.dto.js';
import { KILLS_DEFAULT_HOURS, KILLS_PER_SYSTEM_MAX, KILLS_RESPONSE_MAX } from '../kills/kills.rules.js';
import { ActivityRepository } from '../activity/activity.repository.js';
import type { CharacterActivityDto } from '../activity/activity.dto.js';
import { MapReadRepository } from './map-read.repository.js';

/**
 * The summaries of the `/api/map/*` read family (spec 4.1) that combine several resources; the
 * family's plain lists come from the resource services.
 */
export class MapReadService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly systems = new SystemRepository(),
    private readonly kills = new KillRepository(),
    private readonly activity = new ActivityRepository(),
    private readonly characters = new CharacterRepository(),
    private readonly reads = new MapReadRepository(),
  ) {
    this.access = new MapAccess(db);
  }

  /**
   * One entry per visible system, kills newest first, within the last `hours` hours (default
   * KILLS_DEFAULT_HOURS). At most KILLS_PER_SYSTEM_MAX kills per system and KILLS_RESPONSE_MAX in all,
   * the newest: a busy map could otherwise answer tens of MiB to every caller.
   */
  async systemsKills(principal: MapKeyPrincipal, selector: MapSelector, hours = KILLS_DEFAULT_HOURS): Promise<SystemKillsDto[]> {
    const map = await this.access.bySelector(principal, selector);
    const systems = await this.systems.visibleIds(this.db, map.id);
    const kills = await this.kills.recentOfVisibleSystems(this.db, map.id, hours, KILLS_PER_SYSTEM_MAX, KILLS_RESPONSE_MAX);
    const bySystem = new Map<number, KillDto[]>(systems.map((id) => [id, []]));
    for (const k of kills) bySystem.get(k.solar_system_id)?.push(k);
    return [...bySystem].map(([solar_system_id, list]) => ({ solar_system_id, kills: list }));
  }

  /** Activity summed per user, shown as the user's main (else most active) character; `days` limits to the last N days. */
  async characterActivity(principal: MapKeyPrincipal, selector: MapSelector, days?: number): Promise<CharacterActivityDto[]> {
    const map = await this.access.bySelector(principal, selector);
    const rows = await this.activity.sumsPerUser(this.db, map.id, days);
    const byId = await this.characters.dtosByIds(
      this.db,
      rows.map((r) => r.character_id),
    );
    return rows
      .map((r) => ({
        character: byId.get(r.character_id)!,
        // bigint arrives as text; sums of int counters stay far below 2^53.
        passages: Number(r.passages),
        connections: Number(r.connections),
        signatures: Number(r.signatures),
        timestamp: r.timestamp,
      }))
      .sort((a, b) => b.passages - a.passages || b.connections - a.connections || a.character.name.localeCompare(b.character.name));
  }

  /** ACLs linked to the map, in list form (owner_eve_id; no members, no api_key). */
  async acls(principal: MapKeyPrincipal, selector: MapSelector): Promise<AclListItemDto[]> {
    const map = await this.access.bySelector(principal, selector);
    return this.reads.aclsOfMap(this.db, map.id);
  }
}
