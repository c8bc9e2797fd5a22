import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ALL_ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';
import { installCommitNotifier } from '../events/notifier.js';
import { pgClient, pgConnectionOptions, type DatabaseTimeouts } from './pg-options.js';

export type Orm = MikroORM;

export interface OrmSettings {
  databaseUrl: string;
  schema: string;
  poolMax: number;
  /** Connect, query and lock deadlines; the documented defaults when left out. */
  timeouts?: DatabaseTimeouts;
  debug?: boolean;
}


export function ormOptions(s: OrmSettings): Options {
  return {
    clientUrl: s.databaseUrl,
    // A database that accepts TCP but never answers is unreachable too: connects and queries have
    // deadlines (→ 503). search_path per connection keeps every query and migration unqualified
    // (tests use one schema each).
    driverOptions: pgConnectionOptions(s.timeouts, s.schema === 'public' ? undefined : `-c search_path=${s.schema},public`),
    entities: ALL_ENTITIES,
    extensions: [Migrator],
    pool: { min: 0, max: s.poolMax, idleTimeoutMillis: 30_000 },
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
  installCommitNotifier(orm);
  return orm;
}

export async function migrate(orm: Orm): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}
