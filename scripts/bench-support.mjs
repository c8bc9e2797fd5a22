// Housekeeping shared by the benchmark scripts: their own database, free ports, their Redis keys.
import { spawn } from 'node:child_process';
import net from 'node:net';
import pg from 'pg';

/** Drops and recreates the database named by `url` (never postgres or a template); returns its name, the admin URL and the server version. */
export async function recreateDatabase(url) {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`BENCH_DATABASE_URL must name a lower-case database (got "${name}")`);
  if (['postgres', 'template0', 'template1'].includes(name)) throw new Error(`refusing to drop database "${name}"`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.query(`create database "${name}"`);
    const version = (await client.query('show server_version')).rows[0].server_version;
    return { name, admin: admin.toString(), version };
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl, name) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/** Deletes every key under `prefix` with a connected node-redis client; returns how many. */
export async function deleteKeys(redis, prefix) {
  let deleted = 0;
  const batch = [];
  for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    batch.push(...(Array.isArray(keys) ? keys : [keys]));
  }
  for (let i = 0; i < batch.length; i += 500) deleted += await redis.del(batch.slice(i, i + 500));
  return deleted;
}

/** Deletes every key under `prefix`, with a client of its own. */
export async function deleteRedisKeys(url, prefix) {
  const { createClient } = await import('redis');
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await deleteKeys(client, prefix);
  } finally {
    await client.close();
  }
}

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node <args>` (or `command <args>`) as a child with its output kept (the last 20 kB, stderr
 * echoed with a `[name]` prefix); `stop()` sends SIGTERM, then SIGKILL after 15 s.
 */
export function startChild(name, args, env, { cwd, port, command = process.execPath } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout.on('data', keep);
  // BENCH_ECHO_STDOUT=1 shows the children's stdout too (e.g. node --trace-gc).
  if (process.env.BENCH_ECHO_STDOUT) child.stdout.on('data', (c) => process.stderr.write(`[${name}:stdout] ${c}`));
  child.stderr.on('data', (c) => {
    keep(c);
    process.stderr.write(`[${name}] ${c}`);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    name,
    child,
    url: port ? `http://127.0.0.1:${port}` : undefined,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Polls `url` until it answers 2xx (or `accept(response)`); fails with the child's output when it exits or 60 s pass. */
export async function waitReady(srv, url, timeoutMs = 60_000, accept = (r) => r.ok) {
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  srv.exited.then(() => (dead = true));
  while (Date.now() < deadline && !dead) {
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (accept(r)) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${srv.name} did not become ready:\n${srv.output()}`);
}
