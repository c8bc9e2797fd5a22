/**
 * Request rules that hold for every route and need no schema: what a body may cost before it is
 * parsed (its size per route, its nesting), which query parameter names are taken, and which
 * characters a name may hold. Applied by src/app.ts before a route sees the request.
 */
import type { ErrorDetail } from '../common/errors.js';

/** Containers (arrays and objects) a value may sit inside; a value nested deeper is refused. */
export const MAX_NESTING = 32;

/** The body limit of the single-edit routes: every field at its longest, each character escaped, fits many times over. */
export const SINGLE_EDIT_BODY_BYTES = 128 * 1024;

/** The routes that take batches (up to 200 kills, 100 systems, 500 signatures): they get the whole SERVICE_MAX_BODY_BYTES. */
const BULK_ROUTES: { method: string; pattern: RegExp }[] = [
  { method: 'POST', pattern: /^\/api\/maps\/[^/]+\/kills\/?$/i },
  { method: 'POST', pattern: /^\/api\/maps\/[^/]+\/systems\/?$/i },
  { method: 'PUT', pattern: /^\/api\/maps\/[^/]+\/systems\/[^/]+\/signatures\/?$/i },
];

/** The largest body a request to this route may carry: the bulk routes `maxBodyBytes`, every other route at most SINGLE_EDIT_BODY_BYTES. */
export function bodyLimitFor(method: string, path: string, maxBodyBytes: number): number {
  if (BULK_ROUTES.some((r) => r.method === method && r.pattern.test(path))) return maxBodyBytes;
  return Math.min(SINGLE_EDIT_BODY_BYTES, maxBodyBytes);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether the JSON text in `buf` opens a container inside more than `MAX_NESTING` others, told from
 * its bytes alone (brackets outside strings), before anything is parsed: one pass that stops at the
 * first such bracket, so a refused body costs about what reading it cost. Bytes of multi-byte UTF-8
 * characters are all above 0x7f and never taken for brackets or quotes. Text that is no JSON at all is
 * left to the parser. (A scalar inside exactly 33 containers passes here and is refused after parsing,
 * by the body walk, at no cost worth bounding.)
 */
export function nestedTooDeeply(buf: Uint8Array): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > MAX_NESTING + 1) return true;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--;
  }
  return false;
}

/**
 * A query parameter name the API never takes: one with brackets (`x[]=1`, `x[a]=1`), the array and
 * object syntax of other frameworks' query parsers. Express reads them as plain names, so without this
 * `map_id[]=…` or `hours[]=1` would be ignored (an unfiltered 200) instead of refused.
 */
export function bracketQueryName(query: Record<string, unknown>): ErrorDetail | undefined {
  const name = Object.keys(query).find((k) => k.includes('[') || k.includes(']'));
  return name === undefined
    ? undefined
    : {
        field: name,
        message:
          'is not a parameter this API takes: brackets (x[]=, x[a]=) are not accepted in query parameter names; repeat a name instead where a list is allowed',
      };
}

/**
 * Characters a name may not hold: control characters (Unicode Cc) and format characters (Cf: the
 * zero-width ones such as U+200B, U+200D and U+FEFF, and the bidirectional controls U+061C, U+200E–F,
 * U+202A–E and U+2066–9), which make a name read differently from what it is (`U+202E` turns the rest
 * of a line around) or two names look alike.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;

/** A field that holds a name: `name`, or one ending in `_name` (custom_name, owner_name, victim_char_name…). */
const NAME_FIELD = /(?:^|_)name$/;

export const INVISIBLE_MESSAGE =
  'must not contain control characters or invisible and bidirectional formatting characters (Unicode Cc and Cf, such as U+202E or U+200B)';

/** The first name field of a request body holding an invisible or bidirectional control character, with its body path. */
export function invisibleInName(value: unknown, path = '', depth = 0): ErrorDetail | undefined {
  if (depth > MAX_NESTING || !value || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = invisibleInName(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value)) {
    const field = `${path}${path ? '.' : ''}${k}`;
    if (typeof v === 'string') {
      if (NAME_FIELD.test(k) && INVISIBLE.test(v)) return { field, message: INVISIBLE_MESSAGE };
    } else {
      const found = invisibleInName(v, field, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}
