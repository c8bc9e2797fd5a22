import { describe, expect, it } from 'vitest';
import { etagOf, MapReadCache, matchesIfNoneMatch } from '../../src/maps/map-read/read-cache.js';

const entry = (version: string, body: string, expiresAt = Infinity) => {
  const bytes = Buffer.from(body);
  return { version, expiresAt, etag: etagOf(bytes), body: bytes };
};

describe('map read cache', () => {
  it('serves an entry only at the version it was computed at and before it expires; a stale entry is dropped', () => {
    const cache = new MapReadCache(1024 * 1024);
    cache.set('k', entry('1.1.A', '{"data":[]}', 2_000));
    expect(cache.get('k', '1.1.A', 1_000)?.body.toString()).toBe('{"data":[]}');
    expect(cache.get('k', '1.1.A', 2_000)).toBeUndefined();
    expect(cache.get('k', '1.1.A', 1_000)).toBeUndefined();
    cache.set('k', entry('1.1.A', '{"data":[1]}'));
    expect(cache.get('k', '2.1.A')).toBeUndefined();
    expect(cache.get('k', '1.1.A')).toBeUndefined();
  });

  it('keeps its bytes within the budget, least recently used out first, and refuses nothing it cannot hold silently', () => {
    const cache = new MapReadCache(3_000);
    cache.set('a', entry('v', 'a'.repeat(1_000)));
    cache.set('b', entry('v', 'b'.repeat(1_000)));
    expect(cache.get('a', 'v')).toBeDefined();
    cache.set('c', entry('v', 'c'.repeat(1_000)));
    expect(cache.get('b', 'v')).toBeUndefined();
    expect(cache.get('a', 'v')).toBeDefined();
    expect(cache.get('c', 'v')).toBeDefined();
    expect(cache.size).toBeLessThanOrEqual(3_000);
    cache.set('huge', entry('v', 'x'.repeat(10_000)));
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
