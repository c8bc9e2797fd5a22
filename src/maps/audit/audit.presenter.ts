/** Audit entries from event log rows. */
import type { CharacterDto } from '../../characters/character.dto.js';
import type { AuditEventRow } from '../event-log/event-log.service.js';
import type { AuditEntryDto } from './audit.dto.js';

/** The reference server's names where it has one; other types read as their words in title case. */
const EVENT_NAMES: Record<string, string> = {
  add_system: 'System Added',
  deleted_system: 'System(s) Removed',
  system_metadata_changed: 'System Updated',
  connection_added: 'Connection Added',
  connection_updated: 'Connection Updated',
  connection_removed: 'Connection Removed',
  signature_added: 'Signatures Added',
  signature_removed: 'Signatures Removed',
  rally_point_added: 'Rally Point Added',
  rally_point_removed: 'Rally Point Cancelled',
};

export function auditEventName(type: string): string {
  return EVENT_NAMES[type] ?? type.replace(/(^|_)([a-z])/g, (_m, sep: string, c: string) => `${sep ? ' ' : ''}${c.toUpperCase()}`);
}

export function toAuditEntry(row: AuditEventRow, characterOf: (eveId: string) => CharacterDto | undefined): AuditEntryDto {
  const eveId = row.payload.character_eve_id;
  return {
    entity_type: row.type.startsWith('acl_member_') ? 'access_list' : 'map',
    event_name: auditEventName(row.type),
    event_type: row.type,
    event_data: row.payload,
    character: typeof eveId === 'string' ? (characterOf(eveId) ?? null) : null,
    inserted_at: row.inserted_at,
  };
}
