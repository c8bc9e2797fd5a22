/**
 * The hostile-input table: one entry per route of the generated router, in route families.
 * test/api/bad-input.test.ts checks that it covers every route.
 */
import { EVENT_AND_WEBHOOK_ROUTES } from './routes-webhooks.js';
import { MAP_ROUTES } from './routes-maps.js';
import { MAP_SELECTOR_AND_ACL_ROUTES } from './routes-map-acls.js';
import { STATIC_AND_ADMIN_ROUTES } from './routes-admin.js';
import type { Endpoint } from './table.js';

export const ENDPOINTS: Endpoint[] = [...MAP_SELECTOR_AND_ACL_ROUTES, ...MAP_ROUTES, ...EVENT_AND_WEBHOOK_ROUTES, ...STATIC_AND_ADMIN_ROUTES];
