/**
 * The service behind PgBouncer in transaction mode (the pgbouncer tier, make test-pgbouncer): refused
 * at start, saying what to set, when DATABASE_URL goes through the pooler without DATABASE_SESSION_URL
 * or without the settings on the role; with both, the relay's LISTEN and partition locks live on the
 * session connection, so NOTIFY wakes it and two relays split the partitions without losing an event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startPgbouncer, type Pgbouncer } from '../../scripts/pgbouncer.mjs';
import { startCli } from '../support/cli-process.js';
import { createTestDb, dropSchema, TEST_DATABASE_URL, TEST_PGBOUNCER_URL, uniqueName, type TestDb } from '../support/db.js';
import { TEST_ENCRYPTION_KEY } from '../support/app.js';
import { EventRelay } from '../../src/events/relay.js';
import { Outbox, type OutboxEvent } from '../../src/events/outbox.js';
import { memoryTransport } from '../support/transports.js';
import { createLogger } from '../../src/common/log.js';
import { AdminService } from '../../src/admin/admin.service.js';
import { dbOf } from '../../src/db/db.js';
import { waitFor } from '../support/wait.js';

const bouncers: Pgbouncer[] = [];
const schemas: string[] = [];

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A fresh database (no settings on it) reached through `bouncer`; dropped after the file. */
async function bareDatabase(): Promise<string> {
  const name = uniqueName('pgb').toLowerCase();
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  schemas.push(name);
  return name;
}

/** `mapintel serve --roles api` with this database environment; its exit code and output. */
async function serveOnce(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const cli = startCli(['serve', '--roles', 'api'], {
    PORT: '0',
    HOST: '127.0.0.1',
    OPS_PORT: '0',
    OPS_HOST: '127.0.0.1',
    SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'info',
    ...env,
  });
  const code = await Promise.race([cli.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 60_000))]);
  if (code === 'running') {
    await cli.stop();
    throw new Error(`the process did not refuse to start:\n${cli.output()}`);
  }
  return { code, output: cli.output() };
}

afterAll(async () => {
  for (const b of bouncers) await b.stop();
  // dropSchema drops the database in this tier.
  for (const s of schemas) await dropSchema(s).catch(() => undefined);
});

describe('refused at start through PgBouncer in transaction mode', () => {
  it('without DATABASE_SESSION_URL PgBouncer refuses the startup parameters, and the error says what to set', async () => {
    const bouncer = await startPgbouncer(TEST_DATABASE_URL);
    bouncers.push(bouncer);
    const db = await bareDatabase();
    const r = await serveOnce({ DATABASE_URL: withDatabase(bouncer.url, db) });
    expect(r.code).toBe(1);
    expect(r.output).toContain('unsupported startup parameter: options');
    expect(r.output).toContain('set DATABASE_SESSION_URL to a direct connection');
    expect(r.output).toContain('docs/operations.md#connection-poolers');
  });

  it('a pooler that drops them (ignore_startup_parameters = options) is detected: the process refuses to start', async () => {
    const bouncer = await startPgbouncer(TEST_DATABASE_URL, { ignore_startup_parameters: 'extra_float_digits,options' });
    bouncers.push(bouncer);
    const db = await bareDatabase();
    const r = await serveOnce({ DATABASE_URL: withDatabase(bouncer.url, db) });
    expect(r.code).toBe(2);
    expect(r.output).toContain("DATABASE_URL lost the connection's startup parameters (statement_timeout 0 ms where 14000 ms was sent");
    expect(r.output).toContain('Set DATABASE_SESSION_URL to a direct connection');
    // Refused before anything ran: no log line says it listens.
    expect(r.output).not.toContain('"msg":"listening"');
  });

  it('with DATABASE_SESSION_URL but no settings on the role or database, it names each ALTER ROLE to run', async () => {
    const bouncer = await startPgbouncer(TEST_DATABASE_URL);
    bouncers.push(bouncer);
    const db = await bareDatabase();
    const r = await serveOnce({ DATABASE_URL: withDatabase(bouncer.url, db), DATABASE_SESSION_URL: withDatabase(TEST_DATABASE_URL, db) });
    expect(r.code).toBe(2);
    const target = `ALTER ROLE "postgres" IN DATABASE "${db}" SET`;
    expect(r.output).toContain(`${target} statement_timeout = '14000ms';`);
    expect(r.output).toContain(`${target} lock_timeout = '5000ms';`);
    expect(r.output).toContain(`${target} idle_in_transaction_session_timeout = '60000ms';`);
    // The schema `public` exists in a new database: nothing to say about search_path.
    expect(r.output).not.toContain('search_path');
  });
});

describe('relays with DATABASE_SESSION_URL beside a pooled DATABASE_URL', () => {
  let db: TestDb;
  const relays: EventRelay[] = [];

  beforeAll(async () => {
    expect(TEST_PGBOUNCER_URL, 'this file runs in the pgbouncer tier (make test-pgbouncer)').toBeTruthy();
    db = await createTestDb('pgbrelay');
  });
  afterAll(async () => {
    for (const r of relays) await r.stop();
    await db?.close();
  });

  it('two relays split the partitions on their sessions, NOTIFY wakes them, and every event arrives once, in order', async () => {
    expect(db.databaseUrl).toContain(`:${new URL(TEST_PGBOUNCER_URL!).port}/`);
    expect(db.sessionUrl).toBe(withDatabase(TEST_DATABASE_URL, db.schema));
    const transport = memoryTransport();
    const log = createLogger('silent');
    for (let i = 0; i < 2; i++) {
      const relay = new EventRelay({
        databaseUrl: db.databaseUrl,
        sessionUrl: db.sessionUrl,
        timeouts: db.timeouts,
        schema: db.schema,
        publisher: transport,
        log,
        partitions: 4,
        batchSize: 20,
        // No safety poll within the test: only a NOTIFY on the session wakes a relay.
        pollIntervalMs: 600_000,
        retentionMs: 86_400_000,
        pruneIntervalMs: 3_600_000,
      });
      relays.push(relay);
      relay.start();
    }
    await waitFor(() => relays.reduce((n, r) => n + r.heldPartitions().length, 0) === 4, 30_000);
    const held = relays.flatMap((r) => r.heldPartitions()).sort();
    expect(held).toEqual([0, 1, 2, 3]);

    // The locks are on the sessions: four advisory locks in the database, none on a pooled connection.
    const direct = new pg.Client({ connectionString: db.sessionUrl });
    await direct.connect();
    const locks = await direct.query<{ n: number }>(
      `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database where l.locktype = 'advisory' and d.datname = $1 and l.granted`,
      [db.schema],
    );
    await direct.end();
    expect(locks.rows[0]!.n).toBe(4);

    const outbox = new Outbox(db.orm);
    const admin = new AdminService(dbOf(db.orm), outbox);
    const maps: string[] = [];
    for (let m = 0; m < 6; m++) {
      const n = Math.floor(Math.random() * 1e9);
      await admin.upsertCharacter({ eve_id: String(2_000_000_000 + n), name: `Owner ${n}`, corporation_id: '1', corporation_ticker: 'C' });
      maps.push((await admin.createMap({ slug: `pgb-${n}`, name: 'Pooled', owner_eve_id: String(2_000_000_000 + n) })).map.id);
    }
    // The maps at once, each map's events one after another (commit order is the order per map).
    for (let n = 0; n < 30; n++) {
      await Promise.all(
        maps.map((mapId) =>
          db.orm.em.fork().transactional(async (tx) => outbox.append(tx, [{ mapId, type: 'map_kill', payload: { n } } as unknown as OutboxEvent])),
        ),
      );
    }
    for (const mapId of maps) {
      await waitFor(async () => (await transport.range(mapId, null, 100)).length >= 30, 60_000);
      const events = await transport.range(mapId, null, 100);
      expect(events.map((e) => e.payload.n)).toEqual([...Array(30).keys()]);
      for (let i = 1; i < events.length; i++) expect(events[i]!.id > events[i - 1]!.id).toBe(true);
    }
  });
});
