import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import type { Db } from '../db/db.js';
import type { SecretBox } from '../common/crypto.js';
import { AppError, BadRequestError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../common/errors.js';
import type { MapKeyPrincipal } from '../http/principal.js';
import { MapAccess, type MapRef } from '../maps/map-access.js';
import { MapRefRepository } from '../maps/map.repository.js';
import { UUID_RE } from '../db/sql.js';
import { matchesFilter, parseEventFilter } from '../events/event-filter.js';
import { parseEventId } from '../events/envelope.js';
import { EventLogService } from '../maps/event-log/event-log.service.js';
import { checkUrl, givenUrl, INSECURE_URLS_HINT, UnsafeUrlError, type Resolve } from './url-guard.js';
import { SubscriptionRepository, type SubscriptionRow } from './subscription.repository.js';
import { DeliveryRepository, serializeEnvelope } from './delivery.repository.js';
import type { WebhookSender } from './sender.js';
import type {
  CreatedWebhookSubscriptionDto,
  CreateWebhookRequest,
  DeliveryAttemptsPage,
  PingResultDto,
  QueuedDeliveryDto,
  UpdateWebhookRequest,
  WebhookSubscriptionDto,
} from './webhook.dto.js';

/** Subscriptions per map (spec 8). */
export const MAX_SUBSCRIPTIONS_PER_MAP = 5;

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
}

/** What a managing resource (a Kubernetes WebhookSubscription) wants to exist. */
export interface ManagedSubscriptionSpec {
  /** `kubernetes:<namespace>/<name>`. */
  managedBy: string;
  /** Map UUID or slug. */
  map: string;
  url: string;
  events: readonly string[];
  active: boolean;
  /** The signing secret (from the resource's Secret). */
  secret: string;
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

function toSubscription(r: SubscriptionRow): WebhookSubscription {
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
  };
}

type Applied = { subscription: WebhookSubscription; created: boolean };
class DryRunDone {
  constructor(readonly result: Applied) {}
}

/** A signing secret: 32 random bytes, base64 (44 characters). */
export function newSecret(): string {
  return randomBytes(32).toString('base64');
}

/** The `events` of a subscription: names of the stream filter (decisions §5), deduplicated; `*` alone when present. */
export function normalizeEvents(events: readonly string[], field = 'events'): string[] {
  if (events.length === 0) throw new ValidationError([{ field, message: 'must name at least one event type, or "*"' }]);
  const names = [...new Set(events.map((e) => (typeof e === 'string' ? e.trim() : '')))];
  if (names.some((n) => n === '' || n.includes(','))) throw new ValidationError([{ field, message: 'each entry must be one event type name' }]);
  parseEventFilter(names, field);
  return names.includes('*') ? ['*'] : names;
}

export interface WebhookServiceOptions {
  allowInsecureUrls: boolean;
  resolve?: Resolve;
  /** Sends the ping (the api role's own sender; the workers have theirs). */
  sender?: WebhookSender;
}

/**
 * Webhook management (spec 4.6, decisions §4 and §7): a map key manages its own map's subscriptions;
 * the toggle is the map owner's. Subscriptions made by a Kubernetes resource are read-only here (409)
 * and are changed through the `*Managed` methods, which the operator calls.
 */
export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly opts: WebhookServiceOptions,
    private readonly subs = new SubscriptionRepository(),
    private readonly deliveries = new DeliveryRepository(),
    private readonly access = new MapAccess(db),
    private readonly events = new EventLogService(db),
    private readonly maps = new MapRefRepository(),
  ) {}

  async toggle(principal: MapKeyPrincipal, mapPath: string, enabled: boolean): Promise<{ webhooks_enabled: boolean }> {
    const map = await this.access.byPath(principal, mapPath);
    if (principal.characterId !== map.ownerCharacterId) throw new ForbiddenError('not_map_owner', "Only the map owner's key can switch the map's webhooks");
    await this.db.transaction(async (tx) => {
      const was = await this.subs.setEnabled(tx, map.id, enabled);
      await this.subs.bumpMap(tx, map.id, enabled && !was);
      // Off means off: retries still waiting are dropped with it (decisions §7).
      if (!enabled) await this.deliveries.dropPendingOfMap(tx, map.id);
    });
    return { webhooks_enabled: enabled };
  }

  async list(principal: MapKeyPrincipal, mapPath: string): Promise<WebhookSubscriptionDto[]> {
    const map = await this.access.byPath(principal, mapPath);
    return (await this.subs.list(this.db, map.id)).map(toDto);
  }

  async get(principal: MapKeyPrincipal, mapPath: string, id: string): Promise<WebhookSubscriptionDto> {
    const map = await this.access.byPath(principal, mapPath);
    return toDto(await this.find(this.db, map, id));
  }

  async create(principal: MapKeyPrincipal, mapPath: string, fields: CreateWebhookRequest): Promise<CreatedWebhookSubscriptionDto> {
    const map = await this.access.byPath(principal, mapPath);
    const events = normalizeEvents(fields.events);
    const url = await this.checkedUrl(fields.url);
    const secret = newSecret();
    const row = await this.db.transaction(async (tx) => {
      await this.subs.bumpMap(tx, map.id);
      const id = await this.insertNew(tx, { mapId: map.id, url, events, active: fields.active ?? true, secret, managedBy: null });
      return (await this.subs.byId(tx, map.id, id))!;
    });
    return { ...toDto(row), secret };
  }

  async update(principal: MapKeyPrincipal, mapPath: string, id: string, fields: UpdateWebhookRequest): Promise<WebhookSubscriptionDto> {
    const map = await this.access.byPath(principal, mapPath);
    const events = fields.events !== undefined ? normalizeEvents(fields.events) : undefined;
    const url = fields.url !== undefined ? await this.checkedUrl(fields.url) : undefined;
    return toDto(
      await this.db.transaction(async (tx) => {
        const current = await this.editable(tx, map, id);
        await this.subs.bumpMap(tx, map.id);
        if (url !== undefined && url !== current.url && (await this.subs.urlTaken(tx, map.id, url, current.id))) throw this.urlTaken();
        await this.subs.update(tx, current.id, {
          ...(url !== undefined ? { url } : {}),
          ...(events ? { events } : {}),
          ...(fields.active !== undefined ? { active: fields.active } : {}),
        });
        if (fields.active === false) await this.deliveries.dropPending(tx, current.id);
        return (await this.subs.byId(tx, map.id, current.id))!;
      }),
    );
  }

  async remove(principal: MapKeyPrincipal, mapPath: string, id: string): Promise<void> {
    const map = await this.access.byPath(principal, mapPath);
    await this.db.transaction(async (tx) => {
      const current = await this.editable(tx, map, id);
      await this.subs.bumpMap(tx, map.id);
      await this.subs.remove(tx, current.id);
    });
  }

  async rotateSecret(principal: MapKeyPrincipal, mapPath: string, id: string): Promise<{ secret: string }> {
    const map = await this.access.byPath(principal, mapPath);
    const secret = newSecret();
    await this.db.transaction(async (tx) => {
      const current = await this.editable(tx, map, id);
      await this.subs.bumpMap(tx, map.id);
      await this.subs.update(tx, current.id, { secretEncrypted: this.box.encrypt(secret) });
    });
    return { secret };
  }

  /** The attempt log of one subscription, newest first. */
  async attempts(
    principal: MapKeyPrincipal,
    mapPath: string,
    id: string,
    q: { outcome?: string | undefined; before?: number | undefined; limit: number },
  ): Promise<DeliveryAttemptsPage> {
    const map = await this.access.byPath(principal, mapPath);
    const sub = await this.find(this.db, map, id);
    if (q.outcome !== undefined && q.outcome !== 'success' && q.outcome !== 'failure') {
      throw new ValidationError([{ field: 'outcome', message: 'must be success or failure' }]);
    }
    const data = await this.deliveries.attempts(this.db, sub.id, { outcome: q.outcome as 'success' | 'failure' | undefined, before: q.before, limit: q.limit });
    return { data, next_before: data.length === q.limit ? data.at(-1)!.id : null };
  }

  /** Queues the event again for this subscription (a new series of attempts, sent at once). */
  async redeliver(principal: MapKeyPrincipal, mapPath: string, id: string, eventId: string): Promise<QueuedDeliveryDto> {
    const map = await this.access.byPath(principal, mapPath);
    const canonical = typeof eventId === 'string' ? parseEventId(eventId) : undefined;
    if (!canonical) throw new BadRequestError('invalid_event_id', '`event_id` must be a ULID', [{ field: 'event_id', message: 'must be a ULID' }]);
    const sub = await this.find(this.db, map, id);
    const event = await this.events.byId(map.id, canonical);
    if (!event) throw new NotFoundError('Event not found (unknown, of another map, or past the event log retention)', 'event_not_found');
    if (!matchesFilter(parseEventFilter(sub.events), event.type)) {
      throw new ConflictError('event_not_subscribed', `This subscription does not receive ${event.type} events (its events: ${sub.events.join(', ')})`);
    }
    await this.deliveries.requeue(this.db, {
      subscriptionId: sub.id,
      mapId: map.id,
      eventId: event.id,
      eventType: event.type,
      eventAtMs: Date.parse(event.ts),
      body: serializeEnvelope(event),
    });
    return { event_id: event.id, event_type: event.type, subscription_id: sub.id, state: 'pending' };
  }

  /** Sends one signed `ping` event now and answers with the attempt's outcome (also in the attempt log). */
  async ping(principal: MapKeyPrincipal, mapPath: string, id: string): Promise<PingResultDto> {
    const map = await this.access.byPath(principal, mapPath);
    const sub = await this.find(this.db, map, id);
    if (!this.opts.sender) throw new AppError(503, 'webhooks_not_served', 'This process does not send webhooks');
    const event = {
      id: ulid(),
      type: 'ping',
      map_id: map.id,
      ts: new Date().toISOString(),
      payload: { subscription_id: sub.id, message: 'Test delivery from mapintel' },
    };
    const attemptedAt = new Date();
    const r = await this.opts.sender.send({
      url: sub.url,
      secret: this.box.decrypt(sub.secret_encrypted),
      body: JSON.stringify(event),
      eventId: event.id,
      eventType: 'ping',
      attempt: 1,
    });
    await this.deliveries.logAttempts(this.db, [
      { subscriptionId: sub.id, eventId: event.id, eventType: 'ping', attempt: 1, attemptedAt, result: r, nextAttemptAt: null },
    ]);
    return {
      event_id: event.id,
      status: r.status,
      duration_ms: r.durationMs,
      outcome: r.ok ? 'success' : 'failure',
      error_class: r.errorClass,
      error: r.error,
    };
  }

  // --- subscriptions owned by a managing resource (the Kubernetes operator) ---

  /** Creates or updates the subscription of `spec.managedBy`; `created` tells which. A dry run (DryRunDone) changes nothing. */
  async applyManaged(spec: ManagedSubscriptionSpec, opts: { dryRun?: boolean } = {}): Promise<Applied> {
    const events = normalizeEvents(spec.events);
    const url = await this.checkedUrl(spec.url);
    // A dry run refuses what applying would refuse, and changes nothing: its transaction is rolled back.
    const done = (err: unknown) => (err instanceof DryRunDone ? err.result : Promise.reject(err));
    return this.db
      .transaction(async (tx) => {
        const result = await this.applyManagedIn(tx, spec, url, events);
        if (opts.dryRun) throw new DryRunDone(result);
        return result;
      })
      .catch(done);
  }

  private async applyManagedIn(tx: Db, spec: ManagedSubscriptionSpec, url: string, events: string[]): Promise<Applied> {
    const map = await this.maps.byReference(tx, spec.map);
    if (!map) throw new NotFoundError(`Map not found: ${spec.map}`, 'map_not_found');
    await this.subs.bumpMap(tx, map.id);
    const current = await this.subs.byManagedBy(tx, spec.managedBy);
    if (current && current.map_id !== map.id) {
      // The resource now names another map: the old subscription goes, a new one is made.
      await this.subs.bumpMap(tx, current.map_id);
      await this.subs.remove(tx, current.id);
    }
    const keep = current && current.map_id === map.id ? current : undefined;
    if (keep) {
      if (url !== keep.url && (await this.subs.urlTaken(tx, map.id, url, keep.id))) throw this.urlTaken();
      const secretChanged = this.box.decrypt(keep.secret_encrypted) !== spec.secret;
      await this.subs.update(tx, keep.id, { url, events, active: spec.active, ...(secretChanged ? { secretEncrypted: this.box.encrypt(spec.secret) } : {}) });
      if (!spec.active) await this.deliveries.dropPending(tx, keep.id);
      return { subscription: toSubscription((await this.subs.byId(tx, map.id, keep.id))!), created: false };
    }
    const id = await this.insertNew(tx, { mapId: map.id, url, events, active: spec.active, secret: spec.secret, managedBy: spec.managedBy });
    return { subscription: toSubscription((await this.subs.byId(tx, map.id, id))!), created: true };
  }

  /** Removes the subscription of `managedBy`; false when there was none. */
  async removeManaged(managedBy: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const current = await this.subs.byManagedBy(tx, managedBy);
      if (!current) return false;
      await this.subs.bumpMap(tx, current.map_id);
      return this.subs.remove(tx, current.id);
    });
  }

  async getManaged(managedBy: string): Promise<WebhookSubscription | undefined> {
    const row = await this.subs.byManagedBy(this.db, managedBy);
    return row && toSubscription(row);
  }

  /** Every managed subscription whose managed_by starts with the prefix (default: Kubernetes ones). */
  async listManaged(prefix = 'kubernetes:'): Promise<WebhookSubscription[]> {
    return (await this.subs.listManaged(this.db, prefix)).map(toSubscription);
  }

  // --- helpers ---

  private async checkedUrl(text: string): Promise<string> {
    if (typeof text !== 'string') throw new ValidationError([{ field: 'url', message: 'must be a string' }]);
    try {
      const url = givenUrl(text);
      await checkUrl(url, { allowInsecure: this.opts.allowInsecureUrls, ...(this.opts.resolve ? { resolve: this.opts.resolve } : {}) });
      return url;
    } catch (err) {
      if (err instanceof UnsafeUrlError) {
        const hint = err.insecureSettingAllows ? `; ${INSECURE_URLS_HINT}` : '';
        throw new BadRequestError('invalid_webhook_url', `Webhook URL refused: ${err.message}${hint}`, [{ field: 'url', message: err.message }]);
      }
      throw err;
    }
  }

  /** A new subscription within the map's limit (the caller holds the map's webhook version). */
  private async insertNew(
    tx: Db,
    s: { mapId: string; url: string; events: string[]; active: boolean; secret: string; managedBy: string | null },
  ): Promise<string> {
    if ((await this.subs.count(tx, s.mapId)) >= MAX_SUBSCRIPTIONS_PER_MAP) {
      throw new ConflictError('webhook_limit_reached', `A map has at most ${MAX_SUBSCRIPTIONS_PER_MAP} webhook subscriptions`);
    }
    const id = await this.subs.insert(tx, {
      mapId: s.mapId,
      url: s.url,
      events: s.events,
      active: s.active,
      secretEncrypted: this.box.encrypt(s.secret),
      managedBy: s.managedBy,
    });
    if (!id) throw this.urlTaken();
    return id;
  }

  private urlTaken(): ConflictError {
    return new ConflictError('webhook_url_exists', 'This map already has a webhook subscription for that URL');
  }

  private async find(db: Db, map: MapRef, id: string): Promise<SubscriptionRow> {
    const row = UUID_RE.test(id) ? await this.subs.byId(db, map.id, id.toLowerCase()) : undefined;
    if (!row) throw new NotFoundError('Webhook not found', 'webhook_not_found');
    return row;
  }

  /** The subscription, when the API may change it (not one owned by a Kubernetes resource). */
  private async editable(db: Db, map: MapRef, id: string): Promise<SubscriptionRow> {
    const row = await this.find(db, map, id);
    if (row.managed_by) {
      throw new ConflictError('managed_by_kubernetes', `This subscription is managed by ${row.managed_by}; change that resource instead`);
    }
    return row;
  }
}
