import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf, type AppDeps } from '../api/deps.js';
import type { ErrorResponse } from '../api/error.dto.js';
import { DEPENDENCY_UNAVAILABLE_EXAMPLE, MAP_IDENTIFIER_REQUIRED_EXAMPLE, MAP_NOT_FOUND_EXAMPLE, RATE_LIMITED_EXAMPLE, UNAUTHORIZED_EXAMPLE } from '../api/error-examples.js';
import { resolveMapSelector } from './map-selector.js';
import type {
  CharacterActivityDto,
  ConnectionDto,
  DataResponse,
  StructureTimerDto,
  SystemDto,
  SystemKillsDto,
  TrackedCharacterDto,
  UserCharactersDto,
} from './map.dto.js';
import { BadRequestError } from '../errors.js';
import { UUID_RE } from '../db/sql.js';

/**
 * Map data (spec 4.1). Every endpoint needs a map key and the map selector: `map_id` (UUID) and/or
 * `slug`; at least one is required.
 */
@Route('api/map')
@Tags('Map data')
@Security('map_key')
@Response<ErrorResponse>(400, 'Missing map selector, malformed parameter', MAP_IDENTIFIER_REQUIRED_EXAMPLE)
@Response<ErrorResponse>(401, 'Token missing or invalid', UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class MapDataController extends Controller {
  constructor(private readonly deps: AppDeps) {
    super();
  }

  /**
   * Systems on the map: visible ones, or all (hidden too) with `all=true`.
   * @summary Systems of the map
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param all When true, hidden systems are included.
   */
  @Get('systems')
  public async getSystems(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Query() all?: boolean,
  ): Promise<DataResponse<SystemDto[]>> {
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.mapData.systems(em, map.id, all === true) };
  }

  /**
   * One system of the map by solar system id.
   * @summary One system of the map
   * @param id Solar system id.
   * @isInt id
   * @minimum id 0
   * @maximum id 2147483647
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   */
  @Get('system')
  @Response<ErrorResponse>(404, 'Unknown map, or the system is not on the map', { error: 'System not found', code: 'system_not_found' })
  public async getSystem(
    @Request() req: ExRequest,
    @Query() id: number,
    @Query() map_id?: string,
    @Query() slug?: string,
  ): Promise<DataResponse<SystemDto>> {
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.mapData.system(em, map.id, id) };
  }

  /**
   * Connections between the map's systems.
   * @summary Connections of the map
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   */
  @Get('connections')
  public async getConnections(@Request() req: ExRequest, @Query() map_id?: string, @Query() slug?: string): Promise<DataResponse<ConnectionDto[]>> {
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.mapData.connections(em, map.id) };
  }

  /**
   * Characters tracked on the map.
   * @summary Tracked characters
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   */
  @Get('characters')
  public async getCharacters(@Request() req: ExRequest, @Query() map_id?: string, @Query() slug?: string): Promise<DataResponse<TrackedCharacterDto[]>> {
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.mapData.trackedCharacters(em, map.id) };
  }

  /**
   * Kills per visible system, newest first, of the last 24 hours unless `hours` is given. At most 100
   * kills per system and 1000 in all, the newest ones.
   * @summary Kills per system
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param hours Only kills of the last N hours; default 24.
   * @isInt hours
   * @minimum hours 1
   * @maximum hours 8760
   */
  @Get('systems-kills')
  public async getSystemsKills(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Query() hours?: number,
  ): Promise<DataResponse<SystemKillsDto[]>> {
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.mapData.systemsKills(em, map.id, hours) };
  }

  /**
   * Character activity summed per user; the whole history unless `days` is given.
   * @summary Character activity
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param days Only activity of the last N days (today counts as one).
   * @isInt days
   * @minimum days 1
   * @maximum days 3650
   */
  @Get('character-activity')
  public async getCharacterActivity(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Query() days?: number,
  ): Promise<DataResponse<CharacterActivityDto[]>> {
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.mapData.characterActivity(em, map.id, days) };
  }

  /**
   * The map's characters grouped by user, with the user's main character.
   * @summary Characters grouped by user
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   */
  @Get('user_characters')
  public async getUserCharacters(@Request() req: ExRequest, @Query() map_id?: string, @Query() slug?: string): Promise<DataResponse<UserCharactersDto[]>> {
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.mapData.userCharacters(em, map.id) };
  }

  /**
   * Structure timers: structures Anchoring or Reinforced with an end time, soonest first.
   * @summary Structure timers
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param system_id Only timers of this map system (record id).
   */
  @Get('structure-timers')
  public async getStructureTimers(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Query() system_id?: string,
  ): Promise<DataResponse<StructureTimerDto[]>> {
    if (system_id !== undefined && !UUID_RE.test(system_id)) {
      throw new BadRequestError('validation_failed', 'Request validation failed', [{ field: 'system_id', message: 'must be a UUID' }]);
    }
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.mapData.structureTimers(em, map.id, system_id) };
  }
}

