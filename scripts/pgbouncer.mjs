// PgBouncer (Debian's `pgbouncer`) in transaction mode on a free loopback port, in front of the
// machine's PostgreSQL: the pooler of the pgbouncer tier (scripts/pgbouncer-tier.mjs) and of the tests
// that start one of their own (test/pgbouncer/). It logs to a file in its folder, never to a pipe: a
// parent that waits synchronously (spawnSync) would not drain one, and PgBouncer blocks on a full pipe.
// The folder is removed on stop.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

export function pgbouncerInstalled() {
  return spawnSync(PGBOUNCER, ['--version'], { stdio: 'ignore' }).status === 0;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts one. `target` is the PostgreSQL URL it forwards to (host, port and user; every database
 * name is passed through). `extra` adds lines to its [pgbouncer] section (ignore_startup_parameters…).
 * Returns { url, port, stop(), log() } where url is `target` with the pooler's host and port.
 */
export async function startPgbouncer(target = 'postgres://postgres@127.0.0.1:5432/postgres', extra = {}) {
  const t = new URL(target);
  const dir = mkdtempSync(path.join(tmpdir(), 'mapintel-pgbouncer-'));
  // It refuses to run as root: it drops to `nobody`, which must read its files.
  chmodSync(dir, 0o755);
  const user = decodeURIComponent(t.username || 'postgres');
  writeFileSync(path.join(dir, 'users.txt'), `"${user}" "${decodeURIComponent(t.password)}"\n`, { mode: 0o644 });
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const settings = {
      listen_addr: '127.0.0.1',
      listen_port: port,
      unix_socket_dir: '',
      auth_type: t.password ? 'plain' : 'trust',
      auth_file: path.join(dir, 'users.txt'),
      pool_mode: 'transaction',
      max_client_conn: 2000,
      // The machine's PostgreSQL is shared: a few server connections per test database (one file's),
      // closed after seconds idle (not PgBouncer's 10 minutes).
      default_pool_size: 8,
      server_idle_timeout: 5,
      // A failed server login (a test database dropped meanwhile) is retried after 1 s, not 15.
      server_login_retry: 1,
      server_reset_query: '',
      ignore_startup_parameters: 'extra_float_digits',
      ...extra,
    };
    const ini = [
      '[databases]',
      `* = host=${t.hostname} port=${t.port || 5432}`,
      '[pgbouncer]',
      ...Object.entries(settings).map(([k, v]) => `${k} = ${v}`),
      '',
    ].join('\n');
    const file = path.join(dir, 'pgbouncer.ini');
    writeFileSync(file, ini, { mode: 0o644 });
    const args = process.getuid?.() === 0 ? ['-u', 'nobody', file] : [file];
    const logFile = path.join(dir, `pgbouncer-${attempt}.log`);
    const logFd = openSync(logFile, 'a', 0o666);
    chmodSync(logFile, 0o666);
    const child = spawn(PGBOUNCER, args, { stdio: ['ignore', logFd, logFd] });
    closeSync(logFd);
    const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
    let exited = false;
    child.once('exit', () => (exited = true));
    const deadline = Date.now() + 15_000;
    while (!exited && Date.now() < deadline && !(await portOpen(port))) await new Promise((r) => setTimeout(r, 100));
    if (!exited && (await portOpen(port))) {
      const url = new URL(target);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return {
        url: url.toString(),
        port,
        log,
        async stop() {
          if (!exited) {
            child.kill('SIGINT');
            await new Promise((r) => {
              const timer = setTimeout(() => {
                child.kill('SIGKILL');
                r();
              }, 5000);
              child.once('exit', () => {
                clearTimeout(timer);
                r();
              });
            });
          }
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill('SIGKILL');
    if (attempt >= 2) {
      const text = log();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start:\n${text}`);
    }
  }
}
