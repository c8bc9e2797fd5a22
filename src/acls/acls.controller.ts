import { Body, Controller, Delete, Get, Path, Post, Put, Query, Request, Response, Route, Security, Tags, Header, SuccessResponse } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf } from '../http/principal.js';
import type { AclService } from './acl.service.js';
import type { MapReadService } from '../maps/map-read/map-read.service.js';
import type { ErrorResponse } from '../http/error.dto.js';
import {
  ACL_KEY_UNAUTHORIZED_DESCRIPTION,
  ACL_KEY_UNAUTHORIZED_EXAMPLE,
  DEPENDENCY_UNAVAILABLE_EXAMPLE,
  MAP_IDENTIFIER_REQUIRED_EXAMPLE,
  MAP_NOT_FOUND_EXAMPLE,
  RATE_LIMITED_EXAMPLE,
  MAP_KEY_UNAUTHORIZED_DESCRIPTION,
  MAP_KEY_UNAUTHORIZED_EXAMPLE,
} from '../http/error-examples.js';
import type { DataResponse } from '../http/data-response.js';
import { NotFoundError } from '../common/errors.js';
import { UUID_RE } from '../db/sql.js';
import type { AclDto, AclMemberDto, CreateAclMemberRequest, CreateAclRequest, OkResponse, UpdateAclMemberRequest, UpdateAclRequest } from './acl.dto.js';
import type { AclListItemDto } from '../maps/map-read/map-read.dto.js';
import type { CachedReadHeaders } from '../http/cache-headers.js';

/** ACLs of a map (spec 4.1, 4.4), with a map key and the map selector. */
@Route('api/map/acls')
@Tags('ACLs')
@Security('map_key')
@Response<ErrorResponse>(400, 'Missing map selector or invalid body', MAP_IDENTIFIER_REQUIRED_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class MapAclsController extends Controller {
  constructor(
    private readonly mapData: MapReadService,
    private readonly acls: AclService,
  ) {
    super();
  }

  /**
   * ACLs linked to the map, in list form (owner_eve_id; no members, no api_key).
   * @summary ACLs of the map
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get()
  public async listMapAcls(
    @Request() req: ExRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<AclListItemDto[]>> {
    return { data: await this.mapData.acls(principalOf(req, 'map_key'), { map_id, slug }) };
  }

  /**
   * Creates an ACL owned by the character `owner_eve_id`, links it to the map and returns it with its
   * newly generated `api_key` and no members.
   * @summary Create an ACL for the map
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   */
  @Post()
  @Response<ErrorResponse>(400, 'Missing map selector, invalid body, or unknown owner_eve_id', {
    error: 'Character not found: The provided owner_eve_id does not match any existing character',
    code: 'owner_not_found',
    details: [{ field: 'acl.owner_eve_id', message: 'no character has this eve_id' }],
  })
  public async createMapAcl(
    @Request() req: ExRequest,
    @Body() body: CreateAclRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
  ): Promise<DataResponse<AclDto>> {
    return { data: await this.acls.createForMap(principalOf(req, 'map_key'), { map_id, slug }, body.acl) };
  }
}

function aclIdOf(id: string): string {
  if (!UUID_RE.test(id)) throw new NotFoundError('ACL not found', 'acl_not_found');
  return id.toLowerCase();
}

/** One ACL and its members (spec 4.4), with the ACL's own API key. */
@Route('api/acls')
@Tags('ACLs')
@Security('acl_key')
@Response<ErrorResponse>(401, ACL_KEY_UNAUTHORIZED_DESCRIPTION, ACL_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown ACL, or an ACL this key does not belong to', { error: 'ACL not found', code: 'acl_not_found' })
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class AclsController extends Controller {
  constructor(private readonly acls: AclService) {
    super();
  }

  /**
   * The ACL with its members.
   * @summary Get the ACL
   * @param id ACL id (UUID) of the ACL whose API key is used.
   */
  @Get('{id}')
  public async getAcl(@Request() req: ExRequest, @Path() id: string): Promise<DataResponse<AclDto>> {
    return { data: await this.acls.get(principalOf(req, 'acl_key'), aclIdOf(id)) };
  }

  /**
   * Updates name and/or description; answers the ACL with its members.
   * @summary Update the ACL
   * @param id ACL id (UUID) of the ACL whose API key is used.
   */
  @Put('{id}')
  @Response<ErrorResponse>(400, 'Invalid body', {
    error: 'Request validation failed',
    code: 'validation_failed',
    details: [{ field: 'acl.name', message: 'must not be blank' }],
  })
  public async updateAcl(@Request() req: ExRequest, @Path() id: string, @Body() body: UpdateAclRequest): Promise<DataResponse<AclDto>> {
    return { data: await this.acls.update(principalOf(req, 'acl_key'), aclIdOf(id), body.acl) };
  }

  /**
   * Adds a character, corporation or alliance member: exactly one of `eve_character_id`,
   * `eve_corporation_id`, `eve_alliance_id`, and a `role`.
   * @summary Add a member
   * @param acl_id ACL id (UUID) of the ACL whose API key is used.
   */
  @Post('{acl_id}/members')
  @Response<ErrorResponse>(400, 'Invalid body, role not allowed for the member type', {
    error: 'Request validation failed',
    code: 'validation_failed',
    details: [{ field: 'member', message: 'exactly one of eve_character_id, eve_corporation_id, eve_alliance_id is required' }],
  })
  @Response<ErrorResponse>(409, 'The ACL already has this member', { error: 'This ACL already has a member with that id', code: 'member_exists' })
  public async addAclMember(@Request() req: ExRequest, @Path() acl_id: string, @Body() body: CreateAclMemberRequest): Promise<DataResponse<AclMemberDto>> {
    return { data: await this.acls.addMember(principalOf(req, 'acl_key'), aclIdOf(acl_id), body.member) };
  }

  /**
   * Changes a member's role.
   * @summary Change a member's role
   * @param acl_id ACL id (UUID) of the ACL whose API key is used.
   * @param member_id External character, corporation or alliance id used when the membership was created.
   * @pattern member_id ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero
   */
  @Put('{acl_id}/members/{member_id}')
  @Response<ErrorResponse>(400, 'Invalid body or role not allowed for the member type')
  @Response<ErrorResponse>(404, 'Unknown ACL, or no member with this external id', {
    error: 'Membership not found for given ACL and external id',
    code: 'member_not_found',
  })
  public async updateAclMember(
    @Request() req: ExRequest,
    @Path() acl_id: string,
    @Path() member_id: string,
    @Body() body: UpdateAclMemberRequest,
  ): Promise<DataResponse<AclMemberDto>> {
    return {
      data: await this.acls.updateMember(principalOf(req, 'acl_key'), aclIdOf(acl_id), member_id, body.member),
    };
  }

  /**
   * Removes a member. Answers `{"ok": true}`, not wrapped in `data`.
   * @summary Remove a member
   * @param acl_id ACL id (UUID) of the ACL whose API key is used.
   * @param member_id External character, corporation or alliance id used when the membership was created.
   * @pattern member_id ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero
   */
  @Delete('{acl_id}/members/{member_id}')
  @Response<ErrorResponse>(404, 'Unknown ACL, or no member with this external id', {
    error: 'Membership not found for given ACL and external id',
    code: 'member_not_found',
  })
  public async deleteAclMember(@Request() req: ExRequest, @Path() acl_id: string, @Path() member_id: string): Promise<OkResponse> {
    await this.acls.removeMember(principalOf(req, 'acl_key'), aclIdOf(acl_id), member_id);
    return { ok: true };
  }
}
