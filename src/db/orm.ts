import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { MIGRATIONS } from './migrations/index.js';
import { DEFAULT_DATABASE_TIMEOUTS, pgClient, pgConnectionOptions, sessionTimeouts, type DatabaseTimeouts } from './pg-options.js';

export type Orm = MikroORM;

export interface OrmSettings {
  databaseUrl: string;
  schema: string;
  poolMax: number;
  /**
   * Connections kept open while idle, at most `poolMax` (loadConfig caps DATABASE_POOL_MIN so); pg-pool
   * keeps them once opened; 0 by default. A connection opened for the first statement after a quiet
   * spell costs that statement the connect and a new backend's cold catalog caches: 17 ms and more on
   * loopback (docs/benchmarks.md).
   */
  poolMin?: number;
  /** How long a connection above `poolMin` may stay idle before it is closed (ms; 30 s by default). */
  idleTimeoutMs?: number;
  /** Connect, query and lock deadlines; the documented defaults when left out. */
  timeouts?: DatabaseTimeouts;
  debug?: boolean;
  /**
   * A session connection (DATABASE_SESSION_URL) for the migrations' advisory lock, when `databaseUrl`
   * is a pooler in transaction mode; `databaseUrl` itself otherwise.
   */
  sessionUrl?: string;
}

/** Where each ORM's session locks go (initOrm's `sessionUrl`). */
const sessionUrls = new WeakMap<Orm, string>();

export function ormOptions(s: OrmSettings): Options {
  return {
    clientUrl: s.databaseUrl,
    // A database that accepts TCP but never answers is unreachable too: connects and queries have
    // deadlines (→ 503). search_path per connection keeps every query and migration unqualified
    // (tests use one schema each).
    driverOptions: pgConnectionOptions(s.timeouts, s.schema === 'public' ? undefined : `-c search_path=${s.schema},public`),
    // SQL first (docs/decisions/0001-sql-first.md): no entities; the migrations are the schema.
    entities: [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    pool: { min: s.poolMin ?? 0, max: s.poolMax, idleTimeoutMillis: s.idleTimeoutMs ?? 30_000 },
    debug: s.debug ?? false,
    ensureDatabase: false,
    allowGlobalContext: false,
    migrations: {
      migrationsList: MIGRATIONS,
      // Schema-qualified: unqualified, MikroORM looks for it in `public` and re-creates it in a second process.
      tableName: `${s.schema}.mikro_orm_migrations`,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
  };
}

/** Creates the schema when it is not `public` (tests isolate by schema). */
export async function ensureSchema(databaseUrl: string, schema: string, timeouts?: DatabaseTimeouts): Promise<void> {
  if (schema === 'public') return;
  const client = pgClient(databaseUrl, timeouts);
  // A dropped connection also rejects the query in flight; the event alone must not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } finally {
    await client.end();
  }
}

export async function initOrm(s: OrmSettings): Promise<Orm> {
  await ensureSchema(s.databaseUrl, s.schema, s.timeouts);
  const orm = await MikroORM.init(ormOptions(s));
  if (s.sessionUrl) sessionUrls.set(orm, s.sessionUrl);
  return orm;
}

/**
 * Applies pending migrations; returns their names. Processes starting together (an api and a worker
 * pod, say) take turns on a session advisory lock, so the second one finds nothing left to do.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  // A connection outside the ORM's pool: holding one of a pool of 1 would starve the migrator.
  // Waiting for another process's migrations may take long: no query or lock deadline on this wait.
  // A session lock: through a pooler in transaction mode it would stay on a server connection other
  // clients then share, so it goes to the session URL when there is one.
  const session = pgClient(sessionUrls.get(orm) ?? orm.config.get('clientUrl')!, {
    ...sessionTimeouts(DEFAULT_DATABASE_TIMEOUTS),
    queryTimeoutMs: 0,
    lockTimeoutMs: 0,
  });
  session.on('error', () => undefined);
  const key = `mapintel-migrate:${orm.config.get('migrations').tableName ?? ''}`;
  await session.connect();
  try {
    await session.query('select pg_advisory_lock(hashtext($1))', [key]);
    await recordRenamed(orm, 'new');
    const done = await orm.migrator.up();
    await recordRenamed(orm, 'old');
    return done.map((m) => m.name);
  } finally {
    await session.end().catch(() => undefined);
  }
}

/**
 * Migrations renamed after a release had applied them under the old name: the old name, the new one,
 * and a condition that holds once it has run (a `down` leaves the old name behind with its tables gone).
 */
export const RENAMED_MIGRATIONS: readonly { was: string; now: string; applied: string }[] = [
  // Renamed by 2c71b4d (named for its day, after wormhole_types); ee2e61b and the commits before it know the old name.
  {
    was: 'Migration20261129100000_stargate_jumps',
    now: 'Migration20261128160000_stargate_jumps',
    applied: `to_regclass('solar_system_jumps') is not null`,
  },
];

/**
 * Before the migrations run (`new`): a renamed migration a release applied under its old name is
 * recorded under the new one, so it does not run again (an upgrade across the rename). After (`old`):
 * one that ran under its new name is recorded under the old one too, so that the releases that know
 * only the old name find it applied (a rollback across the rename).
 */
async function recordRenamed(orm: Orm, name: 'new' | 'old'): Promise<void> {
  const [schema, table] = (orm.config.get('migrations').tableName ?? '').split('.') as [string, string];
  const conn = orm.em.getConnection();
  const t = `"${schema}"."${table}"`;
  const found = await conn.execute<{ t: string | null }[]>('select to_regclass(?) as t', [t]);
  if (!found[0]?.t) return;
  for (const m of RENAMED_MIGRATIONS) {
    const [have, add] = name === 'new' ? [m.was, m.now] : [m.now, m.was];
    await conn.execute(
      `insert into ${t} (name, executed_at) select ?, executed_at from ${t}
       where name = ? and not exists (select 1 from ${t} where name = ?) ${name === 'new' ? `and ${m.applied}` : ''} limit 1`,
      [add, have, add],
    );
  }
}

/** Names of the migrations not applied yet. */
export async function pendingMigrations(orm: Orm): Promise<string[]> {
  // Asking the migrator would create its bookkeeping table: a refusing command must change nothing.
  const [schema, table] = (orm.config.get('migrations').tableName ?? '').split('.') as [string, string];
  const found = await orm.em
    .getConnection()
    .execute<{ n: number }[]>('select count(*)::int as n from information_schema.tables where table_schema = ? and table_name = ?', [schema, table]);
  if (!found[0]?.n) return MIGRATIONS.map((m) => m.name);
  return (await orm.migrator.getPending()).map((m) => m.name);
}
