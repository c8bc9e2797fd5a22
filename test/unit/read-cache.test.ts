import { describe, expect, it } from 'vitest';
import { etagOf, MapReadCache, matchesIfNoneMatch } from '../../src/maps/map-read/read-cache.js';
import { jsonChunks } from '../../src/maps/map-read/json-chunks.js';

const entry = (version: string, body: string, expiresAt = Infinity) => ({ version, expiresAt, eventId: '0', ...jsonChunks(JSON.parse(body)) });
const text = (e: { chunks: Buffer[] } | undefined) => (e ? Buffer.concat(e.chunks).toString() : undefined);

describe('map read cache', () => {
  it('serves an entry only at the version it was computed at and before it expires; a stale entry is dropped', () => {
    const cache = new MapReadCache(1024 * 1024);
    cache.set('k', entry('1.1.A', '{"data":[]}', 2_000));
    expect(text(cache.get('k', '1.1.A', 1_000))).toBe('{"data":[]}');
    expect(cache.get('k', '1.1.A', 2_000)).toBeUndefined();
    expect(cache.get('k', '1.1.A', 1_000)).toBeUndefined();
    cache.set('k', entry('1.1.A', '{"data":[1]}'));
    expect(cache.get('k', '2.1.A')).toBeUndefined();
    expect(cache.get('k', '1.1.A')).toBeUndefined();
  });

  it('keeps its bytes within the budget, least recently used out first, and refuses nothing it cannot hold silently', () => {
    const cache = new MapReadCache(3_000);
    cache.set('a', entry('v', JSON.stringify('a'.repeat(1_000))));
    cache.set('b', entry('v', JSON.stringify('b'.repeat(1_000))));
    expect(cache.get('a', 'v')).toBeDefined();
    cache.set('c', entry('v', JSON.stringify('c'.repeat(1_000))));
    expect(cache.get('b', 'v')).toBeUndefined();
    expect(cache.get('a', 'v')).toBeDefined();
    expect(cache.get('c', 'v')).toBeDefined();
    expect(cache.size).toBeLessThanOrEqual(3_000);
    cache.set('huge', entry('v', JSON.stringify('x'.repeat(10_000))));
    expect(cache.get('huge', 'v')).toBeUndefined();
  });

  it('holds nothing with a budget of 0', () => {
    const cache = new MapReadCache(0);
    cache.set('k', entry('v', '{}'));
    expect(cache.get('k', 'v')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe('ETags', () => {
  it('are strong, quoted, and equal exactly for equal bytes', () => {
    const a = etagOf(Buffer.from('{"data":[1]}'));
    expect(a).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(etagOf(Buffer.from('{"data":[1]}'))).toBe(a);
    expect(etagOf(Buffer.from('{"data":[2]}'))).not.toBe(a);
  });

  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    [' "x" ,W/"abc" ', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['', false],
  ])('If-None-Match %j names "abc": %s', (header, expected) => {
    expect(matchesIfNoneMatch(header, '"abc"')).toBe(expected);
  });

  it('is no match without the header', () => {
    expect(matchesIfNoneMatch(undefined, '"abc"')).toBe(false);
  });
});

describe('JSON in chunks', () => {
  const cases: [string, unknown][] = [
    ['an empty object', {}],
    ['empty arrays and nulls', { data: [], next: null, list: [null, undefined, 1] }],
    ['fields JSON leaves out', { a: undefined, b: () => 1, data: [{ x: undefined, y: 2 }], c: 'kept' }],
    ['dates, nested arrays and unicode', { data: [{ at: new Date(0), name: 'Jita ✓ «Þ» 🚀', kills: [[1, 2], []] }], meta: { n: 1 } }],
    ['a top-level array', [1, 'two', { three: 3 }]],
    ['a scalar', 'text'],
    ['an object with toJSON', { toJSON: () => ({ replaced: true }) }],
  ];
  it.each(cases)('gives the bytes and ETag of JSON.stringify for %s', (_name, value) => {
    const out = jsonChunks(value);
    const expected = Buffer.from(JSON.stringify(value));
    expect(Buffer.concat(out.chunks).equals(expected)).toBe(true);
    expect(out.length).toBe(expected.length);
    expect(out.etag).toBe(etagOf(expected));
  });

  it('cuts a large body (a systems-kills answer) into bounded chunks with the same bytes', () => {
    const data = Array.from({ length: 500 }, (_, i) => ({
      solar_system_id: 31000000 + i,
      name: `J${i} Ωmega`,
      kills: Array.from({ length: 4 }, (_, k) => ({
        killmail_id: i * 10 + k,
        kill_time: new Date(1_700_000_000_000 + k).toISOString(),
        zkb: { totalValue: 1e9 + k },
      })),
    }));
    const body = { data };
    const out = jsonChunks(body);
    const expected = Buffer.from(JSON.stringify(body));
    expect(out.length).toBe(expected.length);
    expect(out.length).toBeGreaterThan(200_000);
    expect(out.chunks.length).toBeGreaterThan(2);
    // Each chunk is cut once it passes 64 KiB of text: at most that and the element that passed it (about
    // 420 bytes here).
    expect(Math.max(...out.chunks.map((c) => c.length))).toBeLessThan(65 * 1024);
    expect(Buffer.concat(out.chunks).equals(expected)).toBe(true);
    expect(out.etag).toBe(etagOf(expected));
  });
});
