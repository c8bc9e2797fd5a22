/**
 * The message of a 401 (src/auth/token-refusal.ts): the reference server's words first, then the token
 * the endpoint takes and what was given instead, never the token itself; and the OpenAPI examples are
 * messages the service really sends.
 */
import { describe, expect, it } from 'vitest';
import { tokenRefused, type Presented } from '../../src/auth/token-refusal.js';
import type { Principal } from '../../src/http/principal.js';
import {
  ACL_KEY_UNAUTHORIZED_EXAMPLE,
  ADMIN_UNAUTHORIZED_EXAMPLE,
  ANY_KEY_UNAUTHORIZED_EXAMPLE,
  MAP_KEY_UNAUTHORIZED_EXAMPLE,
} from '../../src/http/error-examples.js';
import { errorBody } from '../../src/common/errors.js';

const MAP_KEY = `mik_${'M'.repeat(43)}`;
const ACL_KEY = `acl_${'A'.repeat(43)}`;
const ADMIN = `adm_${'D'.repeat(43)}`;
const PLAIN = 'plain-token-0123456789';

const mapPrincipal: Principal = { kind: 'map_key', keyId: 'k', mapId: 'm', characterId: 'c' };
const aclPrincipal: Principal = { kind: 'acl_key', aclId: 'a' };

const given = (token: string, principal: Principal | null = null, revoked = false): Presented => ({ as: 'token', token, identity: { principal, revoked } });
const message = (accepts: Principal['kind'][], presented: Presented) => tokenRefused(accepts, presented).message;
const REF = "Missing or invalid 'Bearer' token: ";

describe('the message of a 401', () => {
  it('starts with the reference message and keeps the unauthorized code and WWW-Authenticate', () => {
    const err = tokenRefused(['map_key'], { as: 'none' });
    expect(err.status).toBe(401);
    expect(err.headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
    expect(errorBody(err)).toEqual({ error: `${REF}this endpoint takes a map API key, and none was given`, code: 'unauthorized' });
  });

  it('names the token each kind of endpoint takes', () => {
    expect(message(['map_key'], { as: 'none' })).toBe(`${REF}this endpoint takes a map API key, and none was given`);
    expect(message(['acl_key'], { as: 'none' })).toBe(`${REF}this endpoint takes an ACL API key, and none was given`);
    expect(message(['map_key', 'acl_key'], { as: 'none' })).toBe(`${REF}this endpoint takes a map or ACL API key, and none was given`);
    expect(message(['admin'], { as: 'none' })).toBe(`${REF}this endpoint takes the admin token, and none was given`);
  });

  it('says a header or token parameter is malformed, with the form a token takes', () => {
    expect(message(['map_key'], { as: 'malformed', where: 'header' })).toBe(
      `${REF}this endpoint takes a map API key; the Authorization header is not 'Bearer <token>' with a token of 16 to 256 letters, digits and - . _ ~ + / =`,
    );
    expect(message(['map_key'], { as: 'malformed', where: 'query' })).toBe(
      `${REF}this endpoint takes a map API key; the token parameter is not a token of 16 to 256 letters, digits and - . _ ~ + / =`,
    );
  });

  it('names the kind of a token of another kind, by what it resolved to or by its prefix alike', () => {
    for (const presented of [given(ACL_KEY, aclPrincipal), given(ACL_KEY)]) {
      expect(message(['map_key'], presented)).toBe(`${REF}this endpoint takes a map API key, not an ACL API key`);
    }
    for (const presented of [given(MAP_KEY, mapPrincipal), given(MAP_KEY)]) {
      expect(message(['acl_key'], presented)).toBe(`${REF}this endpoint takes an ACL API key, not a map API key`);
      expect(message(['admin'], presented)).toBe(`${REF}this endpoint takes the admin token, not a map API key`);
    }
    // An admin token configured without the prefix is told by what it resolved to.
    for (const presented of [given(PLAIN, { kind: 'admin' }), given(ADMIN)]) {
      expect(message(['map_key'], presented)).toBe(`${REF}this endpoint takes a map API key, not the admin token`);
      expect(message(['map_key', 'acl_key'], presented)).toBe(`${REF}this endpoint takes a map or ACL API key, not the admin token`);
    }
  });

  it('says a revoked map key is revoked where map keys are taken, and only that it is a map key elsewhere', () => {
    expect(message(['map_key'], given(MAP_KEY, null, true))).toBe(`${REF}this endpoint takes a map API key; the map API key given has been revoked`);
    expect(message(['map_key', 'acl_key'], given(MAP_KEY, null, true))).toBe(
      `${REF}this endpoint takes a map or ACL API key; the map API key given has been revoked`,
    );
    expect(message(['acl_key'], given(MAP_KEY, null, true))).toBe(message(['acl_key'], given(MAP_KEY, mapPrincipal)));
    expect(message(['admin'], given(MAP_KEY, null, true))).toBe(message(['admin'], given(MAP_KEY, mapPrincipal)));
  });

  it('tells nothing more about an unknown token of the right kind, or of no recognisable kind', () => {
    const unknown = `${REF}this endpoint takes a map API key; the token given is not valid`;
    expect(message(['map_key'], given(MAP_KEY))).toBe(unknown);
    expect(message(['map_key'], given(PLAIN))).toBe(unknown);
    expect(message(['acl_key'], given(ACL_KEY))).toBe(`${REF}this endpoint takes an ACL API key; the token given is not valid`);
    expect(message(['admin'], given(ADMIN))).toBe(`${REF}this endpoint takes the admin token; the token given is not valid`);
    expect(message(['admin'], given(PLAIN))).toBe(`${REF}this endpoint takes the admin token; the token given is not valid`);
  });

  it('never repeats the token', () => {
    for (const token of [MAP_KEY, ACL_KEY, ADMIN, PLAIN]) {
      for (const accepts of [['map_key'], ['acl_key'], ['map_key', 'acl_key'], ['admin']] as Principal['kind'][][]) {
        for (const revoked of [false, true]) expect(message(accepts, given(token, null, revoked))).not.toContain(token.slice(4));
      }
    }
  });

  it('has OpenAPI examples that are messages the service sends', () => {
    expect(MAP_KEY_UNAUTHORIZED_EXAMPLE).toEqual(errorBody(tokenRefused(['map_key'], { as: 'none' })));
    expect(ACL_KEY_UNAUTHORIZED_EXAMPLE).toEqual(errorBody(tokenRefused(['acl_key'], given(MAP_KEY, mapPrincipal))));
    expect(ANY_KEY_UNAUTHORIZED_EXAMPLE).toEqual(errorBody(tokenRefused(['map_key', 'acl_key'], given(PLAIN, { kind: 'admin' }))));
    expect(ADMIN_UNAUTHORIZED_EXAMPLE).toEqual(errorBody(tokenRefused(['admin'], given(MAP_KEY, mapPrincipal))));
  });
});
