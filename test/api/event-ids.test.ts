/**
 * Event ids are ULIDs: 26 Crockford base32 characters whose first is 0–7 (48-bit time). `after` of the
 * event log refuses anything outside that range with 400 invalid_event_id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';

let t: TestServer;
let key: string;
let mapId: string;

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false' } });
  const m = await makeMap(t.platform);
  key = m.key;
  mapId = m.map.id as string;
});
afterAll(async () => t?.close());

describe('GET /api/maps/{map_id}/events after=', () => {
  it.each(['8ZZZZZZZZZZZZZZZZZZZZZZZZZ', '80000000000000000000000000', 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ', 'z0000000000000000000000000'])(
    'answers 400 invalid_event_id naming after for %s (first character above 7)',
    async (id) => {
      const res = await t.fetch(`/api/maps/${mapId}/events?after=${id}`, { token: key });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: '`after` must be an event id (ULID)',
        code: 'invalid_event_id',
        details: [{ field: 'after', message: 'must be a ULID' }],
      });
    },
  );

  it.each(['7ZZZZZZZZZZZZZZZZZZZZZZZZZ', '00000000000000000000000000', '01jcz7y8zk8q4r2t6v9w3x5y7a'])(
    'accepts %s, the edges of the ULID range and lower case',
    async (id) => {
      const res = await t.fetch(`/api/maps/${mapId}/events?after=${id}`, { token: key });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: [], next_after: null });
    },
  );
});
