import { decodeTime, encodeTime, incrementBase32, isValid, ulid } from 'ulid';
import type { EventType } from './catalog.js';

/** The event envelope: what streams, webhooks and the event log carry. */
export interface EventEnvelope {
  /** ULID, strictly increasing per map in delivery order. */
  id: string;
  type: EventType;
  /** @format uuid */
  map_id: string;
  /** ISO 8601 UTC, milliseconds. */
  ts: string;
  payload: Record<string, unknown>;
}

// A ULID's first character carries the top 3 bits of its 48-bit time, so it is at most 7: an id above
// 7ZZZZZZZZZZZZZZZZZZZZZZZZZ is no ULID (decodeTime throws on it) and sorts after every real id.
const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** Canonical (upper-case) ULID, or undefined when the text is not one (also when it is out of range). */
export function parseEventId(text: string): string | undefined {
  const upper = text.trim().toUpperCase();
  return ULID_RE.test(upper) && isValid(upper) ? upper : undefined;
}

/**
 * The next id of a map: a fresh ULID at `now` when the clock moved past the last id's time, else the
 * last id incremented — so ids stay strictly increasing even across relays with skewed clocks.
 */
export function nextEventId(last: string | undefined, now: number): string {
  if (!last) return ulid(now);
  const lastTime = decodeTime(last);
  if (now > lastTime) return ulid(now);
  return encodeTime(lastTime, 10) + incrementBase32(last.slice(10));
}
