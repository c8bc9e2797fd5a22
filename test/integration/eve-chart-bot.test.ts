/**
 * guarzo/eve-chart-bot's real MapClient (test/fixtures/eve-chart-bot/README.md), unmodified, against
 * the service: its zod schemas want integer corporation_id/alliance_id, so with a key of the default
 * `spec` profile both of its calls reject, and with a `reference`-profile key both return the map's data.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeCharacter, makeMap } from '../support/factories.js';

const COMMIT = 'c19733fe1b39f605e61397273a4dfc0433c71ffa';
const UPSTREAM_FILES = [
  'LICENSE',
  'bot/src/infrastructure/http/MapClient.ts',
  'bot/src/shared/http/TypeSafeHttpClient.ts',
  'bot/src/shared/schemas/api-responses.ts',
  'bot/src/shared/errors/BaseError.ts',
  'bot/src/shared/errors/ValidationError.ts',
  'bot/src/shared/errors/ExternalServiceError.ts',
];
const ROOT = path.resolve(import.meta.dirname, '../..');
// The upstream repository's git directory, named by EVE_CHART_BOT_GIT (test/fixtures/eve-chart-bot/README.md,
// docs/development.md); without it the tests are reported as skipped, never as passed.
const GIT_DIR = process.env.EVE_CHART_BOT_GIT ?? '';
const available = GIT_DIR !== '' && existsSync(GIT_DIR);
if (!available) {
  console.warn(
    GIT_DIR === ''
      ? '!!!! eve-chart-bot test SKIPPED: EVE_CHART_BOT_GIT is not set (the git directory of a clone of guarzo/eve-chart-bot)'
      : `!!!! eve-chart-bot test SKIPPED: EVE_CHART_BOT_GIT=${GIT_DIR} is no git directory`,
  );
}

interface MapClientLike {
  getCharacterActivity(slug: string, days?: number): Promise<{ data: Record<string, unknown>[] }>;
  getUserCharacters(slug: string): Promise<{ data: { main_character_eve_id: string | null; characters: Record<string, unknown>[] }[] }>;
}
type MapClientClass = new (baseUrl: string, apiKey: string) => MapClientLike;

/** The upstream files at COMMIT, byte for byte, with our shims beside them; the MapClient class. */
async function loadMapClient(): Promise<MapClientClass> {
  const dir = path.join(ROOT, '.cache/eve-chart-bot', COMMIT);
  for (const file of UPSTREAM_FILES) {
    const bytes = execFileSync('git', ['--git-dir', GIT_DIR, 'show', `${COMMIT}:${file}`], { maxBuffer: 16 << 20 });
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), bytes);
  }
  cpSync(path.join(ROOT, 'test/fixtures/eve-chart-bot/shims'), dir, { recursive: true });
  const mod = (await import(path.join(dir, 'bot/src/infrastructure/http/MapClient.ts'))) as { MapClient: MapClientClass };
  return mod.MapClient;
}

describe.skipIf(!available)("eve-chart-bot's MapClient, unmodified", () => {
  let t: TestServer;
  let MapClient: MapClientClass;
  let slug: string;
  let specKey: string;
  let refKey: string;
  const eve = { main: '', alt: '', loner: '' };

  beforeAll(async () => {
    MapClient = await loadMapClient();
    t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false' } });
    const p = t.platform;
    const made = await makeMap(p);
    slug = made.map.slug;
    specKey = made.key;
    const user = await p.admin.createUser('Chart Pilot');
    const main = await makeCharacter(p, { name: 'Chart Main', user_id: user.id, corporation_id: '98000123', alliance_id: '99000456', alliance_ticker: 'ALLY' });
    const alt = await makeCharacter(p, { name: 'Chart Alt', user_id: user.id, corporation_id: '98000123', alliance_id: '99000456', alliance_ticker: 'ALLY' });
    await p.admin.setMainCharacter(user.id, main.eve_id);
    const loner = await makeCharacter(p, {
      name: 'Chart Loner',
      user_id: (await p.admin.createUser('Loner')).id,
      corporation_id: '1000167',
      alliance_id: null,
      alliance_ticker: null,
    });
    Object.assign(eve, { main: main.eve_id, alt: alt.eve_id, loner: loner.eve_id });
    for (const c of [main, alt, loner]) await p.admin.setTracking(made.map.id, c.eve_id, true);
    await p.mapContent.recordActivity(made.map.id, { characterEveId: main.eve_id, passages: 3, connections: 2, signatures: 5, at: new Date() });
    await p.mapContent.recordActivity(made.map.id, { characterEveId: alt.eve_id, passages: 1, connections: 0, signatures: 1, at: new Date() });
    await p.mapContent.recordActivity(made.map.id, { characterEveId: loner.eve_id, passages: 4, connections: 1, signatures: 0, at: new Date() });
    const issued = await p.admin.issueKey(made.map.id, { character_eve_id: made.ownerEveId, name: 'eve-chart-bot', profile: 'reference' });
    refKey = issued.api_key;
  });
  afterAll(async () => t?.close());

  it('rejects both calls with a spec-profile key: the answers do not match its schemas', async () => {
    const client = new MapClient(t.url, specKey);
    await expect(client.getCharacterActivity(slug, 7)).rejects.toThrow(/Validation failed: Expected number, received string/);
    await expect(client.getUserCharacters(slug)).rejects.toThrow(/Validation failed: Expected number, received string/);
  });

  it('passes both calls with a reference-profile key and returns the map data', async () => {
    const client = new MapClient(t.url, refKey);
    const activity = await client.getCharacterActivity(slug, 7);
    const byEveId = Object.fromEntries(activity.data.map((a) => [(a.character as { eve_id: string }).eve_id, a]));
    // One entry per user (the main character stands for it), the user's counters summed.
    expect(Object.keys(byEveId).sort()).toEqual([eve.main, eve.loner].sort());
    expect(byEveId[eve.main]).toMatchObject({
      passages: 4,
      connections: 2,
      signatures: 6,
      character: { name: 'Chart Main', corporation_id: 98000123, corporation_ticker: 'CORP', alliance_id: 99000456, alliance_ticker: 'ALLY' },
    });
    expect(byEveId[eve.loner]).toMatchObject({ passages: 4, connections: 1, signatures: 0, character: { corporation_id: 1000167, alliance_id: null } });
    expect(typeof byEveId[eve.main]!.timestamp).toBe('string');

    const users = await client.getUserCharacters(slug);
    const groups = users.data
      .map((g) => [g.main_character_eve_id, g.characters.map((c) => c.eve_id).sort()])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(groups).toEqual(
      [
        [eve.main, [eve.main, eve.alt].sort()],
        [null, [eve.loner]],
      ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    );
    for (const c of users.data.flatMap((g) => g.characters)) expect(typeof c.corporation_id).toBe('number');
  });
});
