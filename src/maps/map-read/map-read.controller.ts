import type { TrackedCharacterDto } from '../map.dto.js';
import type { DataResponse } from '../../http/data-response.js';
import { Controller, Get, Query, Request, Response, Route, Security, Tags, Header, SuccessResponse } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf } from '../../http/principal.js';
import type { ErrorResponse } from '../../http/error.dto.js';
import {
  DEPENDENCY_UNAVAILABLE_EXAMPLE,
  MAP_IDENTIFIER_REQUIRED_EXAMPLE,
  MAP_NOT_FOUND_EXAMPLE,
  RATE_LIMITED_EXAMPLE,
  MAP_KEY_UNAUTHORIZED_DESCRIPTION,
  MAP_KEY_UNAUTHORIZED_EXAMPLE,
} from '../../http/error-examples.js';
import type { SystemsService } from '../systems/systems.service.js';
import type { ConnectionsService } from '../connections/connections.service.js';
import type { TrackingService } from '../tracking/tracking.service.js';
import type { StructuresService } from '../structures/structures.service.js';
import type { MapReadService } from './map-read.service.js';
import type { CharacterActivityDto } from '../activity/activity.dto.js';
import type { ConnectionDto } from '../connections/connections.dto.js';
import type { SystemKillsDto } from '../kills/kills.dto.js';
import type { StructureTimerDto } from '../structures/structures.dto.js';
import type { SystemDto } from '../systems/systems.dto.js';
import type { UserCharactersDto } from '../tracking/tracking.dto.js';
import type { CachedReadHeaders } from '../../http/cache-headers.js';

/**
 * Map data (spec 4.1). Every endpoint needs a map key and the map selector: `map_id` (UUID) and/or
 * `slug`; at least one is required.
 */
@Route('api/map')
@Tags('Map data')
@Security('map_key')
@Response<ErrorResponse>(400, 'Missing map selector, malformed parameter', MAP_IDENTIFIER_REQUIRED_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class MapReadController extends Controller {
  constructor(
    private readonly systems: SystemsService,
    private readonly connections: ConnectionsService,
    private readonly tracking: TrackingService,
    private readonly structures: StructuresService,
    private readonly reads: MapReadService,
  ) {
    super();
  }

  /**
   * Systems on the map: visible ones, or all (hidden too) with `all=true`.
   * @summary Systems of the map
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param all When true, hidden systems are included.
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('systems')
  public async getSystems(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Query() all?: boolean,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<SystemDto[]>> {
    return { data: await this.systems.list(principalOf(req, 'map_key'), { map_id, slug }, all === true) };
  }

  /**
   * One system of the map by solar system id.
   * @summary One system of the map
   * @param id Solar system id.
   * @isInt id must be an integer
   * @minimum id 0
   * @maximum id 2147483647
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('system')
  @Response<ErrorResponse>(404, 'Unknown map, or the system is not on the map', { error: 'System not found', code: 'system_not_found' })
  public async getSystem(
    @Request() req: ExRequest,
    @Query() id: number,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<SystemDto>> {
    return { data: await this.systems.get(principalOf(req, 'map_key'), { map_id, slug }, id) };
  }

  /**
   * Connections between the map's systems.
   * @summary Connections of the map
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('connections')
  public async getConnections(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<ConnectionDto[]>> {
    return { data: await this.connections.list(principalOf(req, 'map_key'), { map_id, slug }) };
  }

  /**
   * Characters tracked on the map.
   * @summary Tracked characters
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('characters')
  public async getCharacters(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<TrackedCharacterDto[]>> {
    return { data: await this.tracking.list(principalOf(req, 'map_key'), { map_id, slug }) };
  }

  /**
   * Kills per visible system, newest first, of the last 24 hours unless `hours` is given. At most 100
   * kills per system and 1000 in all, the newest ones.
   * @summary Kills per system
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param hours Only kills of the last N hours; default 24.
   * @isInt hours must be an integer
   * @minimum hours 1
   * @maximum hours 8760
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('systems-kills')
  public async getSystemsKills(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Query() hours?: number,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<SystemKillsDto[]>> {
    return { data: await this.reads.systemsKills(principalOf(req, 'map_key'), { map_id, slug }, hours) };
  }

  /**
   * Character activity summed per user; the whole history unless `days` is given.
   * @summary Character activity
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param days Only activity of the last N days (today counts as one).
   * @isInt days must be an integer
   * @minimum days 1
   * @maximum days 3650
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('character-activity')
  public async getCharacterActivity(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Query() days?: number,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<CharacterActivityDto[]>> {
    return { data: await this.reads.characterActivity(principalOf(req, 'map_key'), { map_id, slug }, days) };
  }

  /**
   * The map's characters grouped by user, with the user's main character.
   * @summary Characters grouped by user
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('user_characters')
  public async getUserCharacters(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<UserCharactersDto[]>> {
    return { data: await this.tracking.byUser(principalOf(req, 'map_key'), { map_id, slug }) };
  }

  /**
   * Structure timers: structures Anchoring or Reinforced with an end time, soonest first.
   * @summary Structure timers
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param system_id Only timers of this map system (record id).
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('structure-timers')
  public async getStructureTimers(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Query() system_id?: string,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<StructureTimerDto[]>> {
    return { data: await this.structures.timers(principalOf(req, 'map_key'), { map_id, slug }, system_id) };
  }
}
