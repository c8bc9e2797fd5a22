/**
 * The install of docs/kubernetes.md ("Install") as written, on the real node: the shell blocks between
 * its `install-sequence` markers run in order in one bash, with only the settings block (the first)
 * replaced by the node's values for the same variables. Then the documented command again as an
 * upgrade (the encryption key kept, stored ACL keys still readable), and with another key (refused;
 * accepted on a dry run with secrets.allowKeyChange). The release has its own namespace, database and
 * Redis prefix, and is removed at the end, namespace and all.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { check } from './support/check.js';
import { ADMIN_TOKEN, DATABASE, HELM, IMAGE, KUBECONFIG, KUBECTL, NODE_IP, REDIS_PREFIX, helm, kubectl, kubectlJson, until } from './support/cluster.js';
import { imageParts, sql } from './support/own-release.js';

const DOC = 'docs/kubernetes.md';
const NS = 'mapintel-install';
const DB = `${DATABASE}_install`;
const KEY_PREFIX = `${REDIS_PREFIX}install:`;
/** What the settings block of the doc must set, and nothing else; the node's value of each. */
const SETTINGS = ['NAMESPACE', 'IMAGE_REPOSITORY', 'IMAGE_TAG', 'DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'ADMIN_TOKEN'];

/** The fenced shell blocks between the doc's install-sequence markers, in order. */
function sequence(): string[] {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf('<!-- install-sequence:start -->');
  const end = text.indexOf('<!-- install-sequence:end -->');
  expect(start, `${DOC}: the install-sequence markers`).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return [...text.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

let env: Record<string, string> = {};
/** Runs shell text in bash -euo pipefail with the settings, the node's kubeconfig, kubectl and helm first on PATH. */
function bash(script: string, timeoutMs = 900_000): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    // stdin from /dev/null: on a socket bash would take itself for a remote shell and read bash.bashrc.
    // A group of its own: what the script left in the background (a port-forward when a step failed) goes with it.
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, detached: true });
    child.on('exit', () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* nothing left */
      }
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, out: `${stdout}\n--- stderr ---\n${stderr}` }));
  });
}

const keptKey = async () =>
  Buffer.from((await kubectl(['-n', NS, 'get', 'secret', 'mapintel-env', '-o', 'jsonpath={.data.SERVICE_ENCRYPTION_KEY}'])).trim(), 'base64').toString();
const revisions = async () =>
  (JSON.parse(await helm(['history', 'mapintel', '-n', NS, '-o', 'json'])) as { revision: number; status: string }[]).map((r) => `${r.revision} ${r.status}`);

let apiBase = '';
async function api(method: string, urlPath: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  apiBase ||= `http://${(await kubectl(['-n', NS, 'get', 'service', 'mapintel-api', '-o', 'jsonpath={.spec.clusterIP}'])).trim()}`;
  const res = await fetch(`${apiBase}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function removeAll(): Promise<void> {
  await helm(['uninstall', 'mapintel', '-n', NS, '--wait', '--timeout', '5m', '--ignore-not-found']);
  // What an uninstall leaves (the Secret mapintel-env, the Lease) goes with the namespace.
  await kubectl(['delete', 'namespace', NS, '--ignore-not-found', '--wait=true', '--timeout=180s'], { timeoutMs: 200_000 });
  sql('postgres', `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  execFileSync('bash', ['-c', `redis-cli -h 127.0.0.1 --scan --pattern '${KEY_PREFIX}*' | xargs -r -n 500 redis-cli -h 127.0.0.1 DEL >/dev/null`]);
}

afterAll(async () => {
  await removeAll().catch((err) => console.error(`install.test.ts cleanup: ${err instanceof Error ? err.message : String(err)}`));
}, 400_000);

let mapKey = '';
let acl = { id: '', key: '' };
let installBlock = '';

describe('the documented install on a real node', () => {
  check(
    "I1. docs/kubernetes.md's install sequence as written: helm upgrade --install, helm test, the static data and the first map, the API with that map",
    async () => {
      const blocks = sequence();
      expect(blocks.length).toBeGreaterThanOrEqual(4);
      const settings = blocks[0]!;
      const set = [...settings.matchAll(/(?:^export\s+|\s)([A-Z_]+)=/gm)].map((m) => m[1]!);
      expect(set.sort(), 'the variables the settings block sets').toEqual([...SETTINGS].sort());
      const installs = blocks.filter((b) => b.includes('helm upgrade --install'));
      expect(installs).toHaveLength(1);
      installBlock = installs[0]!;

      sql('postgres', `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
      sql('postgres', `CREATE DATABASE ${DB}`);
      const { repository, tag } = imageParts(IMAGE);
      env = {
        PATH: `${path.dirname(KUBECTL)}:${path.dirname(HELM)}:${process.env.PATH}`,
        HOME: process.env.HOME ?? '/root',
        KUBECONFIG,
        NAMESPACE: NS,
        IMAGE_REPOSITORY: repository,
        IMAGE_TAG: tag,
        DATABASE_URL: `postgres://postgres@${NODE_IP}:15432/${DB}`,
        REDIS_URL: `redis://${NODE_IP}:16379`,
        REDIS_KEY_PREFIX: KEY_PREFIX,
        ADMIN_TOKEN,
        LOCAL_PORT: String(await freePort()),
      };
      const run = await bash(blocks.slice(1).join('\n'));
      expect(run.code, run.out).toBe(0);

      // helm test passed (its pod deleted on success), after the migrations hook.
      expect(run.out).toMatch(/TEST SUITE:\s+mapintel-test[\s\S]*?Phase:\s+Succeeded/);
      expect((await kubectl(['-n', NS, 'get', 'pods', '-o', 'name'])).split('\n')).not.toContain('pod/mapintel-test');
      const completed = await kubectlJson<{ items: any[] }>(['-n', NS, 'get', 'events', '--field-selector', 'involvedObject.kind=Job,reason=Completed']);
      expect(completed.items.map((e) => e.involvedObject.name)).toContain('mapintel-migrate');
      expect(await revisions()).toEqual(['1 deployed']);
      // The generated key: 32 bytes, kept in the Secret.
      expect(Buffer.from(await keptKey(), 'base64')).toHaveLength(32);

      // The map's key as the block printed it; the POST added Jita (static data) and the GET lists it.
      mapKey = /^the map's first key \(shown once, keep it\): (mik_[A-Za-z0-9_-]{43})$/m.exec(run.out)?.[1] ?? '';
      expect(mapKey, run.out).not.toBe('');
      // The GET's answer, as curl printed it: the map's one system.
      const listed = run.out.split('\n').find((l) => l.startsWith('{"data":['));
      expect(listed, run.out).toBeDefined();
      expect((JSON.parse(listed!) as { data: { solar_system_id: number }[] }).data.map((s) => s.solar_system_id)).toEqual([30000142]);
      const systems = await api('GET', '/api/map/systems?slug=chain', mapKey);
      expect(systems.status).toBe(200);
      expect(systems.json.data.map((s: { solar_system_id: number }) => s.solar_system_id)).toEqual([30000142]);
    },
    1_200_000,
  );

  check(
    'I2. the documented command again is an upgrade that keeps the encryption key: a stored ACL key reads back after the api pods restart',
    async () => {
      const created = await api('POST', '/api/map/acls?slug=chain', mapKey, { acl: { name: 'Install check', owner_eve_id: '2117000001' } });
      expect(created.status, JSON.stringify(created.json)).toBe(200);
      acl = { id: created.json.data.id, key: created.json.data.api_key };
      const key = await keptKey();

      const run = await bash(installBlock);
      expect(run.code, run.out).toBe(0);
      expect(run.out).toMatch(/TEST SUITE:\s+mapintel-test[\s\S]*?Phase:\s+Succeeded/);
      expect(await revisions()).toEqual(['1 superseded', '2 deployed']);
      expect(await keptKey()).toBe(key);

      // New api pods read the Secret afresh: the ACL's key, stored encrypted, decrypts as before.
      await kubectl(['-n', NS, 'rollout', 'restart', 'deployment/mapintel-api']);
      await kubectl(['-n', NS, 'rollout', 'status', 'deployment/mapintel-api', '--timeout=300s'], { timeoutMs: 320_000 });
      const read = await until('the ACL read through a restarted api pod', 60_000, async () => {
        const r = await api('GET', `/api/acls/${acl.id}`, acl.key);
        return r.status === 200 && r;
      });
      expect(read.json.data.api_key).toBe(acl.key);
      expect((await api('GET', '/api/map/systems?slug=chain', mapKey)).status).toBe(200);
    },
    900_000,
  );

  check(
    'I3. the documented command with another secrets.encryptionKey is refused, nothing changed; with secrets.allowKeyChange=true a server dry run accepts it',
    async () => {
      const key = await keptKey();
      const other = Buffer.alloc(32, 7).toString('base64');
      // The helm command of the block (its continuation lines), one value more.
      const lines = installBlock.split('\n');
      const first = lines.findIndex((l) => l.startsWith('helm upgrade --install'));
      let last = first;
      while (lines[last]!.endsWith('\\')) last++;
      const command = lines.slice(first, last + 1).join('\n');

      const refused = await bash(`${command} --set secrets.encryptionKey=${other}`);
      expect(refused.code).not.toBe(0);
      expect(refused.out).toContain('secrets.encryptionKey differs from the key Secret mapintel-env keeps');
      expect(await revisions()).toEqual(['1 superseded', '2 deployed']);
      expect(await keptKey()).toBe(key);
      expect((await api('GET', `/api/acls/${acl.id}`, acl.key)).json.data.api_key).toBe(acl.key);

      const allowed = await bash(`${command} --set secrets.encryptionKey=${other} --set secrets.allowKeyChange=true --dry-run=server`);
      expect(allowed.code, allowed.out).toBe(0);
      expect(allowed.out).toContain(`SERVICE_ENCRYPTION_KEY: "${other}"`);
      expect(await revisions()).toEqual(['1 superseded', '2 deployed']);
      expect(await keptKey()).toBe(key);
    },
    600_000,
  );

  check(
    'I4. helm uninstall and the namespace deleted: nothing of the release left',
    async () => {
      await removeAll();
      expect((await kubectl(['get', 'namespace', NS, '--ignore-not-found', '-o', 'name'])).trim()).toBe('');
      const cluster = await kubectl(['get', 'clusterroles,clusterrolebindings', '-l', 'app.kubernetes.io/instance=mapintel', '-o', 'name']);
      expect(cluster.trim()).toBe('');
    },
    600_000,
  );
});
