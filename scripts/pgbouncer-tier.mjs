#!/usr/bin/env node
// The pgbouncer tier (make test-pgbouncer): the event, stream and webhook suites with every process's
// DATABASE_URL through PgBouncer in transaction mode and DATABASE_SESSION_URL straight to PostgreSQL
// (test/support/db.ts), plus test/pgbouncer/ (what the service refuses and why). PgBouncer runs on a
// free loopback port for the length of the run.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pgbouncerInstalled, startPgbouncer } from './pgbouncer.mjs';

if (!pgbouncerInstalled()) {
  console.error('pgbouncer is missing (apt-get install pgbouncer)');
  process.exit(1);
}
const target = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const bouncer = await startPgbouncer(target);
console.log(`PgBouncer (transaction mode) on ${bouncer.url}`);
// Each test file's database is marked with this run's tag (test/support/db.ts), so the ones a failed
// file left behind are dropped here, and nothing else.
const tag = `mapintel-pgbouncer-tier ${randomBytes(6).toString('hex')}`;
let status;
try {
  const run = spawnSync('node', ['scripts/run-tests.mjs', '--tier', 'pgbouncer', '--project', 'pgbouncer', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, TEST_PGBOUNCER_URL: bouncer.url, TEST_PGBOUNCER_TAG: tag },
  });
  status = run.status ?? 1;
} finally {
  await bouncer.stop();
  const client = new pg.Client({ connectionString: target });
  await client.connect();
  const left = await client.query('select datname from pg_database d where shobj_description(d.oid, $1) = $2', ['pg_database', tag]);
  for (const { datname } of left.rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  if (left.rowCount) console.log(`dropped ${left.rowCount} test databases left behind`);
  await client.end();
}
process.exit(status);
