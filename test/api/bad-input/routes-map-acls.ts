/** Hostile-input table entries: the map-selector reads (`/api/map/…`), the ACL endpoints and `/api/characters`. */
import type { Endpoint } from './table.js';

export const MAP_SELECTOR_AND_ACL_ROUTES: Endpoint[] = [
  { method: 'GET', route: '/api/map/systems', token: 'map', selector: true, bools: ['all'], query: () => ({ all: 'true' }) },
  { method: 'GET', route: '/api/map/system', token: 'map', selector: true, ints: ['id'], query: () => ({ id: '30000142' }) },
  { method: 'GET', route: '/api/map/connections', token: 'map', selector: true },
  { method: 'GET', route: '/api/map/characters', token: 'map', selector: true },
  { method: 'GET', route: '/api/map/systems-kills', token: 'map', selector: true, ints: ['hours'], query: () => ({ hours: '24' }) },
  { method: 'GET', route: '/api/map/character-activity', token: 'map', selector: true, ints: ['days'], query: () => ({ days: '7' }) },
  { method: 'GET', route: '/api/map/user_characters', token: 'map', selector: true },
  {
    method: 'GET',
    route: '/api/map/structure-timers',
    token: 'map',
    selector: true,
    ids: ['system_id'],
    query: () => ({ system_id: '00000000-0000-4000-8000-000000000000' }),
  },
  { method: 'GET', route: '/api/map/acls', token: 'map', selector: true },
  { method: 'GET', route: '/api/map/audit', token: 'map', selector: true, ints: ['limit'], query: () => ({ period: '1D', limit: '10' }) },
  {
    method: 'POST',
    route: '/api/map/acls',
    token: 'map',
    selector: true,
    body: (c) => ({ acl: { name: 'Hostile ACL', description: 'desc', owner_eve_id: c.ownerEveId } }),
  },
  { method: 'GET', route: '/api/acls/:id', token: 'acl', params: (c) => ({ id: c.aclId }) },
  {
    method: 'PUT',
    route: '/api/acls/:id',
    token: 'acl',
    params: (c) => ({ id: c.aclId }),
    body: () => ({ acl: { name: 'Renamed', description: 'changed' } }),
  },
  {
    method: 'POST',
    route: '/api/acls/:acl_id/members',
    token: 'acl',
    params: (c) => ({ acl_id: c.aclId }),
    body: (c) => ({ member: { eve_character_id: c.freeEveId, role: 'viewer', name: 'Someone' } }),
  },
  {
    method: 'PUT',
    route: '/api/acls/:acl_id/members/:member_id',
    token: 'acl',
    params: (c) => ({ acl_id: c.aclId, member_id: c.memberEveId }),
    body: () => ({ member: { role: 'admin' } }),
  },
  {
    method: 'DELETE',
    route: '/api/acls/:acl_id/members/:member_id',
    token: 'acl',
    params: (c) => ({ acl_id: c.aclId, member_id: c.memberEveId }),
  },
  { method: 'GET', route: '/api/characters', token: 'any' },
];
