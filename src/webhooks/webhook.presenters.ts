import type { SubscriptionRow } from './subscription.repository.js';
import type { WebhookSubscriptionDto } from './webhook.dto.js';

/** A subscription as the operator and the management API see it. */
export interface WebhookSubscription {
  id: string;
  mapId: string;
  url: string;
  events: string[];
  active: boolean;
  lastDeliveryAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  consecutiveFailures: number;
  managedBy: string | null;
  insertedAt: string;
  updatedAt: string;
  activeSince: string;
  /** The failure warning last given (per cent of the disable threshold: 0, 50 or 90). */
  warnedLevel: number;
}

export function toDto(r: SubscriptionRow): WebhookSubscriptionDto {
  return {
    id: r.id,
    map_id: r.map_id,
    url: r.url,
    events: r.events,
    active: r.active,
    last_delivery_at: r.last_delivery_at,
    last_error: r.last_error,
    last_error_at: r.last_error_at,
    consecutive_failures: r.consecutive_failures,
    managed_by: r.managed_by,
    inserted_at: r.inserted_at,
    updated_at: r.updated_at,
  };
}

export function toSubscription(r: SubscriptionRow): WebhookSubscription {
  return {
    id: r.id,
    mapId: r.map_id,
    url: r.url,
    events: r.events,
    active: r.active,
    lastDeliveryAt: r.last_delivery_at,
    lastError: r.last_error,
    lastErrorAt: r.last_error_at,
    consecutiveFailures: r.consecutive_failures,
    managedBy: r.managed_by,
    insertedAt: r.inserted_at,
    updatedAt: r.updated_at,
    activeSince: new Date(r.active_since_ms).toISOString(),
    warnedLevel: r.warned_level,
  };
}
