import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestServer, type TestServer } from '../support/app.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { checkEnvelope, takeCatalogViolations } from '../support/event-catalog.js';

describe('GET /api/events/catalog', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({});
  });
  afterAll(async () => s?.close());

  it('answers every event type with a description and a JSON Schema 2020-12 of its payload, without a token', async () => {
    const res = await s.fetch('/api/events/catalog');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { type: string; description: string; schema: Record<string, unknown> }[] };
    expect(body.data.map((e) => e.type)).toEqual([...EVENT_TYPES, 'ping']);
    const ajv = new Ajv2020({ strict: false });
    for (const e of body.data) {
      expect(Object.keys(e)).toEqual(['type', 'description', 'schema']);
      expect(e.description.length).toBeGreaterThan(10);
      expect(e.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(e.schema.type).toBe('object');
      expect(() => ajv.compile(e.schema)).not.toThrow();
    }
    const kill = body.data.find((e) => e.type === 'map_kill')!.schema as { required: string[] };
    expect(kill.required).toEqual(['killmail_id', 'system_name', 'solar_system_id', 'kill_time', 'victim', 'value']);
  });

  it('is what the suites check emitted payloads against: a payload off the catalog, or a type missing from it, is a violation', () => {
    const mapId = '00000000-0000-4000-8000-000000000001';
    checkEnvelope({ id: '01J', type: 'signature_removed', map_id: mapId, ts: '', payload: { solar_system_id: 31000005, signature_id: 'ABC-123' } }, 'ok');
    expect(takeCatalogViolations()).toEqual([]);
    checkEnvelope(
      { id: '01J', type: 'signature_removed', map_id: mapId, ts: '', payload: { solar_system_id: '31000005', signature_id: 'ABC-123' } },
      'wrong type',
    );
    checkEnvelope({ id: '01J', type: 'signature_removed', map_id: mapId, ts: '', payload: { solar_system_id: 1, signature_id: 'A', extra: 1 } }, 'extra');
    checkEnvelope({ id: '01J', type: 'wormhole_collapsed', map_id: mapId, ts: '', payload: {} }, 'unknown type');
    const found = takeCatalogViolations();
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/^wrong type: signature_removed payload does not match the catalog: .*solar_system_id must be integer/);
    expect(found[1]).toMatch(/^extra: .*must NOT have additional properties/);
    expect(found[2]).toMatch(/^unknown type: event type "wormhole_collapsed" is not in the event catalog/);
  });
});
