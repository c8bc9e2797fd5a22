import type { KeyProfile } from './key-profile.js';

/** Who is calling, as established by the bearer token. */
export type Principal =
  | {
      kind: 'map_key';
      keyId: string;
      mapId: string;
      characterId: string;
      /** Compatibility profile: the wire shapes of everything the key reads (src/api/key-profile.ts). */
      profile?: KeyProfile;
    }
  | { kind: 'acl_key'; aclId: string }
  | { kind: 'admin' };

export type MapKeyPrincipal = Extract<Principal, { kind: 'map_key' }>;
export type AclKeyPrincipal = Extract<Principal, { kind: 'acl_key' }>;
