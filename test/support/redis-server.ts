/**
 * A Redis server of the test's own on a free loopback port (with an append-only file, so a stop and
 * restart keeps what it had, unless made without), for tests that stop Redis without touching the
 * machine's one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitPort(port: number, open: boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok === open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis on ${port} did not become ${open ? 'reachable' : 'unreachable'}`);
}

export class OwnRedis {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-redis-'));

  /** `persist: false`: no append-only file, so a restart starts empty (as a Redis kept as a cache does). */
  constructor(
    readonly port: number,
    private readonly persist = true,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async create(opts: { persist?: boolean } = {}): Promise<OwnRedis> {
    const r = new OwnRedis(await freePort(), opts.persist ?? true);
    await r.start();
    return r;
  }

  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        ...(this.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
        '--save',
        '',
      ],
      { stdio: 'ignore' },
    );
    await waitPort(this.port, true);
  }

  /** Stops the server (SIGTERM: it flushes its append-only file first). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    await waitPort(this.port, false);
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
