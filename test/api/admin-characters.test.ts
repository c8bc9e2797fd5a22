/** Admin API (decisions §2): characters (upsert by eve_id, user links) and a user's main character. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import {
  ADMIN_CHARACTER_FIELDS,
  type AdminCharacter,
  adminClient,
  CHARACTER_FIELDS,
  type ErrorBody,
  eveId,
  startAdminServer,
  type User,
  USER_FIELDS,
  UUID,
} from '../support/admin.js';

describe('admin API (decisions §2)', () => {
  let t: TestServer;
  let mapKey: string;
  const { send, admin, data, createUser, upsert, newCharacter, createMap } = adminClient(() => t);

  beforeAll(async () => {
    ({ t, mapKey } = await startAdminServer());
  });
  afterAll(async () => t?.close());

  describe('characters', () => {
    it('creates a character by eve_id with exactly the admin character fields', async () => {
      const id = eveId();
      const ch = await upsert({
        eve_id: id,
        name: 'Cara',
        corporation_id: '98000010',
        corporation_ticker: 'CRP',
        alliance_id: '99000010',
        alliance_ticker: 'ALY',
      });
      expect(Object.keys(ch).sort()).toEqual(ADMIN_CHARACTER_FIELDS);
      expect(ch.id).toMatch(UUID);
      expect(ch).toMatchObject({
        eve_id: id,
        name: 'Cara',
        corporation_id: '98000010',
        corporation_ticker: 'CRP',
        alliance_id: '99000010',
        alliance_ticker: 'ALY',
        user_id: null,
      });
    });

    it('updates the character on a second PUT with the same eve_id, keeping its record id', async () => {
      const id = eveId();
      const user = await createUser('Owner of Dana');
      const first = await upsert({ eve_id: id, name: 'Dana', corporation_id: '98000011', corporation_ticker: 'OLD', user_id: user.id });
      const second = await upsert({
        eve_id: id,
        name: 'Dana Renamed',
        corporation_id: '98000012',
        corporation_ticker: 'NEW',
        alliance_id: '99000012',
        alliance_ticker: 'AL',
      });
      expect(second.id).toBe(first.id);
      expect(second).toEqual({
        id: first.id,
        user_id: user.id,
        eve_id: id,
        name: 'Dana Renamed',
        corporation_id: '98000012',
        corporation_ticker: 'NEW',
        alliance_id: '99000012',
        alliance_ticker: 'AL',
      });
      const list = await data<AdminCharacter[]>(await admin('GET', '/api/admin/characters'));
      expect(list.filter((c) => c.eve_id === id)).toEqual([second]);
      const pub = await data<Record<string, unknown>[]>(await send('GET', '/api/characters', mapKey));
      expect(pub.filter((c) => c.eve_id === id)).toEqual([
        { eve_id: id, name: 'Dana Renamed', corporation_id: '98000012', corporation_ticker: 'NEW', alliance_id: '99000012', alliance_ticker: 'AL' },
      ]);
    });

    it('detaches the character from its user with user_id null', async () => {
      const user = await createUser('Detacher');
      const ch = await newCharacter({ user_id: user.id });
      expect(ch.user_id).toBe(user.id);
      const again = await upsert({
        eve_id: ch.eve_id,
        name: ch.name,
        corporation_id: ch.corporation_id,
        corporation_ticker: ch.corporation_ticker,
        user_id: null,
      });
      expect(again.user_id).toBeNull();
      expect((await data<User>(await admin('GET', `/api/admin/users/${user.id}`))).characters).toEqual([]);
    });

    it('lists the user characters in the user record in public form', async () => {
      const user = await createUser('Multi');
      const a = await newCharacter({ user_id: user.id, name: 'Multi A' });
      const b = await newCharacter({ user_id: user.id, name: 'Multi B' });
      const read = await data<User>(await admin('GET', `/api/admin/users/${user.id}`));
      expect(read.characters).toEqual(
        [a, b].map((c) => ({
          eve_id: c.eve_id,
          name: c.name,
          corporation_id: c.corporation_id,
          corporation_ticker: c.corporation_ticker,
          alliance_id: null,
          alliance_ticker: null,
        })),
      );
      for (const c of read.characters) expect(Object.keys(c).sort()).toEqual(CHARACTER_FIELDS);
    });

    it('answers 404 user_not_found for an unknown user_id and creates nothing', async () => {
      const id = eveId();
      const res = await admin('PUT', '/api/admin/characters', {
        eve_id: id,
        name: 'Nobody',
        corporation_id: '1',
        corporation_ticker: 'X',
        user_id: '00000000-0000-4000-8000-00000000beef',
      });
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorBody).code).toBe('user_not_found');
      const list = await data<AdminCharacter[]>(await admin('GET', '/api/admin/characters'));
      expect(list.some((c) => c.eve_id === id)).toBe(false);
    });

    it.each([
      ['a non-numeric eve_id', { eve_id: 'abc', name: 'x', corporation_id: '1', corporation_ticker: 'X' }],
      ['a missing name', { eve_id: '1', corporation_id: '1', corporation_ticker: 'X' }],
      ['a missing corporation_ticker', { eve_id: '1', name: 'x', corporation_id: '1' }],
      ['a blank name', { eve_id: '1', name: '  ', corporation_id: '1', corporation_ticker: 'X' }],
      ['a blank corporation_ticker', { eve_id: '1', name: 'x', corporation_id: '1', corporation_ticker: ' ' }],
      ['an unknown extra field', { eve_id: '1', name: 'x', corporation_id: '1', corporation_ticker: 'X', ship: 'Gila' }],
    ])('answers 400 validation_failed for %s', async (_what, body) => {
      const res = await admin('PUT', '/api/admin/characters', body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).code).toBe('validation_failed');
    });
  });

  describe('main character', () => {
    it("sets the user's main character to one of the user's characters, and clears it with null", async () => {
      const user = await createUser('Mainer');
      const ch = await newCharacter({ user_id: user.id });
      const res = await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: ch.eve_id });
      expect(res.status).toBe(200);
      const updated = await data<User>(res);
      expect(Object.keys(updated).sort()).toEqual(USER_FIELDS);
      expect(updated.main_character_eve_id).toBe(ch.eve_id);
      expect((await data<User>(await admin('GET', `/api/admin/users/${user.id}`))).main_character_eve_id).toBe(ch.eve_id);

      const cleared = await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: null });
      expect(cleared.status).toBe(200);
      expect((await data<User>(cleared)).main_character_eve_id).toBeNull();
    });

    it("answers 400 when the character is not the user's, keeping the previous main", async () => {
      const user = await createUser('Loyal');
      const own = await newCharacter({ user_id: user.id });
      expect((await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: own.eve_id })).status).toBe(200);
      const other = await createUser('Other');
      const foreign = await newCharacter({ user_id: other.id });
      const unowned = await newCharacter();
      for (const eve of [foreign.eve_id, unowned.eve_id]) {
        const res = await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: eve });
        expect(res.status).toBe(400);
        expect(((await res.json()) as ErrorBody).code).toBe('not_users_character');
      }
      expect((await data<User>(await admin('GET', `/api/admin/users/${user.id}`))).main_character_eve_id).toBe(own.eve_id);
    });

    it('answers 404 for an unknown character and for an unknown user', async () => {
      const user = await createUser('Seeker');
      const r1 = await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: eveId() });
      expect(r1.status).toBe(404);
      expect(((await r1.json()) as ErrorBody).code).toBe('character_not_found');
      const ch = await newCharacter();
      const r2 = await admin('PUT', '/api/admin/users/00000000-0000-4000-8000-00000000cafe/main-character', { eve_id: ch.eve_id });
      expect(r2.status).toBe(404);
      expect(((await r2.json()) as ErrorBody).code).toBe('user_not_found');
    });

    it('shows the main character in GET /api/map/user_characters', async () => {
      const user = await createUser('Grouped');
      const owner = await newCharacter({ user_id: user.id, name: 'Grouped Main' });
      const alt = await newCharacter({ user_id: user.id, name: 'Grouped Alt' });
      expect((await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: owner.eve_id })).status).toBe(200);
      const created = await createMap(owner.eve_id);
      for (const c of [owner, alt]) {
        expect((await admin('PUT', `/api/admin/maps/${created.map.slug}/characters/${c.eve_id}`, { tracked: true })).status).toBe(200);
      }
      const res = await send('GET', `/api/map/user_characters?slug=${created.map.slug}`, created.api_key.api_key);
      expect(res.status).toBe(200);
      const groups = await data<{ characters: { eve_id: string }[]; main_character_eve_id: string | null }[]>(res);
      expect(groups).toHaveLength(1);
      expect(groups[0]!.main_character_eve_id).toBe(owner.eve_id);
      expect(groups[0]!.characters.map((c) => c.eve_id).sort()).toEqual([owner.eve_id, alt.eve_id].sort());
    });
  });
});
