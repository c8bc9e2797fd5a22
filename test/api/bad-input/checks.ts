/** What every hostile answer must be (a JSON 4xx), and the database snapshot that shows nothing was written. */
import { expect } from 'vitest';
import type { TestServer } from '../../support/app.js';
import type { HostileRequest } from './cases.js';

const WATCHED = [
  'acls',
  'acl_members',
  'map_acls',
  'users',
  'characters',
  'maps',
  'map_api_keys',
  'map_characters',
  'map_systems',
  'map_connections',
  'map_signatures',
  'map_structures',
  'map_kills',
  'character_activity',
  'webhook_subscriptions',
  'webhook_map_state',
  'webhook_deliveries',
  'webhook_attempts',
] as const;

/**
 * Row count and the sum of the rows' xmin per table: any insert, update or delete changes one of them
 * (an update writes a new row version with a new xmin).
 */
export async function snapshot(t: TestServer): Promise<Record<string, string>> {
  const conn = t.platform.orm.em.fork().getConnection();
  const parts = WATCHED.map((table) => `(select count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) from ${table}) as ${table}`);
  const rows = await conn.execute<Record<string, string>[]>(`select ${parts.join(', ')}, (select count(*)::text from map_events) as map_events`);
  return rows[0]!;
}

const COUNTED = ['acls', 'acl_members', 'users', 'characters', 'maps', 'map_api_keys', 'map_events'] as const;

export async function rowCounts(t: TestServer): Promise<Record<string, number>> {
  const rows = await t.platform.orm.em
    .fork()
    .getConnection()
    .execute<Record<string, number>[]>(`select ${COUNTED.map((table) => `(select count(*)::int from ${table}) as ${table}`).join(', ')}`);
  return rows[0]!;
}

export async function expectJsonClientError(res: Response, req: HostileRequest): Promise<void> {
  const text = await res.text();
  const where = `${req.method} ${req.path.slice(0, 200)} → ${res.status} ${text.slice(0, 300)}`;
  if (req.status !== undefined) expect(res.status, where).toBe(req.status);
  expect(res.status, where).toBeGreaterThanOrEqual(400);
  expect(res.status, where).toBeLessThan(500);
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(typeof body.error, where).toBe('string');
  expect(body.code, where).toMatch(/^[a-z][a-z0-9_]*$/);
  if (req.code) expect(body.code, where).toBe(req.code);
  expect(
    Object.keys(body).filter((k) => !['error', 'code', 'details'].includes(k)),
    where,
  ).toEqual([]);
  if ('details' in body) {
    expect(Array.isArray(body.details), where).toBe(true);
    for (const d of body.details as Record<string, unknown>[]) {
      expect(typeof d.field, where).toBe('string');
      expect(typeof d.message, where).toBe('string');
    }
  }
  expect(text, where).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+/);
}
