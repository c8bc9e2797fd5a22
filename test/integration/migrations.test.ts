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
      'map_rally_points',
      'map_signatures',
      'map_structures',
      'map_systems',
      'map_versions',
      'maps',
      'mikro_orm_migrations',
      'shared_data_version',
      'solar_system_jumps',
      'solar_systems',
      'static_data_imports',
      'users',
      'webhook_attempts',
      'webhook_deliveries',
      'webhook_map_state',
      'webhook_notices',
      'webhook_queue_state',
      'webhook_subscriptions',
      'wormhole_types',
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

  it('rewrites webhook URLs stored before to their one spelling, leaving a row alone whose spelling its map has', async () => {
    const { migrate } = await import('../../src/db/orm.js');
    const conn = db.orm.em.fork().getConnection();
    await db.orm.migrator.down({ to: 'Migration20261125100000_attempt_log_without_delivery' });
    const [owner] = await conn.execute<{ id: string }[]>(
      `insert into characters (eve_id, name, corporation_id, corporation_ticker) values ('9000001', 'Owner', '1', 'T') returning id`,
    );
    const [map] = await conn.execute<{ id: string }[]>(`insert into maps (slug, name, owner_character_id) values ('mig-urls', 'M', ?) returning id`, [
      owner!.id,
    ]);
    const insert = (url: string) =>
      conn.execute(`insert into webhook_subscriptions (map_id, url, events, secret_encrypted, inserted_at) values (?, ?, '{*}', 'x', clock_timestamp())`, [
        map!.id,
        url,
      ]);
    for (const url of [
      'HTTPS://Hooks.Example.com:443/A?b=1#frag',
      'https://other.example.com',
      'https://hooks.example.com/A?b=1#again',
      'https://done.example.com/x',
    ])
      await insert(url);
    expect(await migrate(db.orm)).toEqual([
      'Migration20261126090000_webhook_url_spelling',
      'Migration20261128130000_webhook_sequences',
      'Migration20261128140000_rally_points',
      'Migration20261128150000_wormhole_types',
      'Migration20261128160000_stargate_jumps',
    ]);
    const urls = await conn.execute<{ url: string }[]>(`select url from webhook_subscriptions where map_id = ? order by inserted_at`, [map!.id]);
    expect(urls.map((u) => u.url)).toEqual([
      'https://hooks.example.com/A?b=1',
      'https://other.example.com/',
      'https://hooks.example.com/A?b=1#again', // its spelling is taken by the older row
      'https://done.example.com/x',
    ]);
  });

  it('is idempotent: a second run applies nothing', async () => {
    const { migrate } = await import('../../src/db/orm.js');
    expect(await migrate(db.orm)).toEqual([]);
  });
});
