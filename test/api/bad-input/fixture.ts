/**
 * The hostile-input table's fixtures: two maps, the fixture's systems, a connection, a signature, a
 * structure, a webhook and an event, an ACL with a member, a user with a character, a second map key
 * and a tracked character; their ids and keys go into the table's context.
 */
import { expect } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../../support/app.js';
import { importFixture, makeCharacter, makeMap, makeSystem } from '../../support/factories.js';
import { JSON_HEADERS } from './cases.js';
import { ON_MAP, ON_MAP_2, ON_MAP_3, SIGNATURE, type Ctx } from './table.js';

/** Writes the fixtures through `t` and fills `ctx` with what the table's entries need. */
export async function fillContext(t: TestServer, ctx: Ctx): Promise<void> {
  await importFixture(t.platform);
  const m = await makeMap(t.platform);
  const other = await makeMap(t.platform);
  Object.assign(ctx, { mapKey: m.key, mapId: m.map.id, slug: m.map.slug, otherSlug: other.map.slug, ownerEveId: m.ownerEveId });
  await makeSystem(t.platform, m.map.id, ON_MAP);
  await makeSystem(t.platform, m.map.id, ON_MAP_2);
  await makeSystem(t.platform, m.map.id, ON_MAP_3);
  const conn = await t.fetch(`/api/maps/${m.map.id}/connections`, {
    method: 'POST',
    token: m.key,
    headers: JSON_HEADERS,
    body: JSON.stringify({ solar_system_source: ON_MAP, solar_system_target: ON_MAP_2 }),
  });
  expect(conn.status).toBe(201);
  ctx.connectionId = ((await conn.json()) as { data: { id: string } }).data.id;
  const sig = await t.fetch(`/api/maps/${m.map.id}/systems/${ON_MAP}/signatures`, {
    method: 'PUT',
    token: m.key,
    headers: JSON_HEADERS,
    body: JSON.stringify({ signatures: [{ signature_id: SIGNATURE, group: 'Wormhole' }] }),
  });
  expect(sig.status).toBe(200);
  const rally = await t.fetch(`/api/maps/${m.map.id}/rally-points`, {
    method: 'POST',
    token: m.key,
    headers: JSON_HEADERS,
    body: JSON.stringify({ solar_system_id: ON_MAP, character_eve_id: m.ownerEveId, message: 'Fixture rally' }),
  });
  expect(rally.status).toBe(201);
  ctx.rallyPointId = ((await rally.json()) as { data: { id: string } }).data.id;
  ctx.signatureRecordId = ((await sig.json()) as { data: { signatures: { id: string }[] } }).data.signatures[0]!.id;
  const structure = await t.fetch(`/api/maps/${m.map.id}/structures`, {
    method: 'POST',
    token: m.key,
    headers: JSON_HEADERS,
    body: JSON.stringify({ solar_system_id: ON_MAP, structure_type_id: '35832', structure_type: 'Astrahus', name: 'Base structure' }),
  });
  expect(structure.status).toBe(201);
  ctx.structureId = ((await structure.json()) as { data: { id: string } }).data.id;
  const hook = await t.fetch(`/api/maps/${m.map.id}/webhooks`, {
    method: 'POST',
    token: m.key,
    headers: JSON_HEADERS,
    body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['*'] }),
  });
  expect(hook.status).toBe(201);
  ctx.webhookId = ((await hook.json()) as { data: { id: string } }).data.id;
  // An event of the map with its id (the relay assigns ids just after the commit).
  for (let i = 0; i < 100 && !ctx.eventId; i++) {
    ctx.eventId = ((await (await t.fetch(`/api/maps/${m.map.id}/events`, { token: m.key })).json()) as { data: { id: string }[] }).data[0]?.id as string;
    if (!ctx.eventId) await new Promise((r) => setTimeout(r, 50));
  }
  expect(ctx.eventId).toMatch(/^[0-7][0-9A-Z]{25}$/);

  const acl = await t.fetch(`/api/map/acls?map_id=${m.map.id}`, {
    method: 'POST',
    token: m.key,
    headers: JSON_HEADERS,
    body: JSON.stringify({ acl: { name: 'Base ACL', owner_eve_id: m.ownerEveId } }),
  });
  expect(acl.status).toBe(200);
  const aclBody = (await acl.json()) as { data: { id: string; api_key: string } };
  ctx.aclId = aclBody.data.id;
  ctx.aclKey = aclBody.data.api_key;

  const member = await makeCharacter(t.platform);
  ctx.memberEveId = member.eve_id;
  const add = await t.fetch(`/api/acls/${ctx.aclId}/members`, {
    method: 'POST',
    token: ctx.aclKey,
    headers: JSON_HEADERS,
    body: JSON.stringify({ member: { eve_character_id: member.eve_id, role: 'viewer' } }),
  });
  expect(add.status).toBe(200);
  ctx.freeEveId = (await makeCharacter(t.platform)).eve_id;

  const user = await t.fetch('/api/admin/users', { method: 'POST', token: ADMIN_TOKEN, headers: JSON_HEADERS, body: JSON.stringify({ name: 'Base user' }) });
  expect(user.status).toBe(201);
  ctx.userId = ((await user.json()) as { data: { id: string } }).data.id;
  ctx.userCharEveId = (await makeCharacter(t.platform, { user_id: ctx.userId })).eve_id;

  const key = await t.fetch(`/api/admin/maps/${m.map.id}/keys`, {
    method: 'POST',
    token: ADMIN_TOKEN,
    headers: JSON_HEADERS,
    body: JSON.stringify({ character_eve_id: m.ownerEveId, name: 'second' }),
  });
  expect(key.status).toBe(201);
  ctx.keyId = ((await key.json()) as { data: { id: string } }).data.id;

  const tracked = await makeCharacter(t.platform);
  ctx.trackedEveId = tracked.eve_id;
  const track = await t.fetch(`/api/admin/maps/${m.map.id}/characters/${tracked.eve_id}`, {
    method: 'PUT',
    token: ADMIN_TOKEN,
    headers: JSON_HEADERS,
    body: JSON.stringify({ tracked: true }),
  });
  expect(track.status).toBe(200);
}
