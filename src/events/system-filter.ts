import { ValidationError } from '../common/errors.js';
import type { EventEnvelope } from './envelope.js';

/** The most solar systems one `systems=` filter may list (docs/api.md, "Filters"). */
export const SYSTEM_FILTER_MAX = 100;

/** Which systems a stream or event log reader wants: null for every event. */
export type SystemFilter = ReadonlySet<number> | null;

const INTEGER = /^[0-9]{1,10}$/;

/**
 * Parses a `systems` filter: a comma list (or list of lists) of solar system ids, at most
 * SYSTEM_FILTER_MAX distinct. Absent is no filter; anything else that is not a list of integers
 * (an empty item, a sign, a letter, a number past 2^31-1, too many) is a 400 naming the parameter.
 */
export function parseSystemFilter(raw: readonly string[], field = 'systems'): SystemFilter {
  if (raw.length === 0) return null;
  const refuse = (message: string) => new ValidationError([{ field, message }]);
  const ids = new Set<number>();
  for (const item of raw.flatMap((s) => s.split(','))) {
    const text = item.trim();
    if (text === '') throw refuse('must be a comma-separated list of solar system ids; an item is empty');
    if (!INTEGER.test(text) || Number(text) > 2_147_483_647) throw refuse(`"${text.slice(0, 40)}" is not a solar system id (an integer from 0 to 2147483647)`);
    ids.add(Number(text));
  }
  if (ids.size > SYSTEM_FILTER_MAX) throw refuse(`lists ${ids.size} systems; at most ${SYSTEM_FILTER_MAX}`);
  return ids;
}

/**
 * The solar systems an event names: a system's own id (`solar_system_id`), a connection's two ends
 * (`solar_system_source`, `solar_system_target`), a kill's, signature's or rally point's system, a
 * tracked character's location (and each one of a `characters_updated` batch).
 */
export function systemsOf(e: Pick<EventEnvelope, 'payload'>): number[] {
  const p = e.payload as Record<string, unknown>;
  const out: number[] = [];
  for (const field of ['solar_system_id', 'solar_system_source', 'solar_system_target']) {
    const v = p[field];
    if (typeof v === 'number') out.push(v);
  }
  if (Array.isArray(p.characters)) {
    for (const c of p.characters as Record<string, unknown>[]) if (typeof c?.solar_system_id === 'number') out.push(c.solar_system_id);
  }
  return out;
}

/** Whether the event names one of the filter's systems (every event without a filter). */
export function matchesSystems(filter: SystemFilter, e: Pick<EventEnvelope, 'payload'>): boolean {
  return filter === null || systemsOf(e).some((id) => filter.has(id));
}

/**
 * The SQL condition of the same rule on `map_events.payload`, for the event log; `param` is the
 * placeholder of a text[] of the ids (null for no filter).
 */
export function systemsCondition(param: string): string {
  return `(${param}::text[] is null
    or payload->>'solar_system_id' = any(${param}::text[])
    or payload->>'solar_system_source' = any(${param}::text[])
    or payload->>'solar_system_target' = any(${param}::text[])
    or (jsonb_typeof(payload->'characters') = 'array'
        and exists (select 1 from jsonb_array_elements(payload->'characters') c where c->>'solar_system_id' = any(${param}::text[]))))`;
}
