import type { Request as ExRequest } from 'express';
import { UnauthorizedError } from '../common/errors.js';
import type { KeyProfile } from './key-profile.js';

/** Who is calling, as established by the bearer token. */
export type Principal =
  | {
      kind: 'map_key';
      keyId: string;
      mapId: string;
      characterId: string;
      /** Compatibility profile: the wire shapes of everything the key reads (src/http/key-profile.ts). */
      profile?: KeyProfile;
    }
  | { kind: 'acl_key'; aclId: string }
  | { kind: 'admin' };

export type MapKeyPrincipal = Extract<Principal, { kind: 'map_key' }>;
export type AclKeyPrincipal = Extract<Principal, { kind: 'acl_key' }>;

/** The caller as authentication established it (401 when none). */
export function principalIn(req: ExRequest): Principal {
  const p = (req as ExRequest & { user?: Principal }).user;
  if (!p) throw new UnauthorizedError();
  return p;
}

export function principalOf<K extends Principal['kind']>(req: ExRequest, kind: K): Extract<Principal, { kind: K }> {
  const p = (req as ExRequest & { user?: Principal }).user;
  if (!p || p.kind !== kind) throw new UnauthorizedError();
  return p as Extract<Principal, { kind: K }>;
}
