/**
 * The event stream end to end (spec 4.5, decisions §6): real server (api + stream roles), real
 * PostgreSQL and the machine's Redis, changes made through the REST API, read by a bare SSE reader
 * and by the npm `eventsource` client.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventSource } from 'eventsource';
import { ulid } from 'ulid';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem, openStream, type Frame, type SseConnection } from '../support/sse.js';
import { within } from '../support/wait.js';
import { killBody } from '../support/map-edit.js';
import type { StreamHandle } from '../../src/stream/stream.role.js';
import { capTiming } from '../../src/stream/stream-caps.js';

let t: TestServer;
let key: string;
let slug: string;
let mapId: string;
let otherSlug: string;
const open: SseConnection[] = [];

beforeAll(async () => {
  t = await startTestServer({
    redis: true,
    env: { SERVICE_SSE_ENABLED: 'true', STREAM_MAX_PER_KEY: '4', STREAM_KEEPALIVE_MS: '400', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' },
  });
  await importFixture(t.platform);
  const m = await makeMap(t.platform);
  key = m.key;
  slug = m.map.slug;
  mapId = m.map.id;
  otherSlug = (await makeMap(t.platform)).map.slug;
}, 60_000);
afterEach(async () => {
  // Every stream of a test is closed before the next, so the per-key cap starts empty.
  for (const c of open.splice(0)) c.close();
  await new Promise((r) => setTimeout(r, 200));
});
afterAll(async () => {
  await t?.close();
});

async function stream(query = '', headers: Record<string, string> = {}): Promise<SseConnection> {
  const c = await openStream(`${t.url}/api/maps/${slug}/events/stream${query}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  open.push(c);
  return c;
}

/** Adds (or re-adds) a system through the editing API: one add_system or system_metadata_changed event. */

const isEvent = (f: Frame) => f.id !== undefined;
const envelopeOf = (f: Frame) => JSON.parse(f.data!) as { id: string; type: string; map_id: string; ts: string; payload: Record<string, unknown> };

describe('GET /api/maps/{map_id}/events/stream', () => {
  it('answers 401, 404, 400 and 405 as JSON before any stream byte', async () => {
    const cases: [string, RequestInit, number, string][] = [
      [`/api/maps/${slug}/events/stream`, {}, 401, 'unauthorized'],
      [`/api/maps/${slug}/events/stream?token=mik_nope`, {}, 401, 'unauthorized'],
      [`/api/maps/${otherSlug}/events/stream`, { headers: { authorization: `Bearer ${key}` } }, 404, 'map_not_found'],
      [`/api/maps/${slug}/events/stream?last_event_id=nope`, { headers: { authorization: `Bearer ${key}` } }, 400, 'invalid_event_id'],
      [`/api/maps/${slug}/events/stream?events=map_kill,bogus`, { headers: { authorization: `Bearer ${key}` } }, 400, 'validation_failed'],
      [`/api/maps/${slug}/events/stream`, { method: 'POST', headers: { authorization: `Bearer ${key}` } }, 405, 'method_not_allowed'],
    ];
    for (const [path, init, status, code] of cases) {
      const res = await fetch(`${t.url}${path}`, init);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await res.json()) as { code: string }).code).toBe(code);
    }
  });

  it("answers 401 with the API's messages: which token it takes and what was wrong, the token parameter included", async () => {
    // An ACL key and a revoked key of a map of their own: this file's map keeps its events.
    const own = await makeMap(t.platform);
    const aclRes = await fetch(`${t.url}/api/map/acls?slug=${own.map.slug}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${own.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ acl: { name: 'Stream 401', owner_eve_id: own.ownerEveId } }),
    });
    expect(aclRes.status).toBe(200);
    const aclKey = ((await aclRes.json()) as { data: { api_key: string } }).data.api_key;
    const revoked = await t.platform.admin.issueKey(own.map.slug, { character_eve_id: own.ownerEveId });
    await t.platform.admin.revokeKey(own.map.slug, revoked.id);
    const takes = "Missing or invalid 'Bearer' token: this endpoint takes a map API key";
    const form = 'a token of 16 to 256 letters, digits and - . _ ~ + / =';
    const cases: [string, Record<string, string>, string][] = [
      ['', {}, `${takes}, and none was given`],
      ['', { authorization: 'Bearer short' }, `${takes}; the Authorization header is not 'Bearer <token>' with ${form}`],
      ['?token=mik_nope', {}, `${takes}; the token parameter is not ${form}`],
      ['', { authorization: `Bearer ${aclKey}` }, `${takes}, not an ACL API key`],
      [`?token=${aclKey}`, {}, `${takes}, not an ACL API key`],
      ['', { authorization: `Bearer ${ADMIN_TOKEN}` }, `${takes}, not the admin token`],
      ['', { authorization: `Bearer ${revoked.api_key}` }, `${takes}; the map API key given has been revoked`],
      [`?token=mik_${'0'.repeat(43)}`, {}, `${takes}; the token given is not valid`],
    ];
    for (const [query, headers, message] of cases) {
      const res = await fetch(`${t.url}/api/maps/${slug}/events/stream${query}`, { headers });
      expect(res.status, message).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.json()).toEqual({ error: message, code: 'unauthorized' });
    }
  });

  it('answers 400 for a map id that is not valid percent-encoding, as the api role does: never 5xx for bad input', async () => {
    for (const bad of ['%ZZ', '%E0%A4%A', '%C0%80', '%']) {
      const res = await fetch(`${t.url}/api/maps/${bad}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status, bad).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await res.json()) as { code: string }).code).toBe('bad_request');
      const api = await t.fetch(`/api/maps/${bad}/webhooks`, { token: key });
      expect(api.status, `api ${bad}`).toBe(400);
    }
  });

  it('opens with the SSE headers, retry and connected frames, then delivers each change as id + data', async () => {
    const c = await stream(`?token=${key}`, { authorization: '' });
    expect(c.status).toBe(200);
    expect(c.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(c.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(c.headers.get('x-accel-buffering')).toBe('no');
    const [connected] = await c.waitFor((f) => f.event === 'connected');
    expect(c.frames[0]).toEqual({ retry: '3000' });
    expect(connected!.id).toBeUndefined();
    const hello = JSON.parse(connected!.data!) as Record<string, unknown>;
    expect(Object.keys(hello).sort()).toEqual(['last_event_id', 'map_id', 'server_time']);
    expect(hello.map_id).toBe(mapId);
    await moveSystem(t, slug, key);
    const [frame] = await c.waitFor(isEvent);
    expect(frame!.event).toBeUndefined();
    const e = envelopeOf(frame!);
    expect(Object.keys(e).sort()).toEqual(['id', 'map_id', 'payload', 'ts', 'type']);
    expect(e.id).toBe(frame!.id);
    expect(e.map_id).toBe(mapId);
    expect(['add_system', 'system_metadata_changed']).toContain(e.type);
    // Each frame went out in one write.
    expect(c.raw.some((chunk) => chunk === `id: ${e.id}\ndata: ${frame!.data}\n\n`)).toBe(true);
    c.close();
  });

  it('sends only the requested types', async () => {
    const c = await stream('?events=map_kill');
    await c.waitFor((f) => f.event === 'connected');
    await moveSystem(t, slug, key);
    const res = await t.fetch(`/api/maps/${slug}/kills`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(killBody(31000005, 130_000_000 + Math.floor(Math.random() * 1e6), { kill_time: new Date().toISOString() })),
    });
    expect(res.status).toBe(200);
    const [k] = await c.waitFor(isEvent);
    expect(envelopeOf(k!).type).toBe('map_kill');
    await new Promise((r) => setTimeout(r, 300));
    expect(c.frames.filter(isEvent).map((f) => envelopeOf(f).type)).toEqual(['map_kill']);
    c.close();
  });

  it('resumes after last_event_id (query over header) in order, then live, without gap or duplicate', async () => {
    const first = await stream();
    await first.waitFor((f) => f.event === 'connected');
    for (let i = 0; i < 5; i++) await moveSystem(t, slug, key);
    const seen = (await first.waitFor(isEvent, 5)).slice(-5).map((f) => f.id!);
    first.close();
    const resumed = await stream(`?last_event_id=${seen[1]}`, { 'last-event-id': seen[3]! });
    await moveSystem(t, slug, key);
    const frames = await resumed.waitFor(isEvent, 4);
    const ids = frames.map((f) => f.id!);
    expect(ids.slice(0, 3)).toEqual(seen.slice(2));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    resumed.close();
  });

  it('sends a reset, then live events, to a last_event_id after the map’s newest event (not one the map has sent)', async () => {
    // The map has an event (seen on a stream, so it is in the event log).
    const first = await stream();
    await first.waitFor((f) => f.event === 'connected');
    await moveSystem(t, slug, key);
    await first.waitFor(isEvent);
    first.close();
    // An id from an hour ahead: a client of another map, or of a clock that ran ahead.
    const ahead = ulid(Date.now() + 3_600_000);
    const c = await stream(`?last_event_id=${ahead}`);
    const [reset] = await c.waitFor((f) => f.event === 'reset');
    const body = JSON.parse(reset!.data!) as { reason: string; earliest_event_id: string | null };
    expect(body.reason).toBe('unknown_event_id');
    expect(body.earliest_event_id).not.toBeNull();
    await moveSystem(t, slug, key);
    const [e] = await c.waitFor(isEvent, 1, 20_000);
    expect(e!.id! < ahead).toBe(true);
    expect(c.frames.filter(isEvent).length).toBe(1);
    c.close();
  });

  it('sends keepalive comments on a quiet stream', async () => {
    const c = await stream();
    await c.waitFor((f) => f.comment === 'keepalive', 1, 15_000);
    c.close();
  });

  it('caps connections per key: the next one is 429 key_stream_limit with Retry-After, and a freed slot admits again', async () => {
    const held: SseConnection[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await stream();
      await c.waitFor((f) => f.event === 'connected');
      held.push(c);
    }
    const over = await fetch(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
    expect(over.status).toBe(429);
    // A renewal period of the caps (about when a slot may come back), in whole seconds.
    expect(over.headers.get('retry-after')).toBe(String(Math.ceil(capTiming(t.config.streamLeaseMs).renewMs / 1000)));
    expect(await over.json()).toEqual({ error: 'Too many stream connections for this API key', code: 'key_stream_limit' });
    held[0]!.close();
    await new Promise((r) => setTimeout(r, 300));
    const again = await stream();
    expect(again.status).toBe(200);
    for (const c of [...held, again]) c.close();
    await new Promise((r) => setTimeout(r, 300));
  });

  it('closes the streams of a revoked key (within 5 s on a quiet machine)', async () => {
    const issued = await t.platform.admin.issueKey(slug, { character_eve_id: (await t.platform.admin.getMap(slug)).owner_eve_id });
    const c = await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${issued.api_key}` } });
    open.push(c);
    await c.waitFor((f) => f.event === 'connected');
    await t.platform.admin.revokeKey(slug, issued.id);
    // The sweep runs every few seconds; a busy machine may add some, but never an open-ended wait.
    await within(c.ended, 15_000, 'the revoked key’s stream closed');
    const metrics = await (await fetch(`${t.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^mapintel_stream_server_closes_total\{reason="revoked"\} 1$/m);
  });

  it('closes only the streams of the revoked key; the streams of other keys of the map go on', async () => {
    const owner = (await t.platform.admin.getMap(slug)).owner_eve_id;
    const revoked = await t.platform.admin.issueKey(slug, { character_eve_id: owner });
    const kept = await t.platform.admin.issueKey(slug, { character_eve_id: owner });
    const a = await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${revoked.api_key}` } });
    const b = await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${kept.api_key}` } });
    open.push(a, b);
    await a.waitFor((f) => f.event === 'connected');
    await b.waitFor((f) => f.event === 'connected');
    await t.platform.admin.revokeKey(slug, revoked.id);
    await a.ended;
    // Two more sweeps pass: the other key's stream still receives events.
    await new Promise((r) => setTimeout(r, 4_500));
    await moveSystem(t, slug, key);
    const [frame] = await b.waitFor(isEvent);
    expect(envelopeOf(frame!).map_id).toBe(mapId);
  }, 20_000);

  it('serves the npm eventsource client through onmessage, which resumes after a forced disconnect with nothing lost or repeated', async () => {
    const received: string[] = [];
    const es = new EventSource(`${t.url}/api/maps/${slug}/events/stream?token=${key}`);
    es.onmessage = (m) => received.push(m.lastEventId);
    await new Promise<void>((resolve, reject) => {
      es.addEventListener('connected', () => resolve());
      es.onerror = () => undefined;
      setTimeout(() => reject(new Error('no connected event')), 20_000);
    });
    for (let i = 0; i < 3; i++) await moveSystem(t, slug, key);
    const deadline = Date.now() + 10_000;
    while (received.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // The server drops every stream connection; the client reconnects with Last-Event-ID.
    const streamRole = t.server.roles.get('stream') as StreamHandle;
    for (const s of streamRole.service.open) s.close('shutdown');
    for (let i = 0; i < 3; i++) await moveSystem(t, slug, key);
    while (received.length < 6 && Date.now() < deadline + 10_000) await new Promise((r) => setTimeout(r, 20));
    es.close();
    expect(received.length).toBe(6);
    expect(new Set(received).size).toBe(6);
    expect([...received].sort()).toEqual(received);
  }, 30_000);
});

describe('the reference-client stream profile of a key', () => {
  it('is chosen when the key is issued (admin API) and adds an event line and a timestamp to each event', async () => {
    const owner = (await t.platform.admin.getMap(slug)).owner_eve_id;
    const res = await t.fetch(`/api/admin/maps/${slug}/keys`, {
      method: 'POST',
      token: ADMIN_TOKEN,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ character_eve_id: owner, stream_profile: 'reference' }),
    });
    expect(res.status).toBe(201);
    const issued = ((await res.json()) as { data: { api_key: string; stream_profile: string } }).data;
    expect(issued.stream_profile).toBe('reference');
    const bad = await t.fetch(`/api/admin/maps/${slug}/keys`, {
      method: 'POST',
      token: ADMIN_TOKEN,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ character_eve_id: owner, stream_profile: 'legacy' }),
    });
    expect(bad.status).toBe(400);

    const ref = await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${issued.api_key}` } });
    const spec = await stream();
    open.push(ref);
    await Promise.all([ref.waitFor((f) => f.event === 'connected'), spec.waitFor((f) => f.event === 'connected')]);
    await moveSystem(t, slug, key);
    const [r] = await ref.waitFor(isEvent);
    const [s] = await spec.waitFor(isEvent);
    expect(r!.id).toBe(s!.id);
    const e = envelopeOf(r!) as ReturnType<typeof envelopeOf> & { timestamp: string };
    expect(r!.event).toBe(e.type);
    expect(e.timestamp).toBe(e.ts);
    expect(s!.event).toBeUndefined();
    expect(envelopeOf(s!)).not.toHaveProperty('timestamp');
  });
});
