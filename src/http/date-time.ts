/**
 * Date-time input: RFC 3339 only (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`), for every `Date` field
 * of a request, body or query.
 *
 * tsoa checks `Date` fields with validator's `isISO8601`, which also passes week dates (`2026-W47`),
 * ordinal dates (`2026-330`), the basic format (`20261122T100000Z`), hour-only times and comma
 * fractions, then converts them with `new Date()`: most of those become an Invalid Date that fails
 * later as a 500, and a date-only or zone-less value is read in the server's own zone. RFC 3339 has
 * exactly one spelling per instant and always names its zone.
 */
import { ValidationService, type FieldErrors } from '@tsoa/runtime';

/** Detail message of a refused date-time (validation-details.ts recognises its start in unions). */
export const DATE_TIME_MESSAGE = 'must be an RFC 3339 date-time such as 2026-11-22T10:00:00Z (seconds and a zone required)';

// T and Z in either case (RFC 3339 §5.6 note); fraction of 1 to 9 digits (nanoseconds at most).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * The instant an RFC 3339 date-time names, or undefined when the text is not one: wrong form, a
 * calendar value that does not exist (month 13, February 30, hour 24), a leap second (`:60`, which a
 * JavaScript date cannot hold) or an instant outside the years 0001–9999 UTC. Digits past the
 * millisecond are dropped.
 */
export function parseDateTime(text: string): Date | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = m[7] ?? '';
  const sign = m[8];
  const offHour = Number(m[9] ?? 0);
  const offMinute = Number(m[10] ?? 0);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offHour > 23 || offMinute > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, keeps years below 100 as they are.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, '0')));
  const offsetMs = (offHour * 60 + offMinute) * 60_000;
  const ms = date.getTime() + (sign === '+' ? -offsetMs : sign === '-' ? offsetMs : 0);
  const result = new Date(ms);
  const utcYear = result.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? result : undefined;
}

interface DateTimeBounds {
  minDate?: { value?: string; errorMsg?: string };
  maxDate?: { value?: string; errorMsg?: string };
}

let installed = false;

/**
 * Makes tsoa validate every date-time parameter and body field with parseDateTime. tsoa builds its
 * ValidationService inside the generated routes and offers no hook for formats, so its date-time
 * check is replaced on the prototype; the field errors keep tsoa's form (and so its field paths).
 */
export function installDateTimeValidation(): void {
  if (installed) return;
  const proto = ValidationService.prototype;
  if (typeof proto.validateDateTime !== 'function') throw new Error('tsoa ValidationService.validateDateTime not found: check the tsoa version');
  proto.validateDateTime = function (name: string, value: unknown, fieldErrors: FieldErrors, _isBodyParam: boolean, validators?: DateTimeBounds, parent = '') {
    const date = typeof value === 'string' ? parseDateTime(value) : undefined;
    if (!date) {
      fieldErrors[parent + name] = { message: DATE_TIME_MESSAGE, value };
      return undefined;
    }
    // Bounds as tsoa reads them (`@minDate` / `@maxDate`); none is in use today.
    const min = validators?.minDate?.value ? new Date(validators.minDate.value) : undefined;
    if (min && date < min) {
      fieldErrors[parent + name] = { message: validators?.minDate?.errorMsg ?? `must not be before ${validators?.minDate?.value}`, value };
      return undefined;
    }
    const max = validators?.maxDate?.value ? new Date(validators.maxDate.value) : undefined;
    if (max && date > max) {
      fieldErrors[parent + name] = { message: validators?.maxDate?.errorMsg ?? `must not be after ${validators?.maxDate?.value}`, value };
      return undefined;
    }
    return date;
  };
  installed = true;
}
