import { EVENT_TYPES, isEventType, type EventType } from './catalog.js';
import { ValidationError } from '../common/errors.js';

/**
 * Names the reference server defines but this service never emits: accepted in a filter (existing
 * clients always ask for them) and matching nothing (decisions §5). The other character and rally point
 * events are emitted (docs/decisions/0012-reference-routes.md).
 */
export const REFERENCE_ONLY_EVENT_NAMES = ['character_updated'] as const;

/** Which event types a stream or webhook wants: every type (`*` or no filter), or a set. */
export type EventFilter = { all: true } | { all: false; types: ReadonlySet<EventType> };

/**
 * Parses an `events` filter: a comma list (or list of lists) of type names, or `*`. Unknown names are
 * a 400 naming the field and listing the valid names.
 */
export function parseEventFilter(raw: string | readonly string[] | undefined, field = 'events'): EventFilter {
  const names = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
    .flatMap((s: string) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0 || names.includes('*')) return { all: true };
  const unknown = names.filter((n) => !isEventType(n) && !(REFERENCE_ONLY_EVENT_NAMES as readonly string[]).includes(n));
  if (unknown.length) {
    throw new ValidationError([
      {
        field,
        message:
          `unknown event type ${unknown.map((n) => `"${n}"`).join(', ')}; valid: *, ${EVENT_TYPES.join(', ')} ` +
          `(also accepted, never sent by this service: ${REFERENCE_ONLY_EVENT_NAMES.join(', ')})`,
      },
    ]);
  }
  return { all: false, types: new Set(names.filter(isEventType)) };
}

export function matchesFilter(filter: EventFilter, type: EventType): boolean {
  return filter.all || filter.types.has(type);
}
