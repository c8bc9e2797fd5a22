/** The hostile values the table's cases put in place of a valid path, query or body value. */
import type { Ctx, Json } from './table.js';

const LONG = 'a'.repeat(100_000);
/** Long enough to be absurd, short enough to fit Node's 16 KiB request-head limit. */
const LONG_URL_PART = 'a'.repeat(8_000);

/** Path segments, already URL-encoded as sent. */
export const HOSTILE_PATH: [string, string][] = [
  ['not a UUID', 'not-a-uuid'],
  ['UUID with a bad character', '123e4567-e89b-12d3-a456-42661417400z'],
  ['huge integer', '99999999999999999999'],
  ['2^31', '2147483648'],
  ['negative integer', '-1'],
  ['float', '1.5'],
  ['NUL', '%00'],
  ['invalid UTF-8 %FF', '%FF'],
  ['invalid UTF-8 %C3%28', '%C3%28'],
  ['encoded lone surrogate', '%ED%A0%80'],
  ['8k characters', LONG_URL_PART],
];

/** Query values for the map selector; each replaces `map_id` (the query keeps no slug). */
export const HOSTILE_SELECTOR: [string, (c: Ctx) => string][] = [
  ['map_id not a UUID', () => 'map_id=not-a-uuid'],
  ['map_id UUID with a bad character', () => 'map_id=123e4567-e89b-12d3-a456-42661417400z'],
  ['map_id huge integer', () => 'map_id=99999999999999999999'],
  ['map_id negative integer', () => 'map_id=-1'],
  ['map_id NUL', () => 'map_id=%00'],
  ['map_id with NUL appended', (c) => `map_id=${c.mapId}%00`],
  ['map_id invalid UTF-8 %FF', () => 'map_id=%FF'],
  ['map_id invalid UTF-8 %C3%28', () => 'map_id=%C3%28'],
  ['map_id repeated (two values)', (c) => `map_id=${c.mapId}&map_id=00000000-0000-4000-8000-000000000000`],
  ['map_id repeated (same value)', (c) => `map_id=${c.mapId}&map_id=${c.mapId}`],
  ['map_id as array syntax', (c) => `map_id[]=${c.mapId}`],
  ['map_id as object syntax', (c) => `map_id[a]=${c.mapId}`],
  ['map_id 8k characters', () => `map_id=${LONG_URL_PART}`],
  ['slug 8k characters', () => `slug=${LONG_URL_PART}`],
  ['slug NUL', () => 'slug=%00'],
  ['slug repeated', (c) => `slug=${c.slug}&slug=${c.otherSlug}`],
  ['map_id and slug of different maps', (c) => `map_id=${c.mapId}&slug=${c.otherSlug}`],
  ['empty map_id and slug', () => 'map_id=&slug='],
];

export const HOSTILE_INT: [string, string][] = [
  ['huge integer', '99999999999999999999'],
  ['2^31', '2147483648'],
  ['negative integer', '-1'],
  ['float', '1.5'],
  ['letters', 'abc'],
  ['empty', ''],
  ['exponent', '1e3'],
  ['hex', '0x10'],
  ['Infinity', 'Infinity'],
  ['NaN', 'NaN'],
  ['NUL', '%00'],
  ['invalid UTF-8', '%FF'],
  ['8k digits', '9'.repeat(8_000)],
];

export const HOSTILE_BOOL: [string, string][] = [
  ['yes', 'yes'],
  ['number', '2'],
  ['empty', ''],
  ['NUL', '%00'],
  ['invalid UTF-8', '%FF'],
];

export const HOSTILE_ID_QUERY: [string, string][] = [
  ['not an id', 'not-an-id'],
  ['huge integer', '99999999999999999999'],
  ['NUL', '%00'],
  ['invalid UTF-8', '%FF'],
  ['repeated', '01JCZ7Y8ZK8Q4R2T6V9W3X5Y7A&$NAME=01JCZ7Y8ZK8Q4R2T6V9W3X5Y7B'],
];

/** Replacements for a string leaf of the body. */
export const HOSTILE_FOR_STRING: [string, Json][] = [
  ['number for string', 123],
  ['boolean for string', true],
  ['object for string', { a: 1 }],
  ['array for string', ['x']],
  ['100k characters', LONG],
  ['NUL character', 'ab\u0000cd'],
  ['lone high surrogate', 'ab\uD800cd'],
  ['lone low surrogate', 'ab\uDC00cd'],
];

/** Replacements for a number leaf of the body. */
export const HOSTILE_FOR_NUMBER: [string, Json][] = [
  ['string for number', '5'],
  ['boolean for number', true],
  ['object for number', { a: 1 }],
  ['array for number', [5]],
  // Deliberately beyond 2^53: the JSON text a hostile client sends.
  // eslint-disable-next-line no-loss-of-precision
  ['huge integer', 99999999999999999999],
];

/** Replacements for a boolean leaf of the body. */
export const HOSTILE_FOR_BOOLEAN: [string, Json][] = [
  ['string "true" for boolean', 'true'],
  ['string "false" for boolean', 'false'],
  ['string for boolean', 'yes'],
  ['number for boolean', 1],
  ['null for boolean', null],
  ['object for boolean', {}],
];

/** Invalid UTF-8 byte sequences placed inside a string value of an otherwise valid body. */
export const INVALID_UTF8: [string, number[]][] = [
  ['0xFF 0xFE', [0xff, 0xfe]],
  ['truncated sequence 0xC3 0x28', [0xc3, 0x28]],
  ['CESU-8 lone surrogate 0xED 0xA0 0x80', [0xed, 0xa0, 0x80]],
  ['overlong NUL 0xC0 0x80', [0xc0, 0x80]],
];
