import type { EntityManager } from '@mikro-orm/postgresql';
import { markEventsWritten } from './notifier.js';

/** The 13 event types of spec section 6. */
export const EVENT_TYPES = [
  'add_system',
  'deleted_system',
  'system_metadata_changed',
  'connection_added',
  'connection_removed',
  'connection_updated',
  'signature_added',
  'signature_removed',
  'signatures_updated',
  'map_kill',
  'acl_member_added',
  'acl_member_removed',
  'acl_member_updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface OutboxEvent {
  mapId: string;
  type: EventType;
  payload: Record<string, unknown>;
}

/**
 * Appends events to the outbox inside the caller's transaction (`em` must be the transactional EM):
 * they commit or roll back with the change that caused them. The relay assigns ids on publish.
 */
export async function appendEvents(em: EntityManager, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const values = events.map(() => '(?, ?, ?::jsonb)').join(', ');
  const params = events.flatMap((e) => [e.mapId, e.type, JSON.stringify(e.payload)]);
  await em.getConnection().execute(`insert into map_events (map_id, type, payload) values ${values}`, params, 'run', em.getTransactionContext());
  markEventsWritten(em.getTransactionContext());
}
