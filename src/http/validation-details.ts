/**
 * Turns tsoa's field errors into the `details` of a 400 `validation_failed` answer.
 *
 * - The `body.` prefix is dropped and array positions are written `systems[0].status` (tsoa: `$0`).
 * - A wrong type says what the value must be (`must be an integer`, not tsoa's `invalid integer number`),
 *   and a missing parameter that it is required.
 * - A union (e.g. `string | null`, `integer | 'clear' | …`, one object or a batch) fails in tsoa with
 *   one message embedding every alternative's errors as JSON. It is reduced to what a client can act
 *   on: the errors of the alternative the value came closest to (right type, fewest unknown fields,
 *   fewest problems), or, when the value has none of the allowed types, one message naming them
 *   (`must be a string or null`).
 */
import type { FieldErrors } from '@tsoa/runtime';
import type { ErrorDetail } from '../common/errors.js';

const UNION = 'Could not match the union against any of the items. Issues: ';
const EXCESS = / is an excess property and therefore is not allowed$/;
const ENUM = /^should be one of the following; \[(.*)\]$/;
const TYPE_WORDS: [RegExp, string][] = [
  [/^invalid string value$/, 'a string'],
  [/^invalid integer number$/, 'an integer'],
  [/^invalid float number$/, 'a number'],
  [/^invalid boolean value$/, 'a boolean'],
  [/^invalid object$/, 'an object'],
  [/^invalid array$/, 'an array'],
  [/^must be an RFC 3339 date-time/, 'an RFC 3339 date-time'],
  [/^invalid ISO 8601 datetime format/, 'an ISO 8601 date-time'],
  [/^invalid ISO 8601 date format/, 'an ISO 8601 date'],
];

/** What a value failed to be: a JSON type (`a string`) or one allowed value (`'clear'`, `null`). */
interface Expectation {
  kind: 'type' | 'value';
  text: string;
}

interface Problem {
  field: string;
  message: string;
  /** Set when the value had a wrong type (rather than breaking a constraint of the right type). */
  expect?: Expectation[];
}

type RawErrors = Record<string, { message: string; value?: unknown }>;

function expectationsOf(message: string): Expectation[] | undefined {
  for (const [re, text] of TYPE_WORDS) if (re.test(message)) return [{ kind: 'type', text }];
  const m = ENUM.exec(message);
  if (m) return m[1]!.split(',').map((text) => ({ kind: 'value', text }));
  return undefined;
}

function describe(expect: Expectation[]): string {
  const types = [...new Set(expect.filter((e) => e.kind === 'type').map((e) => e.text))];
  const values = [...new Set(expect.filter((e) => e.kind === 'value').map((e) => e.text))];
  const parts = [...types];
  if (values.length === 1) parts.push(values[0]!);
  else if (values.length > 1) parts.push(`one of ${values.join(', ')}`);
  return `must be ${parts.join(' or ')}`;
}

function flatten(errors: RawErrors): Problem[] {
  return Object.entries(errors).flatMap(([field, e]) => {
    // tsoa reports a missing parameter with the message of its type check when one is declared (`@isInt id
    // must be an integer`); the value it saw says what happened.
    if (e && 'value' in e && e.value === undefined && !e.message.endsWith(' is required')) {
      return [{ field, message: `'${field.slice(field.lastIndexOf('.') + 1)}' is required` }];
    }
    return reduce(field, String(e?.message ?? 'is invalid'));
  });
}

function reduce(field: string, message: string): Problem[] {
  if (!message.startsWith(UNION)) {
    const expect = expectationsOf(message);
    // tsoa's own words for a wrong type (`invalid integer number`) become what the value must be.
    const reworded = expect?.[0]?.kind === 'type' && !message.startsWith('must be ');
    return [expect ? { field, message: reworded ? describe(expect) : message, expect } : { field, message }];
  }
  let alternatives: RawErrors[];
  try {
    alternatives = JSON.parse(message.slice(UNION.length)) as RawErrors[];
  } catch {
    return [{ field, message: 'does not match any of the allowed forms' }];
  }
  const lists = alternatives.map(flatten).filter((l) => l.length > 0);
  if (!lists.length) return [{ field, message: 'does not match any of the allowed forms' }];
  const atRoot = (p: Problem) => p.field === field;
  const unknownChild = (p: Problem) => p.field.startsWith(`${field}.`) && !p.field.slice(field.length + 1).includes('.') && EXCESS.test(p.message);
  const rank = (l: Problem[]) => [l.some((p) => atRoot(p) && p.expect) ? 1 : 0, l.filter(unknownChild).length, l.length];
  const better = (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
  const best = lists.reduce((a, b) => (better(rank(b), rank(a)) < 0 ? b : a));
  if (rank(best)[0] === 0) return best;
  // Every alternative refused the value's type: name what it may be.
  const expect = lists.flatMap((l) => l.filter(atRoot).flatMap((p) => p.expect ?? []));
  return [{ field, message: describe(expect), expect }];
}

function cleanField(field: string): string {
  const rest = field.replace(/^(body|requestBody)(?=\.|$)\.?/, '');
  return rest === '' ? 'body' : rest.replace(/(^|\.)\$(\d+)/g, '[$2]');
}

export function validationDetails(fields: FieldErrors): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const p of flatten(fields as RawErrors)) {
    const detail = { field: cleanField(p.field), message: p.message };
    const key = `${detail.field}\u0000${detail.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(detail);
  }
  return out;
}
