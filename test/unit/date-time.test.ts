import { describe, expect, it } from 'vitest';
import { parseDateTime } from '../../src/http/date-time.js';

describe('parseDateTime', () => {
  it('answers the instant in UTC, applying the offset and keeping milliseconds (later digits dropped)', () => {
    expect(parseDateTime('2026-11-22T10:00:00Z')?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(parseDateTime('2026-11-22T10:00:00.123987Z')?.toISOString()).toBe('2026-11-22T10:00:00.123Z');
    expect(parseDateTime('2026-11-22t23:30:00.5-01:15')?.toISOString()).toBe('2026-11-23T00:45:00.500Z');
    expect(parseDateTime('0099-03-01T00:00:00Z')?.toISOString()).toBe('0099-03-01T00:00:00.000Z');
  });

  it('knows leap years: February 29 exists in 2024 and 2000, not in 2026 or 1900', () => {
    expect(parseDateTime('2024-02-29T00:00:00Z')).toBeDefined();
    expect(parseDateTime('2000-02-29T00:00:00Z')).toBeDefined();
    expect(parseDateTime('2026-02-29T00:00:00Z')).toBeUndefined();
    expect(parseDateTime('1900-02-29T00:00:00Z')).toBeUndefined();
  });

  it('refuses instants outside the years 0001 to 9999 UTC, also when only the offset moves them there', () => {
    expect(parseDateTime('9999-12-31T23:59:59Z')).toBeDefined();
    expect(parseDateTime('9999-12-31T23:59:59-00:01')).toBeUndefined();
    expect(parseDateTime('0001-01-01T00:00:00+00:01')).toBeUndefined();
  });

  it('refuses more than nine fraction digits', () => {
    expect(parseDateTime('2026-11-22T10:00:00.123456789Z')).toBeDefined();
    expect(parseDateTime('2026-11-22T10:00:00.1234567890Z')).toBeUndefined();
  });
});
