import { describe, expect, it } from 'vitest';
import { decodeTime, ulid } from 'ulid';
import { nextEventId, parseEventId } from '../../src/events/envelope.js';

describe('nextEventId', () => {
  it('starts a map with a ULID of the current time', () => {
    const id = nextEventId(undefined, 1_800_000_000_000);
    expect(decodeTime(id)).toBe(1_800_000_000_000);
  });

  it('takes a fresh ULID when the clock moved past the last id', () => {
    const last = ulid(1_800_000_000_000);
    const next = nextEventId(last, 1_800_000_000_500);
    expect(decodeTime(next)).toBe(1_800_000_000_500);
    expect(next > last).toBe(true);
  });

  it('stays strictly increasing when a relay’s clock is behind the last id (clock skew between relays)', () => {
    const last = ulid(1_800_000_010_000);
    let id = last;
    for (let i = 0; i < 1000; i++) {
      const next = nextEventId(id, 1_800_000_000_000);
      expect(next > id).toBe(true);
      // The time part never goes back: it stays at the last id's time.
      expect(decodeTime(next)).toBe(1_800_000_010_000);
      id = next;
    }
  });

  it('stays strictly increasing within one millisecond', () => {
    const now = 1_800_000_000_000;
    let id = nextEventId(undefined, now);
    for (let i = 0; i < 1000; i++) {
      const next = nextEventId(id, now);
      expect(next > id).toBe(true);
      id = next;
    }
  });

  it('produces ids that parse back as themselves', () => {
    const id = nextEventId(ulid(1_800_000_000_000), 1_700_000_000_000);
    expect(parseEventId(id)).toBe(id);
    expect(parseEventId(id.toLowerCase())).toBe(id);
  });
});
