import { Body, Controller, Delete, Get, Path, Post, Put, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf, type AppDeps } from '../api/deps.js';
import type { ErrorResponse } from '../api/error.dto.js';
import { resolveMapSelector } from '../maps/map-selector.js';
import type { DataResponse } from '../maps/map.dto.js';
import { NotFoundError } from '../errors.js';
import { UUID_RE } from '../db/sql.js';
import type {
  AclDto,
  AclListItemDto,
  AclMemberDto,
  CreateAclMemberRequest,
  CreateAclRequest,
  OkResponse,
  UpdateAclMemberRequest,
  UpdateAclRequest,
} from './acl.dto.js';

/** ACLs of a map (spec 4.1, 4.4), with a map key and the map selector. */
@Route('api/map/acls')
@Tags('ACLs')
@Security('map_key')
@Response<ErrorResponse>(400, 'Missing map selector or invalid body')
@Response<ErrorResponse>(401, 'Token missing or invalid')
@Response<ErrorResponse>(404, 'Unknown map')
@Response<ErrorResponse>(429, 'Rate limit exceeded')
export class MapAclsController extends Controller {
  constructor(private readonly deps: AppDeps) {
    super();
  }

  /** ACLs linked to the map, in list form (owner_eve_id; no members, no api_key). */
  @Get()
  public async listMapAcls(@Request() req: ExRequest, @Query() map_id?: string, @Query() slug?: string): Promise<DataResponse<AclListItemDto[]>> {
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.mapData.acls(em, map.id) };
  }

  /**
   * Creates an ACL owned by the character `owner_eve_id`, links it to the map and returns it with its
   * newly generated `api_key` and no members.
   */
  @Post()
  @Response<ErrorResponse>(400, 'Character not found: The provided owner_eve_id does not match any existing character')
  public async createMapAcl(
    @Request() req: ExRequest,
    @Body() body: CreateAclRequest,
    @Query() map_id?: string,
    @Query() slug?: string,
  ): Promise<DataResponse<AclDto>> {
    const em = this.deps.em();
    const map = await resolveMapSelector(em, principalOf(req, 'map_key'), { map_id, slug });
    return { data: await this.deps.acls.create(em, map.id, body.acl) };
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
@Response<ErrorResponse>(401, 'Token missing or invalid')
@Response<ErrorResponse>(404, 'ACL not found')
@Response<ErrorResponse>(429, 'Rate limit exceeded')
export class AclsController extends Controller {
  constructor(private readonly deps: AppDeps) {
    super();
  }

  /** The ACL with its members. */
  @Get('{id}')
  public async getAcl(@Request() req: ExRequest, @Path() id: string): Promise<DataResponse<AclDto>> {
    return { data: await this.deps.acls.get(this.deps.em(), principalOf(req, 'acl_key').aclId, aclIdOf(id)) };
  }

  /** Updates name and/or description. */
  @Put('{id}')
  @Response<ErrorResponse>(400, 'Invalid body')
  public async updateAcl(@Request() req: ExRequest, @Path() id: string, @Body() body: UpdateAclRequest): Promise<DataResponse<AclDto>> {
    return { data: await this.deps.acls.update(this.deps.em(), principalOf(req, 'acl_key').aclId, aclIdOf(id), body.acl) };
  }

  /** Adds a character, corporation or alliance member (exactly one id). */
  @Post('{acl_id}/members')
  @Response<ErrorResponse>(400, 'Invalid body, role not allowed for the member type')
  @Response<ErrorResponse>(409, 'Duplicate member')
  public async addAclMember(@Request() req: ExRequest, @Path() acl_id: string, @Body() body: CreateAclMemberRequest): Promise<DataResponse<AclMemberDto>> {
    return { data: await this.deps.acls.addMember(this.deps.em(), principalOf(req, 'acl_key').aclId, aclIdOf(acl_id), body.member) };
  }

  /**
   * Changes a member's role.
   * @param member_id External character, corporation or alliance id used when the membership was created.
   */
  @Put('{acl_id}/members/{member_id}')
  @Response<ErrorResponse>(400, 'Invalid body')
  @Response<ErrorResponse>(404, 'Membership not found for given ACL and external id')
  public async updateAclMember(
    @Request() req: ExRequest,
    @Path() acl_id: string,
    @Path() member_id: string,
    @Body() body: UpdateAclMemberRequest,
  ): Promise<DataResponse<AclMemberDto>> {
    return {
      data: await this.deps.acls.updateMember(this.deps.em(), principalOf(req, 'acl_key').aclId, aclIdOf(acl_id), member_id, body.member),
    };
  }

  /**
   * Removes a member. Answers `{"ok": true}`, not wrapped in `data`.
   * @param member_id External character, corporation or alliance id used when the membership was created.
   */
  @Delete('{acl_id}/members/{member_id}')
  @Response<ErrorResponse>(404, 'Membership not found for given ACL and external id')
  public async deleteAclMember(@Request() req: ExRequest, @Path() acl_id: string, @Path() member_id: string): Promise<OkResponse> {
    await this.deps.acls.removeMember(this.deps.em(), principalOf(req, 'acl_key').aclId, aclIdOf(acl_id), member_id);
    return { ok: true };
  }
}
