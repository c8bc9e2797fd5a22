/**
 * A PostgreSQL and a Redis of the test's own that accept only TLS, on free loopback ports, with the
 * certificates of tls-certs.ts. PostgreSQL is a fresh cluster (initdb) run as the `postgres` user when
 * the tests run as root; both are stopped and their folders removed by stop().
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './redis-server.js';
import type { TestCerts } from './tls-certs.js';

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface TlsServer {
  port: number;
  output(): string;
  stop(): Promise<void>;
}

function asPostgres(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

async function waitForLine(child: ChildProcess, out: () => string, needle: RegExp, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (needle.test(out())) return;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start:\n${out()}`);
}

function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

/** PostgreSQL 15 with ssl on and only `hostssl` entries: a plain connection is refused. */
export async function startTlsPostgres(certs: TestCerts): Promise<TlsServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-pgtls-'));
  const data = path.join(dir, 'data');
  const owner = asPostgres();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const opts = owner ? { uid: owner.uid, gid: owner.gid } : {};
  execFileSync(path.join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { ...opts, stdio: 'pipe' });
  for (const [from, to] of [
    [certs.certFile, 'server.crt'],
    [certs.keyFile, 'server.key'],
  ] as const) {
    copyFileSync(from, path.join(data, to));
    if (owner) chownSync(path.join(data, to), owner.uid, owner.gid);
  }
  writeFileSync(path.join(data, 'pg_hba.conf'), 'hostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n');
  const port = await freePort();
  const child = spawn(
    path.join(PG_BIN, 'postgres'),
    ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'ssl=on', '-c', 'fsync=off', '-c', 'max_connections=20'],
    { ...opts, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await waitForLine(child, () => out, /ready to accept connections/, 'PostgreSQL with TLS');
  return { port, output: () => out, stop: stopper(child, dir) };
}

/** Redis with only a TLS port (no plain one); clients need not present a certificate. */
export async function startTlsRedis(certs: TestCerts): Promise<TlsServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-redistls-'));
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--tls-cert-file',
      certs.certFile,
      '--tls-key-file',
      certs.keyFile,
      '--tls-ca-cert-file',
      certs.caFile,
      '--tls-auth-clients',
      'no',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await waitForLine(child, () => out, /Ready to accept connections/, 'Redis with TLS');
  return { port, output: () => out, stop: stopper(child, dir) };
}
