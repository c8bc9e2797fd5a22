/**
 * Starts the machine's PostgreSQL and Redis when they are not running; tests use the real services.
 */
import { execSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function waitFor(port: number, what: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what} did not come up on 127.0.0.1:${port}`);
}

export default async function setup(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL && !(await portOpen(5432))) {
    if (existsSync('/etc/postgresql')) {
      const version = readdirSync('/etc/postgresql')[0];
      execSync(`pg_ctlcluster --skip-systemctl-redirect ${version} main start`, { stdio: 'inherit' });
    }
    await waitFor(5432, 'PostgreSQL');
  }
  if (!process.env.TEST_REDIS_URL && !(await portOpen(6379))) {
    execSync('redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no', { stdio: 'inherit' });
    await waitFor(6379, 'Redis');
  }
}
