/** Hostile-input table entries: the static-data read, the route finder and the admin API. */
import { NOT_ON_MAP, ON_MAP, ON_MAP_3, type Endpoint } from './table.js';

export const STATIC_AND_ADMIN_ROUTES: Endpoint[] = [
  { method: 'GET', route: '/api/common/system-static-info', token: 'none', ints: ['id'], query: () => ({ id: '30000142' }) },
  {
    method: 'POST',
    route: '/route/findClosest',
    token: 'none',
    body: () => ({ origin: ON_MAP, flag: 'secure', connections: [`${ON_MAP}|${ON_MAP_3}`], avoid: [NOT_ON_MAP], count: 2, type: 'trade_hubs' }),
  },
  { method: 'POST', route: '/api/admin/users', token: 'admin', body: () => ({ name: 'Hostile user' }) },
  { method: 'GET', route: '/api/admin/users', token: 'admin' },
  { method: 'GET', route: '/api/admin/users/:id', token: 'admin', params: (c) => ({ id: c.userId }) },
  {
    method: 'PUT',
    route: '/api/admin/users/:id/main-character',
    token: 'admin',
    params: (c) => ({ id: c.userId }),
    body: (c) => ({ eve_id: c.userCharEveId }),
  },
  {
    method: 'PUT',
    route: '/api/admin/characters',
    token: 'admin',
    body: () => ({
      eve_id: '2199999001',
      name: 'Hostile pilot',
      corporation_id: '98000009',
      corporation_ticker: 'HOST',
      alliance_id: '99000009',
      alliance_ticker: 'HSTL',
    }),
  },
  { method: 'GET', route: '/api/admin/characters', token: 'admin' },
  {
    method: 'POST',
    route: '/api/admin/maps',
    token: 'admin',
    body: (c) => ({ slug: 'hostile-map', name: 'Hostile map', description: 'd', owner_eve_id: c.ownerEveId }),
  },
  { method: 'GET', route: '/api/admin/maps', token: 'admin' },
  { method: 'GET', route: '/api/admin/maps/:map', token: 'admin', params: (c) => ({ map: c.mapId }) },
  {
    method: 'POST',
    route: '/api/admin/maps/:map/keys',
    token: 'admin',
    params: (c) => ({ map: c.mapId }),
    body: (c) => ({ character_eve_id: c.ownerEveId, name: 'hostile key' }),
  },
  { method: 'GET', route: '/api/admin/maps/:map/keys', token: 'admin', params: (c) => ({ map: c.slug }) },
  {
    method: 'DELETE',
    route: '/api/admin/maps/:map/keys/:key_id',
    token: 'admin',
    params: (c) => ({ map: c.mapId, key_id: c.keyId }),
  },
  {
    method: 'PUT',
    route: '/api/admin/maps/:map/characters/:eve_id',
    token: 'admin',
    params: (c) => ({ map: c.mapId, eve_id: c.trackedEveId }),
    body: () => ({ tracked: false }),
  },
  {
    method: 'DELETE',
    route: '/api/admin/maps/:map/characters/:eve_id',
    token: 'admin',
    params: (c) => ({ map: c.mapId, eve_id: c.trackedEveId }),
  },
];
