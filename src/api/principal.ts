/** Who is calling, as established by the bearer token. */
export type Principal =
  | {
      kind: 'map_key';
      keyId: string;
      mapId: string;
      characterId: string;
      /** Wire profile of the key's event streams (decisions §6, or the reference server's). */
      streamProfile?: 'spec' | 'reference';
    }
  | { kind: 'acl_key'; aclId: string }
  | { kind: 'admin' };

export type MapKeyPrincipal = Extract<Principal, { kind: 'map_key' }>;
export type AclKeyPrincipal = Extract<Principal, { kind: 'acl_key' }>;
