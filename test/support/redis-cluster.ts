/**
 * A Redis Cluster of the test's own: three masters with one replica each, `redis-server
 * --cluster-enabled yes` on free loopback ports in a temp dir, joined by `redis-cli --cluster
 * create`, ready once every node reports `cluster_state:ok`; `stop()` kills every node and removes
 * the dir. Usable from a vitest global setup (the cluster tier) or from a single test (failover).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './redis-server.js';

const run = promisify(execFile);

export interface ClusterNode {
  port: number;
  /** The port of the cluster bus (node to node). */
  busPort: number;
  child: ChildProcess | undefined;
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 });
  return stdout;
}

/** The node's server is running (started, not killed, not exited). */
function running(node: ClusterNode): boolean {
  return node.child !== undefined && node.child.exitCode === null && node.child.signalCode === null;
}

function field(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

export class RedisClusterServer {
  readonly nodes: ClusterNode[] = [];
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-redis-cluster-'));

  /** The URL the service is given: one node; the client discovers the rest. */
  get url(): string {
    return `redis://127.0.0.1:${this.nodes[0]!.port}`;
  }

  /** Starts `masters` masters with `replicas` replicas each (default 3 and 1) and waits for the cluster to be ok. */
  static async start(opts: { masters?: number; replicas?: number } = {}): Promise<RedisClusterServer> {
    const c = new RedisClusterServer();
    try {
      await c.boot(opts.masters ?? 3, opts.replicas ?? 1);
    } catch (err) {
      await c.stop();
      throw err;
    }
    return c;
  }

  private async boot(masters: number, replicas: number): Promise<void> {
    const taken = new Set<number>();
    const port = async () => {
      for (;;) {
        const p = await freePort();
        if (!taken.has(p)) {
          taken.add(p);
          return p;
        }
      }
    };
    for (let i = 0; i < masters * (1 + replicas); i++) this.nodes.push({ port: await port(), busPort: await port(), child: undefined });
    for (const node of this.nodes) this.spawnNode(node);
    for (const node of this.nodes) await this.waitFor(node.port, async () => (await cli(node.port, 'PING')).trim() === 'PONG');
    await run('redis-cli', ['--cluster', 'create', ...this.nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', String(replicas), '--cluster-yes'], {
      timeout: 60_000,
    });
    await this.waitOk();
    // A replica can take over only once it has copied its master: wait for every link to be up.
    for (const node of this.nodes) {
      await this.waitFor(node.port, async () => {
        const info = await cli(node.port, 'INFO', 'replication');
        return field(info, 'role') === 'master' || field(info, 'master_link_status') === 'up';
      });
    }
  }

  private spawnNode(node: ClusterNode): void {
    const dir = path.join(this.dir, String(node.port));
    mkdirSync(dir, { recursive: true });
    node.child = spawn(
      'redis-server',
      [
        '--port',
        String(node.port),
        '--cluster-port',
        String(node.busPort),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        // A dead master is declared failed (and its replica promoted) within about this long.
        '--cluster-node-timeout',
        '2000',
        // A replica takes over however long ago it last heard from its master (on a loaded machine too).
        '--cluster-replica-validity-factor',
        '0',
        '--appendonly',
        'no',
        '--save',
        '',
      ],
      { stdio: 'ignore' },
    );
  }

  private async waitFor(port: number, ok: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        if (await ok()) return;
      } catch (err) {
        last = err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`redis cluster node ${port} not ready: ${String((last as Error | undefined)?.message ?? 'timed out')}`);
  }

  /** Waits until every running node reports `cluster_state:ok` and sees the same number of masters with slots. */
  async waitOk(timeoutMs = 60_000): Promise<void> {
    for (const node of this.nodes) {
      if (!running(node)) continue;
      await this.waitFor(node.port, async () => field(await cli(node.port, 'CLUSTER', 'INFO'), 'cluster_state') === 'ok', timeoutMs);
    }
  }

  /** The running masters' ports, as the cluster sees them now. */
  async masters(): Promise<number[]> {
    const alive = this.nodes.find(running)!;
    const lines = (await cli(alive.port, 'CLUSTER', 'NODES')).trim().split('\n');
    return lines
      .map((l) => l.split(' '))
      .filter((f) => f[2]!.includes('master') && !f[2]!.includes('fail') && f.length > 8)
      .map((f) => Number(/:(\d+)@/.exec(f[1]!)![1]));
  }

  /** The port of the master serving `key` now. */
  async masterOf(key: string): Promise<number> {
    const alive = this.nodes.find(running)!;
    const slot = Number((await cli(alive.port, 'CLUSTER', 'KEYSLOT', key)).trim());
    const lines = (await cli(alive.port, 'CLUSTER', 'NODES')).trim().split('\n');
    for (const f of lines.map((l) => l.split(' '))) {
      if (!f[2]!.includes('master') || f[2]!.includes('fail')) continue;
      for (const range of f.slice(8)) {
        const [from, to] = range.split('-').map(Number) as [number, number | undefined];
        if (slot >= from && slot <= (to ?? from)) return Number(/:(\d+)@/.exec(f[1]!)![1]);
      }
    }
    throw new Error(`no master serves slot ${slot}`);
  }

  /** Kills a node at once (SIGKILL), as a crashed machine; its replica takes over after the node timeout. */
  async kill(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    const child = node?.child;
    if (!node || !child || !running(node)) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    node.child = undefined;
  }

  /** Starts a killed node again on its port and dir: it rejoins the cluster (as a replica once another took its slots). */
  async restart(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no node on ${port}`);
    this.spawnNode(node);
    await this.waitFor(port, async () => (await cli(port, 'PING')).trim() === 'PONG');
    await this.waitOk();
  }

  /** Waits until `port` no longer serves slots as a master and the cluster is ok again. */
  async waitFailedOver(port: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!(await this.masters().catch(() => [port])).includes(port)) {
        await this.waitOk(timeoutMs);
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`node ${port} was not failed over`);
  }

  /** Kills every node and removes the dir. */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => this.kill(n.port)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Vitest global setup of the redis-cluster tier: one cluster for every file, named by TEST_REDIS_URL and REDIS_CLUSTER. */
export default async function setup(): Promise<() => Promise<void>> {
  const cluster = await RedisClusterServer.start();
  process.env.TEST_REDIS_URL = cluster.url;
  process.env.TEST_REDIS_CLUSTER = 'true';
  return () => cluster.stop();
}
