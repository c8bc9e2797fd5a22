import type { Db } from '../../db/db.js';
import { tsMicro } from '../../db/sql.js';
import type { AclListItemDto } from './map-read.dto.js';

/** Reads of the `/api/map/*` family that belong to no map resource of their own. */
export class MapReadRepository {
  /** ACLs linked to the map, in list form (owner_eve_id, no members, no api_key). */
  async aclsOfMap(db: Db, mapId: string): Promise<AclListItemDto[]> {
    return db.all<AclListItemDto>(
      `select a.id, a.name, a.description, ch.eve_id as owner_eve_id,
              ${tsMicro('a.inserted_at')} as inserted_at, ${tsMicro('a.updated_at')} as updated_at
       from map_acls ma join acls a on a.id = ma.acl_id join characters ch on ch.id = a.owner_id
       where ma.map_id = ? order by a.name, a.id`,
      [mapId],
    );
  }
}
