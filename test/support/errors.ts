/**
 * The server of the error-surface tests (test/api/errors.test.ts, test/api/request-ids-health-metrics.test.ts):
 * the static data, a map with Jita, and an ACL of that map.
 */
import { expect } from 'vitest';
import { startTestServer } from './app.js';
import { importFixture, makeMap, makeSystem } from './factories.js';

export const JSON_CT = { 'content-type': 'application/json' };

export async function startErrorsServer() {
  const t = await startTestServer();
  await importFixture(t.platform);
  const m = await makeMap(t.platform);
  const key = m.key;
  const mapId = m.map.id;
  const ownerEveId = m.ownerEveId;
  await makeSystem(t.platform, mapId, 30000142);
  const res = await t.fetch(`/api/map/acls?map_id=${mapId}`, {
    method: 'POST',
    token: key,
    headers: JSON_CT,
    body: JSON.stringify({ acl: { name: 'Errors ACL', owner_eve_id: m.ownerEveId } }),
  });
  expect(res.status).toBe(200);
  const acl = ((await res.json()) as { data: { id: string; api_key: string } }).data;
  const aclId = acl.id;
  const aclKey = acl.api_key;
  return { t, key, mapId, aclId, aclKey, ownerEveId };
}
