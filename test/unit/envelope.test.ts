import { describe, expect, it } from 'vitest';
import { parseEventId } from '../../src/events/envelope.js';

describe('parseEventId', () => {
  it('answers the canonical upper-case ULID for ids within the ULID range', () => {
    expect(parseEventId('01jcz7y8zk8q4r2t6v9w3x5y7a')).toBe('01JCZ7Y8ZK8Q4R2T6V9W3X5Y7A');
    expect(parseEventId('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toBe('7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
  });

  it('refuses ids whose time part is above the 48-bit maximum (first character 8 to Z)', () => {
    for (const first of '89ABCDEFGHJKMNPQRSTVWXYZ') expect(parseEventId(`${first}${'0'.repeat(25)}`), first).toBeUndefined();
  });

  it('refuses wrong lengths and characters outside Crockford base32', () => {
    for (const id of ['', '0'.repeat(25), '0'.repeat(27), `${'0'.repeat(25)}I`, `${'0'.repeat(25)}U`]) expect(parseEventId(id), id).toBeUndefined();
  });
});
