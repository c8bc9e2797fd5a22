import type { Db } from '../db/db.js';
import type { Outbox } from '../events/outbox.js';
import { NotFoundError } from '../common/errors.js';
import { SolarSystemRepository } from '../static-data/solar-system.repository.js';
import { addSystemEvent, connectionAddedEvent } from './event-payloads.js';
import { systemNotFound } from './edit-support.js';
import { SystemRepository } from './systems/system.repository.js';
import { ConnectionRepository } from './connections/connection.repository.js';
import { StructureRepository } from './structures/structure.repository.js';
import { KillsService } from './kills/kills.service.js';
import type { NewKill } from './kills/kill.repository.js';
import { ActivityService } from './activity/activity.service.js';

export type { NewKill, Zkb } from './kills/kill.repository.js';

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

/**
 * Seeding side of map content, for the demo, the test factories and the benchmarks. It writes through
 * the same repositories (one writer per table) and event payloads as the editing API, in one
 * transaction per change, but without the API's request rules: a system outside the static data may
 * be named, a system may be added hidden, the same two systems may be connected more than once, and a
 * structure may stand in a hidden system.
 */
export class MapContentService {
  private readonly kills: KillsService;
  private readonly activity: ActivityService;

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly systems = new SystemRepository(),
    private readonly connections = new ConnectionRepository(),
    private readonly structures = new StructureRepository(),
    private readonly solarSystems = new SolarSystemRepository(),
  ) {
    this.kills = new KillsService(db, outbox);
    this.activity = new ActivityService(db);
  }

  /**
   * Places a system (added again, it takes the given `visible` and position). Emits add_system unless
   * it is added hidden. Returns the record id.
   */
  async addSystem(mapId: string, s: NewSystem): Promise<string> {
    return this.db.transaction(async (tx) => {
      const info = (await this.solarSystems.byIds(tx, [s.solarSystemId])).get(s.solarSystemId);
      const name = info?.solar_system_name ?? s.name;
      if (!name) throw new NotFoundError('Solar system not found', 'solar_system_not_found');
      const visible = s.visible ?? true;
      const position = { position_x: s.positionX ?? 0, position_y: s.positionY ?? 0 };
      const existing = (await this.systems.rows(tx, mapId, [s.solarSystemId])).get(s.solarSystemId);
      const row = existing
        ? await this.systems.update(tx, existing.id, position, visible)
        : await this.systems.insert(
            tx,
            mapId,
            s.solarSystemId,
            name,
            { ...position, custom_name: s.customName, description: s.description, tag: s.tag, labels: s.labels, status: s.status, locked: s.locked },
            visible,
          );
      if (visible) await this.outbox.append(tx.em, [addSystemEvent(mapId, row, info)]);
      return row.id;
    });
  }

  async addConnection(mapId: string, c: NewConnection): Promise<string> {
    return this.db.transaction(async (tx) => {
      const row = await this.connections.insert(
        tx,
        mapId,
        {
          solar_system_source: c.solarSystemSource,
          solar_system_target: c.solarSystemTarget,
          type: c.type,
          mass_status: c.massStatus,
          time_status: c.timeStatus,
          ship_size_type: c.shipSizeType,
          wormhole_type: c.wormholeType,
          locked: c.locked,
        },
        true,
      );
      const nameOf = await this.systems.names(tx, mapId, [c.solarSystemSource, c.solarSystemTarget]);
      await this.outbox.append(tx.em, [connectionAddedEvent(mapId, row, nameOf)]);
      return row.id;
    });
  }

  /** Idempotent by killmail_id: a known kill is left as it is and emits nothing. Returns true when new. */
  async addKill(mapId: string, k: NewKill): Promise<boolean> {
    return (await this.kills.store(this.db, mapId, [k])) === 1;
  }

  /** Structure timers emit no events (decisions §5). */
  async addStructure(mapId: string, s: NewStructure): Promise<string> {
    const system = (await this.systems.rows(this.db, mapId, [s.solarSystemId])).get(s.solarSystemId);
    if (!system) throw systemNotFound();
    return this.structures.insert(
      this.db,
      mapId,
      system,
      {
        structure_type_id: s.structureTypeId,
        structure_type: s.structureType,
        name: s.name,
        status: s.status,
        end_time: s.endTime,
        notes: s.notes,
        owner_name: s.ownerName,
        owner_ticker: s.ownerTicker,
        owner_id: s.ownerId,
      },
      s.characterEveId ?? null,
    );
  }

  /** Adds to a character's activity counters for the UTC day of `at` (default now). */
  async recordActivity(mapId: string, a: ActivityIncrement): Promise<void> {
    await this.activity.add(
      this.db,
      mapId,
      a.characterEveId,
      { passages: a.passages ?? 0, connections: a.connections ?? 0, signatures: a.signatures ?? 0 },
      a.at ?? new Date(),
    );
  }
}
