import { Body, Controller, Delete, Get, Patch, Path, Post, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf, type AppDeps } from '../api/deps.js';
import type { ErrorResponse } from '../api/error.dto.js';
import { DEPENDENCY_UNAVAILABLE_EXAMPLE, MAP_NOT_FOUND_EXAMPLE, RATE_LIMITED_EXAMPLE, UNAUTHORIZED_EXAMPLE } from '../api/error-examples.js';
import { BadRequestError } from '../errors.js';
import { UUID_RE } from '../db/sql.js';
import { resolveMapPath, type MapRef } from './map-selector.js';
import type { ConnectionDto, DataResponse, StructureTimerDto, SystemDto, TrackedCharacterDto, UserCharactersDto } from './map.dto.js';
import type {
  AddConnectionRequest,
  AddSystemRequest,
  AddSystemsRequest,
  CharacterActivityDayDto,
  CharacterActivityRequest,
  CreateStructureRequest,
  KillImportResultDto,
  KillInput,
  KillInputList,
  KillsBatchRequest,
  SetTrackedRequest,
  SignatureDto,
  SignaturesUpdatedDto,
  SystemsAndConnectionsDto,
  UpdateConnectionRequest,
  UpdateStructureRequest,
  UpdateSystemRequest,
  UpsertSignaturesRequest,
} from './map-edit.dto.js';

/**
 * The `/api/maps/{map_id}/…` family: the map's collections and the editing API. `{map_id}` is the map
 * UUID or its slug. A map key reads and edits only its own map (another map, known or not, is 404);
 * writes are attributed to the key's character. Every change and its events (decisions §5) commit in
 * one transaction; a refused request writes nothing.
 */
@Route('api/maps/{map_id}')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed parameter or body (`validation_failed` with details)', {
  error: 'Request validation failed',
  code: 'validation_failed',
  details: [{ field: 'status', message: 'max 6' }],
})
@Response<ErrorResponse>(401, 'Token missing or invalid', UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class MapEditController extends Controller {
  constructor(private readonly deps: AppDeps) {
    super();
  }

  private async map(req: ExRequest, mapId: string): Promise<{ map: MapRef; em: ReturnType<AppDeps['em']>; characterId: string }> {
    const principal = principalOf(req, 'map_key');
    const em = this.deps.em();
    return { map: await resolveMapPath(em, principal, mapId), em, characterId: principal.characterId };
  }

  // ---- collections -------------------------------------------------------------------------------

  /**
   * The map's systems and connections: `{"data": {"systems": [System], "connections": [Connection]}}`.
   * Visible systems only, unless `all=true`.
   * @summary Systems and connections
   * @param map_id Map UUID or slug.
   * @param all When true, hidden (deleted) systems are included.
   */
  @Get('systems')
  @Tags('Map collections')
  public async listSystems(@Request() req: ExRequest, @Path() map_id: string, @Query() all?: boolean): Promise<DataResponse<SystemsAndConnectionsDto>> {
    const { map, em } = await this.map(req, map_id);
    const [systems, connections] = [await this.deps.mapData.systems(em, map.id, all === true), await this.deps.mapData.connections(em, map.id)];
    return { data: { systems, connections } };
  }

  /**
   * One system of the map (hidden ones too).
   * @summary One system
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id.
   * @isInt solar_system_id
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   */
  @Get('systems/{solar_system_id}')
  @Tags('Map collections')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or system not on the map (`system_not_found`)', { error: 'System not found', code: 'system_not_found' })
  public async getSystem(@Request() req: ExRequest, @Path() map_id: string, @Path() solar_system_id: number): Promise<DataResponse<SystemDto>> {
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapData.system(em, map.id, solar_system_id) };
  }

  /**
   * Connections of the map, oldest first.
   * @summary Connections
   * @param map_id Map UUID or slug.
   */
  @Get('connections')
  @Tags('Map collections')
  public async listConnections(@Request() req: ExRequest, @Path() map_id: string): Promise<DataResponse<ConnectionDto[]>> {
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapData.connections(em, map.id) };
  }

  /**
   * Characters on the map with their tracking flag.
   * @summary Tracked characters
   * @param map_id Map UUID or slug.
   */
  @Get('tracked-characters')
  @Tags('Map collections')
  public async listTrackedCharacters(@Request() req: ExRequest, @Path() map_id: string): Promise<DataResponse<TrackedCharacterDto[]>> {
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapData.trackedCharacters(em, map.id) };
  }

  /**
   * The map's characters grouped by user, with the user's main character.
   * @summary Characters grouped by user
   * @param map_id Map UUID or slug.
   */
  @Get('user-characters')
  @Tags('Map collections')
  public async listUserCharacters(@Request() req: ExRequest, @Path() map_id: string): Promise<DataResponse<UserCharactersDto[]>> {
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapData.userCharacters(em, map.id) };
  }

  /**
   * Signatures of the map's visible systems, by solar system id then signature id.
   * @summary Signatures
   * @param map_id Map UUID or slug.
   * @param solar_system_id Only this system's signatures.
   * @isInt solar_system_id
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   */
  @Get('signatures')
  @Tags('Map collections')
  public async listSignatures(@Request() req: ExRequest, @Path() map_id: string, @Query() solar_system_id?: number): Promise<DataResponse<SignatureDto[]>> {
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapData.signatures(em, map.id, solar_system_id) };
  }

  /**
   * Every structure of the map (any status, with or without a timer).
   * @summary Structures
   * @param map_id Map UUID or slug.
   */
  @Get('structures')
  @Tags('Map collections')
  public async listStructures(@Request() req: ExRequest, @Path() map_id: string): Promise<DataResponse<StructureTimerDto[]>> {
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapData.structures(em, map.id) };
  }

  /**
   * Structure timers: structures Anchoring or Reinforced with an end time, soonest first.
   * @summary Structure timers
   * @param map_id Map UUID or slug.
   * @param system_id Only timers of this map system (record id, a UUID).
   */
  @Get('structure-timers')
  @Tags('Map collections')
  public async listStructureTimers(@Request() req: ExRequest, @Path() map_id: string, @Query() system_id?: string): Promise<DataResponse<StructureTimerDto[]>> {
    if (system_id !== undefined && !UUID_RE.test(system_id)) {
      throw new BadRequestError('validation_failed', 'Request validation failed', [{ field: 'system_id', message: 'must be a UUID' }]);
    }
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapData.structureTimers(em, map.id, system_id) };
  }

  // ---- systems -----------------------------------------------------------------------------------

  /**
   * Adds systems to the map. The body is one system object, answered with `{"data": System}`, or
   * `{"systems": [...]}` (1–100, one transaction), answered with `{"data": [System]}` in request order.
   *
   * - A new system gets the given fields (defaults: position 0/0, status 0, unlocked) and emits `add_system`.
   * - A hidden (deleted) system becomes visible again, keeping its earlier settings except the given
   *   fields, and emits `add_system`.
   * - A system already visible is updated with the given fields; `system_metadata_changed` lists the
   *   fields that changed (no event when none did).
   *
   * Answers 201 in every case. 404 `solar_system_not_found` (with details) when a solar system is not
   * in the static data; then nothing is written.
   * @summary Add systems
   * @param map_id Map UUID or slug.
   */
  @Post('systems')
  @Tags('Map editing')
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or solar system not in the static data (`solar_system_not_found`)', {
    error: 'Solar system not found',
    code: 'solar_system_not_found',
    details: [{ field: 'solar_system_id', message: '123 is not a known solar system' }],
  })
  public async addSystems(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Body() body: AddSystemRequest | AddSystemsRequest,
  ): Promise<DataResponse<SystemDto | SystemDto[]>> {
    const { map, em } = await this.map(req, map_id);
    const batch = 'systems' in body;
    const systems = await this.deps.mapEdit.addSystems(em, map.id, batch ? body.systems : [body], batch);
    this.setStatus(201);
    return { data: batch ? systems : systems[0]! };
  }

  /**
   * Changes fields of a visible system; omitted fields are kept, null clears a text field. Emits
   * `system_metadata_changed` whose `changed` lists the fields whose value changed; no event when
   * nothing changed. Answers the system.
   * @summary Update a system
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id of a visible system of the map.
   * @isInt solar_system_id
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   */
  @Patch('systems/{solar_system_id}')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or system not on the map (`system_not_found`)', { error: 'System not found', code: 'system_not_found' })
  public async updateSystem(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() solar_system_id: number,
    @Body() body: UpdateSystemRequest,
  ): Promise<DataResponse<SystemDto>> {
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapEdit.updateSystem(em, map.id, solar_system_id, body) };
  }

  /**
   * Deletes a system from the map: it is hidden (`visible: false`, settings kept for a later re-add)
   * and its connections are removed. Events, in one transaction: `connection_removed` for each removed
   * connection, then `deleted_system`. A locked system is refused with 409 `system_locked`.
   * @summary Delete a system
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id of a visible system of the map.
   * @isInt solar_system_id
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   */
  @Delete('systems/{solar_system_id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or system not on the map (`system_not_found`)', { error: 'System not found', code: 'system_not_found' })
  @Response<ErrorResponse>(409, 'System is locked', { error: 'System is locked; unlock it before deleting it', code: 'system_locked' })
  public async deleteSystem(@Request() req: ExRequest, @Path() map_id: string, @Path() solar_system_id: number): Promise<void> {
    const { map, em } = await this.map(req, map_id);
    await this.deps.mapEdit.deleteSystem(em, map.id, solar_system_id);
    this.setStatus(204);
  }

  // ---- connections -------------------------------------------------------------------------------

  /**
   * Connects two visible systems of the map; emits `connection_added`. Enumerations (decisions §3):
   * `type` 0–2, `mass_status` 0–2, `time_status` 0–6, `ship_size_type` 0–4.
   * @summary Add a connection
   * @param map_id Map UUID or slug.
   */
  @Post('connections')
  @Tags('Map editing')
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or an end is not a visible system of the map (`system_not_found`)', {
    error: 'System not found',
    code: 'system_not_found',
    details: [{ field: 'solar_system_target', message: '31000005 is not a system on this map' }],
  })
  @Response<ErrorResponse>(409, 'The systems are already connected', { error: 'These systems are already connected', code: 'connection_exists' })
  public async addConnection(@Request() req: ExRequest, @Path() map_id: string, @Body() body: AddConnectionRequest): Promise<DataResponse<ConnectionDto>> {
    const { map, em } = await this.map(req, map_id);
    const connection = await this.deps.mapEdit.addConnection(em, map.id, body);
    this.setStatus(201);
    return { data: connection };
  }

  /**
   * Changes fields of a connection; omitted fields are kept. Emits `connection_updated` whose
   * `changed` lists the fields whose value changed; no event when nothing changed.
   * @summary Update a connection
   * @param map_id Map UUID or slug.
   * @param id Connection id (UUID).
   */
  @Patch('connections/{id}')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or connection not found (`connection_not_found`)', { error: 'Connection not found', code: 'connection_not_found' })
  public async updateConnection(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Body() body: UpdateConnectionRequest,
  ): Promise<DataResponse<ConnectionDto>> {
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapEdit.updateConnection(em, map.id, id, body) };
  }

  /**
   * Removes a connection; emits `connection_removed`. A locked connection is refused with 409
   * `connection_locked`.
   * @summary Delete a connection
   * @param map_id Map UUID or slug.
   * @param id Connection id (UUID).
   */
  @Delete('connections/{id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or connection not found (`connection_not_found`)', { error: 'Connection not found', code: 'connection_not_found' })
  @Response<ErrorResponse>(409, 'Connection is locked', { error: 'Connection is locked; unlock it before deleting it', code: 'connection_locked' })
  public async deleteConnection(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<void> {
    const { map, em } = await this.map(req, map_id);
    await this.deps.mapEdit.deleteConnection(em, map.id, id);
    this.setStatus(204);
  }

  // ---- signatures --------------------------------------------------------------------------------

  /**
   * Adds and updates signatures of a visible system in one transaction. Signature ids are matched
   * case-insensitively and stored upper-case; for an existing signature omitted fields are kept and
   * null clears. With `replace: true` the system's signatures not listed are removed.
   *
   * Events: `signature_added` per new signature, `signature_removed` per removed one, then one
   * `signatures_updated` {solar_system_id, added_count, updated_count, removed_count} for the batch
   * (none when the batch changed nothing). `updated_count` counts listed signatures whose fields changed.
   * Answers the counts and every signature of the system after the batch. `character_eve_id` of added
   * or changed signatures is the key's character.
   * @summary Upsert a system's signatures
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id of a visible system of the map.
   * @isInt solar_system_id
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   */
  @Put('systems/{solar_system_id}/signatures')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or the system (or a `linked_system_id`) not on the map (`system_not_found`)', { error: 'System not found', code: 'system_not_found' })
  public async upsertSignatures(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() solar_system_id: number,
    @Body() body: UpsertSignaturesRequest,
  ): Promise<DataResponse<SignaturesUpdatedDto>> {
    const { map, em, characterId } = await this.map(req, map_id);
    return { data: await this.deps.signatures.upsert(em, map.id, solar_system_id, characterId, body) };
  }

  /**
   * Removes one signature of a system; emits `signature_removed`.
   * @summary Delete a signature
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id of a visible system of the map.
   * @isInt solar_system_id
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   * @param signature_id Signature id such as `ABC-123` (any case).
   */
  @Delete('systems/{solar_system_id}/signatures/{signature_id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), system not on the map (`system_not_found`) or signature not found (`signature_not_found`)', { error: 'Signature not found', code: 'signature_not_found' })
  public async deleteSignature(@Request() req: ExRequest, @Path() map_id: string, @Path() solar_system_id: number, @Path() signature_id: string): Promise<void> {
    const { map, em } = await this.map(req, map_id);
    await this.deps.signatures.remove(em, map.id, solar_system_id, signature_id);
    this.setStatus(204);
  }

  // ---- structures --------------------------------------------------------------------------------

  /**
   * Adds a structure (timer) to a visible system of the map. No event (decisions §5).
   * `character_eve_id` is the key's character.
   * @summary Add a structure
   * @param map_id Map UUID or slug.
   */
  @Post('structures')
  @Tags('Map editing')
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or system not on the map (`system_not_found`)', { error: 'System not found', code: 'system_not_found' })
  public async addStructure(@Request() req: ExRequest, @Path() map_id: string, @Body() body: CreateStructureRequest): Promise<DataResponse<StructureTimerDto>> {
    const { map, em, characterId } = await this.map(req, map_id);
    const structure = await this.deps.structures.create(em, map.id, characterId, body);
    this.setStatus(201);
    return { data: structure };
  }

  /**
   * Changes fields of a structure; omitted fields are kept, null clears. No event.
   * @summary Update a structure
   * @param map_id Map UUID or slug.
   * @param id Structure id (UUID).
   */
  @Put('structures/{id}')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), structure not found (`structure_not_found`) or new system not on the map (`system_not_found`)', { error: 'Structure not found', code: 'structure_not_found' })
  public async updateStructure(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Body() body: UpdateStructureRequest,
  ): Promise<DataResponse<StructureTimerDto>> {
    const { map, em, characterId } = await this.map(req, map_id);
    return { data: await this.deps.structures.update(em, map.id, id, characterId, body) };
  }

  /**
   * Removes a structure. No event.
   * @summary Delete a structure
   * @param map_id Map UUID or slug.
   * @param id Structure id (UUID).
   */
  @Delete('structures/{id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or structure not found (`structure_not_found`)', { error: 'Structure not found', code: 'structure_not_found' })
  public async deleteStructure(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<void> {
    const { map, em } = await this.map(req, map_id);
    await this.deps.structures.remove(em, map.id, id);
    this.setStatus(204);
  }

  // ---- kills -------------------------------------------------------------------------------------

  /**
   * Imports killmails in the field shape of spec 2.6: one killmail object, an array, or
   * `{"kills": [...]}` (1–200, one transaction). Idempotent by `killmail_id`: a killmail the map
   * already has is counted in `duplicates`, left as it is and emits nothing; each new one emits
   * `map_kill`. The solar system must exist in the static data (it need not be on the map).
   * @summary Import kills
   * @param map_id Map UUID or slug.
   */
  @Post('kills')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or solar system not in the static data (`solar_system_not_found`)', {
    error: 'Solar system not found',
    code: 'solar_system_not_found',
    details: [{ field: 'kills[0].solar_system_id', message: '123 is not a known solar system' }],
  })
  public async importKills(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Body() body: KillInput | KillInputList | KillsBatchRequest,
  ): Promise<DataResponse<KillImportResultDto>> {
    const { map, em } = await this.map(req, map_id);
    const [kills, prefix] = Array.isArray(body)
      ? [body, (i: number) => `[${i}].`]
      : 'kills' in body
        ? [body.kills, (i: number) => `kills[${i}].`]
        : [[body], () => ''];
    return { data: await this.deps.mapEdit.importKills(em, map.id, kills, prefix) };
  }

  // ---- characters --------------------------------------------------------------------------------

  /**
   * Tracks (`tracked: true`) or untracks a known character on the map, adding it to the map's
   * characters when needed. No event. Answers the tracked character entry.
   * @summary Track or untrack a character
   * @param map_id Map UUID or slug.
   * @param eve_id eve_id of a known character.
   * @pattern eve_id ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero
   */
  @Put('tracked-characters/{eve_id}')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or unknown character (`character_not_found`)', { error: 'Character not found', code: 'character_not_found' })
  public async setTracked(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() eve_id: string,
    @Body() body: SetTrackedRequest,
  ): Promise<DataResponse<TrackedCharacterDto>> {
    const { map, em } = await this.map(req, map_id);
    return { data: await this.deps.mapEdit.setTracked(em, map.id, eve_id, body.tracked) };
  }

  /**
   * Adds to today's (UTC) activity counters of a character (`character_eve_id`, default: the key's
   * character). Increments are 0–10000 each, at least one positive; totals saturate at 2147483647.
   * Answers the character's counters for the day after the increment. No event.
   * @summary Record character activity
   * @param map_id Map UUID or slug.
   */
  @Post('character-activity')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or unknown character (`character_not_found`)', { error: 'Character not found', code: 'character_not_found' })
  public async recordActivity(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Body() body: CharacterActivityRequest,
  ): Promise<DataResponse<CharacterActivityDayDto>> {
    const { map, em, characterId } = await this.map(req, map_id);
    return { data: await this.deps.mapEdit.recordActivity(em, map.id, characterId, body) };
  }
}
