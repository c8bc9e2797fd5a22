import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../support/db.js';

describe('migrations', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('mig');
  });
  afterAll(async () => db?.close());

  it('creates every table of the data model in the test schema', async () => {
    const rows = await db.orm.em
      .getConnection()
      .execute<{ table_name: string }[]>(`select table_name from information_schema.tables where table_schema = ? order by table_name`, [db.schema]);
    expect(rows.map((r) => r.table_name)).toEqual([
      'acl_members',
      'acls',
      'character_activity',
      'characters',
      'event_consumer_positions',
      'event_consumers',
      'map_acls',
      'map_api_keys',
      'map_characters',
      'map_connections',
      'map_event_cursors',
      'map_events',
      'map_kills',
      'map_signatures',
      'map_structures',
      'map_systems',
      'map_versions',
      'maps',
      'mikro_orm_migrations',
      'shared_data_version',
      'solar_systems',
      'users',
      'webhook_attempts',
      'webhook_deliveries',
      'webhook_map_state',
      'webhook_subscriptions',
    ]);
  });

  it('indexes the webhook queue for what reads it: the claim per subscription, pruning, one delivery per event and subscription', async () => {
    const rows = await db.orm.em
      .getConnection()
      .execute<{ indexname: string }[]>(`select indexname from pg_indexes where schemaname = ? and tablename = 'webhook_deliveries' order by indexname`, [
        db.schema,
      ]);
    expect(rows.map((r) => r.indexname)).toEqual([
      'webhook_deliveries_finished_index',
      'webhook_deliveries_pkey',
      'webhook_deliveries_subscription_due_index',
      'webhook_deliveries_subscription_event_unique',
    ]);
  });

  it('is idempotent: a second run applies nothing', async () => {
    const { migrate } = await import('../../src/db/orm.js');
    expect(await migrate(db.orm)).toEqual([]);
  });
});
