/**
 * The command line as a user meets it: `node dist/cli.js …` as a child process against the machine's
 * PostgreSQL (a schema of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { TEST_DATABASE_URL, uniqueName } from '../support/db.js';
import { CLI, runCli } from '../support/cli-process.js';
import { nodeVersionProblem } from '../../src/cli/node-version.js';

const schema = uniqueName('cli').toLowerCase();
const env = {
  DATABASE_URL: TEST_DATABASE_URL,
  DATABASE_SCHEMA: schema,
  SERVICE_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
};

/** Runs a command that must succeed and answers its JSON output. */
function json<T>(args: string[]): T {
  const r = runCli(args, env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

beforeAll(() => {
  expect(runCli(['migrate'], env).status).toBe(0);
});

async function sql(text: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});

describe('mapintel admin', () => {
  it('links characters to the user create-user printed with upsert-character --user-id, keeps the link without it, unlinks with --no-user-id', () => {
    const user = json<{ id: string; characters: unknown[] }>(['admin', 'create-user', '--name', 'Pilot']);
    expect(user.characters).toEqual([]);
    const character = ['admin', 'upsert-character', '--name', 'Ava', '--corporation-id', '98000001', '--corporation-ticker', 'MAPIN'];
    const ava = json<{ user_id: string | null }>([...character, '--eve-id', '2117000001', '--user-id', user.id]);
    expect(ava.user_id).toBe(user.id);
    json([...character, '--eve-id', '2117000002', '--user-id', user.id, '--name', 'Bo']);
    const main = json<{ main_character_eve_id: string | null }>(['admin', 'set-main-character', '--user-id', user.id, '--eve-id', '2117000001']);
    expect(main.main_character_eve_id).toBe('2117000001');

    const listed = json<{ id: string; main_character_eve_id: string; characters: { eve_id: string; name: string }[] }[]>(['admin', 'list-users']);
    expect(listed).toHaveLength(1);
    expect(listed[0]!.main_character_eve_id).toBe('2117000001');
    expect(listed[0]!.characters.map((c) => [c.eve_id, c.name]).sort()).toEqual([
      ['2117000001', 'Ava'],
      ['2117000002', 'Bo'],
    ]);

    // An update without --user-id keeps the link; --no-user-id drops it, as user_id null does in the admin API.
    expect(json<{ user_id: string | null }>([...character, '--eve-id', '2117000002', '--corporation-ticker', 'NEW']).user_id).toBe(user.id);
    expect(json<{ user_id: string | null }>([...character, '--eve-id', '2117000002', '--no-user-id']).user_id).toBeNull();
    expect(json<{ characters: { eve_id: string }[] }[]>(['admin', 'list-users'])[0]!.characters.map((c) => c.eve_id)).toEqual(['2117000001']);
  }, 60_000);

  it('refuses a --user-id that names no user and creates no character', async () => {
    const r = runCli(
      [
        'admin',
        'upsert-character',
        '--eve-id',
        '2117000009',
        '--name',
        'Cy',
        '--corporation-id',
        '98000002',
        '--corporation-ticker',
        'HUNT',
        '--user-id',
        '00000000-0000-4000-8000-00000000beef',
      ],
      env,
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toBe('error: User not found\n');
    expect(await sql(`select 1 from "${schema}".characters where eve_id = '2117000009'`)).toEqual([]);
  });
});

describe('mapintel admin issue-key --profile', () => {
  it('issues keys of either profile (--profile, or --stream-profile under its former name) that list-keys shows, and refuses an unknown one', () => {
    json(['admin', 'upsert-character', '--eve-id', '2117000077', '--name', 'Keyholder', '--corporation-id', '98000001', '--corporation-ticker', 'MAPIN']);
    json(['admin', 'create-map', '--slug', 'profiles', '--name', 'Profiles', '--owner-eve-id', '2117000077']);
    const issue = (...extra: string[]) =>
      json<{ id: string; profile: string; stream_profile: string }>(['admin', 'issue-key', '--map', 'profiles', '--character-eve-id', '2117000077', ...extra]);
    const reference = issue('--profile', 'reference');
    const former = issue('--stream-profile', 'reference');
    const plain = issue();
    expect([reference, former, plain].map((k) => [k.profile, k.stream_profile])).toEqual([
      ['reference', 'reference'],
      ['reference', 'reference'],
      ['spec', 'spec'],
    ]);
    const listed = json<{ id: string; profile: string }[]>(['admin', 'list-keys', '--map', 'profiles']);
    expect(Object.fromEntries(listed.map((k) => [k.id, k.profile]))).toMatchObject({
      [reference.id]: 'reference',
      [former.id]: 'reference',
      [plain.id]: 'spec',
    });

    const unknown = runCli(['admin', 'issue-key', '--map', 'profiles', '--character-eve-id', '2117000077', '--profile', 'legacy'], env);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/--profile <profile>' argument 'legacy' is invalid/);
    const disagree = runCli(
      ['admin', 'issue-key', '--map', 'profiles', '--character-eve-id', '2117000077', '--profile', 'spec', '--stream-profile', 'reference'],
      env,
    );
    expect(disagree.status).toBe(1);
    expect(json<unknown[]>(['admin', 'list-keys', '--map', 'profiles'])).toHaveLength(4);
  }, 60_000);
});

describe('mistyped options', () => {
  it('names an unknown option and suggests the one meant, even when a required option is missing because of it', () => {
    for (const args of [
      ['admin', 'list-keys', '--mpa', 'demo'],
      ['admin', 'list-keys', '--mpa'],
      ['admin', 'list-keys', '--map', 'demo', '--mpa', 'x'],
    ]) {
      const r = runCli(args, env);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(/^error: unknown option '--mpa'\n\(Did you mean --map\?\)\n/);
      expect(r.stderr).not.toContain('required option');
    }
  });

  it('still names a required option that is missing', () => {
    const r = runCli(['admin', 'list-keys'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: required option '--map <id\|slug>' not specified\n/);
    expect(r.stderr).toContain('Usage: mapintel admin list-keys');
  });
});

/** The machine's own Node, when it is older than mapintel needs (this machine's /usr/bin/node is 20). */
const oldNode = ((): string | undefined => {
  const node = '/usr/bin/node';
  if (!existsSync(node)) return undefined;
  const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
  return version && nodeVersionProblem(version, node) ? node : undefined;
})();

describe('an older Node.js', () => {
  it.skipIf(!oldNode)('says in one line which Node.js mapintel needs, which one it found and that make provisions it, and exits 1', () => {
    for (const args of [['--help'], ['serve'], ['admin', 'list-users']]) {
      const r = spawnSync(oldNode!, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      const version = spawnSync(oldNode!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
      expect(r.stderr).toBe(`${nodeVersionProblem(version, oldNode!)}\n`);
      expect(r.stderr).toContain('error: mapintel needs Node.js 22.17 or newer');
      expect(r.stderr).toContain(`/usr/bin/node is Node.js ${version};`);
      expect(r.stderr).toContain('`make build` provisions Node 24 into .node/');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
