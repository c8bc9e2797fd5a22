/** Hostile-input table entries: the map's event log, its presence, the event catalog and webhook management. */
import { mapPath, type Endpoint } from './table.js';

export const EVENT_AND_WEBHOOK_ROUTES: Endpoint[] = [
  {
    method: 'GET',
    route: '/api/maps/:map_id/events',
    token: 'map',
    params: (c) => ({ map_id: c.mapId }),
    ints: ['limit'],
    ids: ['after'],
    query: () => ({ limit: '10', after: '01JCZ7Y8ZK8Q4R2T6V9W3X5Y7A' }),
  },
  { method: 'GET', route: '/api/maps/:map_id/presence', token: 'map', params: mapPath },
  { method: 'PUT', route: '/api/maps/:map_id/webhooks/toggle', token: 'map', params: mapPath, body: () => ({ enabled: false }) },
  { method: 'GET', route: '/api/maps/:map_id/webhooks', token: 'map', params: mapPath },
  {
    method: 'POST',
    route: '/api/maps/:map_id/webhooks',
    token: 'map',
    params: mapPath,
    body: () => ({ url: 'http://127.0.0.1:9/other', events: ['*'], active: false }),
  },
  {
    method: 'PUT',
    route: '/api/maps/:map_id/webhooks/:id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.webhookId }),
    body: () => ({ url: 'http://127.0.0.1:9/renamed', events: ['map_kill'], active: false }),
    emptyBodyOk: true,
  },
  { method: 'GET', route: '/api/maps/:map_id/webhooks/:id', token: 'map', params: (c) => ({ map_id: c.mapId, id: c.webhookId }) },
  { method: 'DELETE', route: '/api/maps/:map_id/webhooks/:id', token: 'map', params: (c) => ({ map_id: c.mapId, id: c.webhookId }) },
  { method: 'POST', route: '/api/maps/:map_id/webhooks/:id/rotate-secret', token: 'map', params: (c) => ({ map_id: c.mapId, id: c.webhookId }) },
  {
    method: 'GET',
    route: '/api/maps/:map_id/webhooks/:id/deliveries',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.webhookId }),
    // `before` is an attempt id (bigint): its own bounds are checked in test/api/webhooks.test.ts.
    ints: ['limit'],
    query: () => ({ limit: '10', before: '1000', outcome: 'failure' }),
  },
  {
    method: 'POST',
    route: '/api/maps/:map_id/webhooks/:id/redeliver',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.webhookId }),
    body: (c) => ({ event_id: c.eventId }),
  },
  { method: 'POST', route: '/api/maps/:map_id/webhooks/:id/ping', token: 'map', params: (c) => ({ map_id: c.mapId, id: c.webhookId }) },
  {
    method: 'POST',
    route: '/api/maps/:map_id/webhooks/:id/recover',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.webhookId }),
    // A time to come: a valid recover that matches no event, so it never leaves one running.
    body: () => ({ since: '2999-01-01T00:00:00Z' }),
  },
  {
    method: 'GET',
    route: '/api/maps/:map_id/webhooks/:id/stats',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.webhookId }),
    query: () => ({ window: '24h' }),
  },
  { method: 'GET', route: '/api/events/catalog', token: 'none' },
];
