/**
 * API models of webhook management (spec 2.12 and 4.6, shapes of decisions §4). Request fields carry
 * their validation, so the OpenAPI document and the 400 `validation_failed` answers agree.
 */

/** A webhook subscription as returned (the secret only in the create and rotate-secret answers). */
export interface WebhookSubscriptionDto {
  /** @format uuid */
  id: string;
  /** @format uuid */
  map_id: string;
  /** HTTPS endpoint receiving the POST deliveries. */
  url: string;
  /** Event types delivered (`*` for every type). */
  events: string[];
  /** Deliveries are made only while active (and the map's webhooks are switched on). */
  active: boolean;
  /** Time of the last successful delivery, ISO 8601 UTC, or null. */
  last_delivery_at: string | null;
  /** The last delivery error, or null. */
  last_error: string | null;
  /** Time of the last delivery error, or null. */
  last_error_at: string | null;
  /**
   * Consecutive events that exhausted every attempt (reset by a success and by setting `active` again);
   * at 10 the subscription is set inactive. @isInt
   */
  consecutive_failures: number;
  /** null, or `kubernetes:<namespace>/<name>` for a subscription made by a WebhookSubscription resource (read-only here). */
  managed_by: string | null;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
}

/** A new subscription with its signing secret, shown this once. */
export interface CreatedWebhookSubscriptionDto extends WebhookSubscriptionDto {
  /** Signing secret: 32 random bytes, base64 (44 characters). Keep it: it is not shown again. */
  secret: string;
}

export interface CreateWebhookRequest {
  /**
   * HTTPS URL (at most 2000 characters) whose every address is public.
   * @maxLength 2000
   */
  url: string;
  /**
   * Event types to deliver, or `["*"]` for every type (the names of the event stream's `events` filter).
   * @minItems 1
   * @maxItems 50
   */
  events: string[];
  /** Default true. */
  active?: boolean;
}

/** Fields to change; the others keep their values. */
export interface UpdateWebhookRequest {
  /** @maxLength 2000 */
  url?: string;
  /**
   * @minItems 1
   * @maxItems 50
   */
  events?: string[];
  /** Setting it true again resets `consecutive_failures`. */
  active?: boolean;
}

export interface ToggleWebhooksRequest {
  enabled: boolean;
}

export interface WebhooksToggleDto {
  webhooks_enabled: boolean;
}

export interface WebhookSecretDto {
  /** The new signing secret (32 random bytes, base64); the old one stops signing at once. */
  secret: string;
}

/** One delivery attempt of the attempt log (kept 7 days). */
export interface DeliveryAttemptDto {
  /** @isInt */
  id: number;
  event_id: string;
  event_type: string;
  /** 1 for the first attempt of an event. @isInt */
  attempt: number;
  /** ISO 8601 UTC, milliseconds. */
  attempted_at: string;
  /** The receiver's HTTP status, or null when no answer came. @isInt */
  status: number | null;
  /** @isInt */
  duration_ms: number;
  outcome: 'success' | 'failure';
  /** `timeout`, `connect`, `tls`, `dns`, `refused_url`, `http_4xx`, `http_5xx`, `http_410`, or null on success. */
  error_class: string | null;
  error: string | null;
  /** When the next attempt is due, or null (delivered, exhausted, or dropped). */
  next_attempt_at: string | null;
  /** The `webhook-sequence` the attempt carried; null for a ping (and for deliveries older than sequence numbers). @isInt */
  sequence: number | null;
  /** The attempt belongs to a delivery made again by a recover. */
  recovered: boolean;
}

export interface DeliveryAttemptsPage {
  data: DeliveryAttemptDto[];
  /** Pass as `before` for the next (older) page; null on the last page. @isInt */
  next_before: number | null;
}

export interface RedeliverRequest {
  /** Id of an event of this map (within the event log's retention). */
  event_id: string;
}

/** A delivery queued by redeliver. */
export interface QueuedDeliveryDto {
  event_id: string;
  event_type: string;
  subscription_id: string;
  /** Always `pending`: a worker sends it at once. */
  state: 'pending';
}

/** The answer of a ping: the one attempt made, synchronously. */
export interface PingResultDto {
  event_id: string;
  /** @isInt */
  status: number | null;
  /** @isInt */
  duration_ms: number;
  outcome: 'success' | 'failure';
  error_class: string | null;
  error: string | null;
}

export interface RecoverRequest {
  /** RFC 3339 time: every event of the map committed after it that the subscription receives is delivered again. */
  since: Date;
}

/** What a recover queued. */
export interface RecoverResultDto {
  /** Events queued for delivery, in event order. @isInt */
  events: number;
}

/** Latency percentiles of the attempts in the window (ms), null without attempts. */
export interface WebhookLatencyDto {
  /** @isInt */
  p50: number | null;
  /** @isInt */
  p99: number | null;
}

/** A subscription's health over a window, from its attempt log. */
export interface WebhookStatsDto {
  /** The window: 300, 3600 or 86400. @isInt */
  window_seconds: number;
  /** Attempts made in the window (deliveries, retries and pings). @isInt */
  attempts: number;
  /** @isInt */
  succeeded: number;
  /** @isInt */
  failed: number;
  /** Failed attempts by class (`timeout`, `connect`, `tls`, `dns`, `refused_url`, `http_4xx`, `http_5xx`, `http_410`, `http_other`); classes without failures are absent. */
  failed_by_class: Record<string, number>;
  latency_ms: WebhookLatencyDto;
  /** The error of the newest failed attempt in the attempt log (not only the window), or null. */
  last_error: string | null;
  /** When that attempt was made, ISO 8601 UTC, milliseconds; null without one. */
  last_error_at: string | null;
}
