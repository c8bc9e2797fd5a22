#!/usr/bin/env node
// One of the webhook worker's statements (the lease by id, DeliveryRepository.leaseIds) run unnamed and
// as a named prepared statement (DATABASE_PREPARED_STATEMENTS), through the product's own path (an ORM
// with one connection, Db.allBound, DeadlineClient), on a database of its own that it recreates and
// migrates. The ids match no pending row, so the statement is mostly parsed and planned, not executed.
// Prints, per round and mode: the backend's CPU per statement (/proc/<pid>/stat of the connection's
// backend, 10 ms ticks), this process's CPU per statement, and wall time per statement.
//
//   node scripts/bench-prepared.mjs            (after `make build`)
//   BENCH_STATEMENTS=3000 BENCH_ROUNDS=2 BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/mapintel_bench_prepared node scripts/bench-prepared.mjs
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dropDatabase, intEnv, procCpu, recreateDatabase } from './bench-support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.env.BENCH_DIST ?? path.join(ROOT, 'dist'));
const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mapintel_bench_prepared';
const statements = intEnv('BENCH_STATEMENTS', 3000);
const rounds = intEnv('BENCH_ROUNDS', 2);
const load = (p) => import(pathToFileURL(path.join(dist, p)).href);
const { initOrm, migrate } = await load('db/orm.js');
const { dbOf } = await load('db/db.js');
const { DEFAULT_DATABASE_TIMEOUTS } = await load('db/pg-options.js');
const { DeliveryRepository } = await load('webhooks/delivery.repository.js');

const db = await recreateDatabase(url);
try {
  const repo = new DeliveryRepository();
  const ids = Array.from({ length: 40 }, (_, i) => String(1_000_000 + i));
  console.log(
    `lease by id of ${ids.length} ids, ${statements} statements per round and mode, one connection; PostgreSQL ${db.version}, node ${process.version}`,
  );
  for (let round = 1; round <= rounds; round++) {
    for (const preparedStatements of [false, true]) {
      const orm = await initOrm({ databaseUrl: url, schema: 'public', poolMax: 1, timeouts: { ...DEFAULT_DATABASE_TIMEOUTS, preparedStatements } });
      try {
        if (round === 1 && !preparedStatements) await migrate(orm);
        const handle = dbOf(orm);
        const { pid } = await handle.one('select pg_backend_pid() as pid');
        for (let i = 0; i < 200; i++) await repo.leaseIds(handle, 'bench', 1000, ids);
        const backend = procCpu(pid);
        const client = process.cpuUsage();
        const started = performance.now();
        for (let i = 0; i < statements; i++) await repo.leaseIds(handle, 'bench', 1000, ids);
        const wallMs = performance.now() - started;
        const clientUs = process.cpuUsage(client);
        const backendMs = (procCpu(pid) - backend) * 1000;
        console.log(
          `round ${round} ${preparedStatements ? 'named  ' : 'unnamed'}: backend CPU ${(backendMs / statements).toFixed(3)} ms, ` +
            `this process ${((clientUs.user + clientUs.system) / statements).toFixed(1)} µs, wall ${(wallMs / statements).toFixed(3)} ms per statement`,
        );
      } finally {
        await orm.close(true);
      }
    }
  }
} finally {
  await dropDatabase(db.admin, db.name);
}
