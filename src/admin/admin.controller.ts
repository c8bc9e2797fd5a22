import { Body, Controller, Delete, Get, Path, Post, Put, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { AdminService } from './admin.service.js';
import type { ErrorResponse } from '../http/error.dto.js';
import { ADMIN_UNAUTHORIZED_DESCRIPTION, ADMIN_UNAUTHORIZED_EXAMPLE } from '../http/error-examples.js';
import type { TrackedCharacterDto } from '../maps/map.dto.js';
import type { DataResponse } from '../http/data-response.js';
import type {
  AdminCharacterDto,
  AdminMapDto,
  CreatedMapDto,
  CreateMapRequest,
  CreateUserRequest,
  IssuedMapKeyDto,
  IssueMapKeyRequest,
  SetMainCharacterRequest,
  TrackCharacterRequest,
  UpsertCharacterRequest,
  UserDto,
} from './admin.dto.js';
import type { MapKeyDto } from '../auth/map-key.dto.js';

/**
 * Operator bootstrap with `SERVICE_ADMIN_TOKEN` (decisions §2). `{map}` is a map UUID or slug;
 * `{eve_id}` an external character id.
 */
@Route('api/admin')
@Tags('Admin')
@Security('admin_token')
@Response<ErrorResponse>(400, 'Invalid body')
@Response<ErrorResponse>(401, ADMIN_UNAUTHORIZED_DESCRIPTION, ADMIN_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown user, character, map or key')
@Response<ErrorResponse>(429, 'Rate limit exceeded')
export class AdminController extends Controller {
  constructor(private readonly admin: AdminService) {
    super();
  }

  /**
   * Creates a user.
   * @summary Create a user
   */
  @Post('users')
  @SuccessResponse(201, 'Created')
  public async createUser(@Body() body: CreateUserRequest): Promise<DataResponse<UserDto>> {
    this.setStatus(201);
    return { data: await this.admin.createUser(body.name) };
  }

  /**
   * Lists users with their characters.
   * @summary List users
   */
  @Get('users')
  public async listUsers(): Promise<DataResponse<UserDto[]>> {
    return { data: await this.admin.listUsers() };
  }

  /**
   * One user.
   * @summary One user
   */
  @Get('users/{id}')
  public async getUser(@Path() id: string): Promise<DataResponse<UserDto>> {
    return { data: await this.admin.getUser(id) };
  }

  /**
   * Sets or clears (null) the user's main character; it must be one of the user's characters.
   * @summary Set a user's main character
   */
  @Put('users/{id}/main-character')
  public async setMainCharacter(@Path() id: string, @Body() body: SetMainCharacterRequest): Promise<DataResponse<UserDto>> {
    return { data: await this.admin.setMainCharacter(id, body.eve_id) };
  }

  /**
   * Creates or updates a character by `eve_id`.
   * @summary Create or update a character
   */
  @Put('characters')
  public async upsertCharacter(@Body() body: UpsertCharacterRequest): Promise<DataResponse<AdminCharacterDto>> {
    return { data: await this.admin.upsertCharacter(body) };
  }

  /**
   * Lists characters with their record and user ids.
   * @summary List characters
   */
  @Get('characters')
  public async listAdminCharacters(): Promise<DataResponse<AdminCharacterDto[]>> {
    return { data: await this.admin.listCharacters() };
  }

  /**
   * Creates a map; the response carries its first key (bound to the owner) once.
   * @summary Create a map and its first key
   */
  @Post('maps')
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(409, 'Slug taken')
  public async createMap(@Body() body: CreateMapRequest): Promise<DataResponse<CreatedMapDto>> {
    this.setStatus(201);
    return { data: await this.admin.createMap(body) };
  }

  /**
   * Lists maps.
   * @summary List maps
   */
  @Get('maps')
  public async listMaps(): Promise<DataResponse<AdminMapDto[]>> {
    return { data: await this.admin.listMaps() };
  }

  /**
   * One map.
   * @summary One map
   */
  @Get('maps/{map}')
  public async getMap(@Path() map: string): Promise<DataResponse<AdminMapDto>> {
    return { data: await this.admin.getMap(map) };
  }

  /**
   * Issues another key for the map, bound to a character; the key is shown once.
   * @summary Issue a map key
   */
  @Post('maps/{map}/keys')
  @SuccessResponse(201, 'Created')
  public async issueMapKey(@Path() map: string, @Body() body: IssueMapKeyRequest): Promise<DataResponse<IssuedMapKeyDto>> {
    this.setStatus(201);
    return { data: await this.admin.issueKey(map, body) };
  }

  /**
   * Lists the map's keys (never the keys themselves).
   * @summary List a map's keys
   */
  @Get('maps/{map}/keys')
  public async listMapKeys(@Path() map: string): Promise<DataResponse<MapKeyDto[]>> {
    return { data: await this.admin.listKeys(map) };
  }

  /**
   * Revokes a key; it stops working at once.
   * @summary Revoke a map key
   */
  @Delete('maps/{map}/keys/{key_id}')
  public async revokeMapKey(@Path() map: string, @Path() key_id: string): Promise<DataResponse<MapKeyDto>> {
    return { data: await this.admin.revokeKey(map, key_id) };
  }

  /**
   * Tracks (or untracks with `tracked: false`) a character on the map.
   * @summary Track a character on a map
   * @pattern eve_id ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero
   */
  @Put('maps/{map}/characters/{eve_id}')
  public async trackCharacter(@Path() map: string, @Path() eve_id: string, @Body() body: TrackCharacterRequest): Promise<DataResponse<TrackedCharacterDto>> {
    return { data: await this.admin.setTracking(map, eve_id, body.tracked) };
  }

  /**
   * Removes a character from the map.
   * @summary Remove a character from a map
   * @pattern eve_id ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero
   */
  @Delete('maps/{map}/characters/{eve_id}')
  @SuccessResponse(204, 'Removed')
  public async untrackCharacter(@Path() map: string, @Path() eve_id: string): Promise<void> {
    await this.admin.removeTracking(map, eve_id);
    this.setStatus(204);
  }
}
