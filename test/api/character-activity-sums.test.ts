/**
 * Character activity sums are 64-bit: counters at their cap (2147483647 per character and day) over
 * several days and characters add up past 32 bits and are answered as plain JSON numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeCharacter, makeMap } from '../support/factories.js';

const CAP = 2_147_483_647;
const DAY = 86_400_000;

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false' } });
});
afterAll(async () => t?.close());

describe('GET /api/map/character-activity with counters at the cap', () => {
  it('sums counters at the cap over several days and characters of one user in 64 bits, as JSON numbers', async () => {
    const p = t.platform;
    const { map, key } = await makeMap(p);
    const user = await p.admin.createUser('Capped');
    const main = await makeCharacter(p, { name: 'Capped Main', user_id: user.id });
    const alt = await makeCharacter(p, { name: 'Capped Alt', user_id: user.id });
    await p.admin.setMainCharacter(user.id, main.eve_id);
    const loner = await makeCharacter(p, { name: 'Capped Loner' });
    const now = Date.now();
    // Three UTC days for each of the user's characters, two for the loner: every counter at the cap.
    for (const [c, days] of [
      [main, 3],
      [alt, 3],
      [loner, 2],
    ] as const) {
      for (let d = 0; d < days; d++) {
        await p.mapContent.recordActivity(map.id, {
          characterEveId: c.eve_id,
          passages: CAP,
          connections: CAP,
          signatures: CAP,
          at: new Date(now - d * DAY),
        });
      }
    }

    const res = await t.fetch(`/api/map/character-activity?map_id=${map.id}`, { token: key });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const data = (JSON.parse(text) as { data: { character: { eve_id: string }; passages: unknown; connections: unknown; signatures: unknown }[] }).data;
    expect(data.map((a) => [a.character.eve_id, a.passages, a.connections, a.signatures])).toEqual([
      [main.eve_id, 6 * CAP, 6 * CAP, 6 * CAP],
      [loner.eve_id, 2 * CAP, 2 * CAP, 2 * CAP],
    ]);
    // Numbers in the JSON text, never quoted 64-bit strings.
    expect(text).toContain(`"passages":${6 * CAP},`);

    const window = await t.fetch(`/api/map/character-activity?map_id=${map.id}&days=2`, { token: key });
    expect(window.status).toBe(200);
    const windowed = ((await window.json()) as { data: { character: { eve_id: string }; passages: number }[] }).data;
    expect(windowed.map((a) => [a.character.eve_id, a.passages])).toEqual([
      [main.eve_id, 4 * CAP],
      [loner.eve_id, 2 * CAP],
    ]);
  });
});
