/**
 * The hostile-input table's vocabulary (test/api/bad-input.test.ts): an endpoint entry, the values known
 * once the fixtures exist, and the fixture's solar systems.
 */
import { killBody } from '../../support/map-edit.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Values known once the fixtures exist (filled in beforeAll). */
export interface Ctx {
  mapKey: string;
  mapId: string;
  slug: string;
  otherSlug: string;
  ownerEveId: string;
  aclId: string;
  aclKey: string;
  memberEveId: string;
  freeEveId: string;
  userId: string;
  userCharEveId: string;
  keyId: string;
  trackedEveId: string;
  connectionId: string;
  /** Record id (UUID) of the fixture's signature. */
  signatureRecordId: string;
  rallyPointId: string;
  structureId: string;
  webhookId: string;
  eventId: string;
}

/** Solar systems of the fixture: on the map (with a connection between the first two), and not. */
export const ON_MAP = 30000142;
export const ON_MAP_2 = 30002420;
export const ON_MAP_3 = 31000005;
export const NOT_ON_MAP = 30000021;
export const SIGNATURE = 'XYZ-789';

export type Token = 'map' | 'acl' | 'any' | 'admin' | 'none';

export interface Endpoint {
  method: Method;
  /** Route template as in routes.ts, `:param` segments. */
  route: string;
  token: Token;
  params?: (c: Ctx) => Record<string, string>;
  /** Valid query; keys listed in `selector`, `ints`, `bools`, `uuids` get the matching hostile values. */
  query?: (c: Ctx) => Record<string, string>;
  selector?: boolean;
  ints?: string[];
  bools?: string[];
  /** Id-like query parameters (UUID, ULID). */
  ids?: string[];
  /** Valid body (for POST/PUT/PATCH). */
  body?: (c: Ctx) => Json;
  /** Every body field is optional: `{}` is a valid (empty) update, not hostile. */
  emptyBodyOk?: boolean;
}

export const mapPath = (c: Ctx) => ({ map_id: c.mapId });

// A valid killmail body; the JSON it holds is plain data, so it is one of this file's Json values.
export const KILL = (): Json => killBody(ON_MAP, 123456789) as Json;
