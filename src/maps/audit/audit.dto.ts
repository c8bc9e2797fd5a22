/** API models of the audit feed (`GET /api/map/audit`), in the reference server's shapes. */
import type { CharacterDto } from '../../characters/character.dto.js';

/** How far back the feed goes: an hour, a day, a week, or 1–3 months of 31 days (as the reference server counts). */
export type AuditPeriod = '1H' | '1D' | '1W' | '1M' | '2M' | '3M';

/** One event of the map's log, as the reference server's audit entries. */
export interface AuditEntryDto {
  /** `access_list` for ACL member events, else `map`. */
  entity_type: 'map' | 'access_list';
  /** Readable name of the event, e.g. `System Added`, `Connection Removed`. */
  event_name: string;
  /** The event type of the stream and webhooks, e.g. `add_system`. */
  event_type: string;
  /** The event's payload, as the stream and webhooks carry it. */
  event_data: Record<string, unknown>;
  /** The character named by the payload's `character_eve_id` (signatures, tracking, rally points), else null. */
  character: CharacterDto | null;
  /** When the change was written: ISO 8601 UTC, microseconds. */
  inserted_at: string;
}
