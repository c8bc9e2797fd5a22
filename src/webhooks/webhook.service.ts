import { ulid } from 'ulid';
import type { Db } from '../db/db.js';
import type { SecretBox } from '../common/crypto.js';
import { AppError, BadRequestError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../common/errors.js';
import type { MapKeyPrincipal } from '../http/principal.js';
import { MapAccess, type MapRef } from '../maps/map-access.js';
import { UUID_RE } from '../db/sql.js';
import { matchesFilter, parseEventFilter } from '../events/event-filter.js';
import { parseEventId } from '../events/envelope.js';
import { EventLogService } from '../maps/event-log/event-log.service.js';
import type { Resolve } from './url-guard.js';
import { SubscriptionRepository, type SubscriptionRow } from './subscription.repository.js';
import { DeliveryRepository, serializeEnvelope, type PlannedDelivery } from './delivery.repository.js';
import { RedeliveryRepository } from './redelivery.repository.js';
import type { EventEnvelope } from '../events/envelope.js';
import { ManagedWebhookService } from './managed-webhooks.service.js';
import { toDto, type WebhookSubscription } from './webhook.presenters.js';
import { checkedUrl, insertSubscription, newSecret, normalizeEvents, urlTakenError } from './subscription-rules.js';
import type { WebhookSender } from './sender.js';
import type {
  CreatedWebhookSubscriptionDto,
  CreateWebhookRequest,
  DeliveryAttemptsPage,
  PingResultDto,
  QueuedDeliveryDto,
  RecoverResultDto,
  WebhookStatsDto,
  UpdateWebhookRequest,
  WebhookSubscriptionDto,
} from './webhook.dto.js';

// Kept importable from here, where the operator and the tests have always found them.
export { MAX_SUBSCRIPTIONS_PER_MAP, newSecret, normalizeEvents } from './subscription-rules.js';
export { toDto, type WebhookSubscription } from './webhook.presenters.js';
export type { ManagedPlan, ManagedSubscriptionSpec } from './managed-webhooks.service.js';

/** Events a recover delivers at most. */
export const RECOVER_MAX_EVENTS = 10_000;
const DEFAULT_EVENTS_RETENTION_MS = 7 * 86_400_000;
/** The windows of the stats route, in seconds. */
const STATS_WINDOWS: Record<string, number | undefined> = { '5m': 300, '1h': 3_600, '24h': 86_400 };

/** A delivery of the event to the subscription, as planning makes one. */
function plannedOf(subscriptionId: string, e: EventEnvelope): PlannedDelivery {
  return { subscriptionId, mapId: e.map_id, eventId: e.id, eventType: e.type, eventAtMs: Date.parse(e.ts), body: serializeEnvelope(e) };
}

export interface WebhookServiceOptions {
  /** How long the event log keeps events (EVENTS_RETENTION_DAYS): the oldest `since` a recover takes. */
  eventsRetentionMs?: number;
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
    private readonly managed = new ManagedWebhookService(db, box, opts, subs, deliveries),
    private readonly redeliveries = new RedeliveryRepository(),
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
    const url = await checkedUrl(fields.url, this.opts);
    const secret = newSecret();
    const row = await this.db.transaction(async (tx) => {
      await this.subs.bumpMap(tx, map.id);
      const id = await insertSubscription(tx, this.subs, this.box, { mapId: map.id, url, events, active: fields.active ?? true, secret, managedBy: null });
      return (await this.subs.byId(tx, map.id, id))!;
    });
    return { ...toDto(row), secret };
  }

  async update(principal: MapKeyPrincipal, mapPath: string, id: string, fields: UpdateWebhookRequest): Promise<WebhookSubscriptionDto> {
    const map = await this.access.byPath(principal, mapPath);
    const events = fields.events !== undefined ? normalizeEvents(fields.events) : undefined;
    const url = fields.url !== undefined ? await checkedUrl(fields.url, this.opts) : undefined;
    return toDto(
      await this.db.transaction(async (tx) => {
        const current = await this.editable(tx, map, id);
        await this.subs.bumpMap(tx, map.id);
        if (url !== undefined && url !== current.url && (await this.subs.urlTaken(tx, map.id, url, current.id))) throw urlTakenError();
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
    const data = await this.deliveries.log.page(this.db, sub.id, { outcome: q.outcome as 'success' | 'failure' | undefined, before: q.before, limit: q.limit });
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
    await this.db.transaction(async (tx) => {
      const known = await this.deliveries.log.sequencesOf(tx, sub.id, [event.id]);
      await this.redeliveries.requeue(tx, sub.id, [plannedOf(sub.id, event)], { recovered: false, known });
    });
    return { event_id: event.id, event_type: event.type, subscription_id: sub.id, state: 'pending' };
  }

  /**
   * Delivers again, in event order, every event of the map committed after `since` that the subscription
   * receives (decisions 0011): 400 when `since` is older than the event log's retention or more than
   * RECOVER_MAX_EVENTS match, 409 while an earlier recover still has deliveries waiting.
   */
  async recover(principal: MapKeyPrincipal, mapPath: string, id: string, since: Date): Promise<RecoverResultDto> {
    const map = await this.access.byPath(principal, mapPath);
    const sub = await this.find(this.db, map, id);
    const oldest = new Date(Date.now() - (this.opts.eventsRetentionMs ?? DEFAULT_EVENTS_RETENTION_MS));
    if (since.getTime() < oldest.getTime()) {
      const at = oldest.toISOString();
      throw new BadRequestError('recover_since_too_old', `\`since\` is older than the event log holds; the oldest time available is ${at}`, [
        { field: 'since', message: `must be ${at} or later` },
      ]);
    }
    if (!sub.active) throw new ConflictError('webhook_inactive', 'This subscription is switched off; set it active before recovering');
    const filter = parseEventFilter(sub.events);
    const events = await this.events.listSince(map.id, since, filter.all ? null : [...filter.types], RECOVER_MAX_EVENTS + 1);
    if (events.length > RECOVER_MAX_EVENTS) {
      throw new BadRequestError(
        'recover_too_many_events',
        `More than ${RECOVER_MAX_EVENTS} events match since ${since.toISOString()}; recover from a later time`,
        [{ field: 'since', message: `more than ${RECOVER_MAX_EVENTS} events match` }],
      );
    }
    await this.db.transaction(async (tx) => {
      // One recover per subscription at a time: the lock orders two requests, the pending rows tell.
      await this.redeliveries.lockRecover(tx, sub.id);
      if (await this.redeliveries.recovering(tx, sub.id)) {
        throw new ConflictError('recover_in_progress', 'A recover of this subscription is still delivering; try again once it is done');
      }
      const known = await this.deliveries.log.sequencesOf(
        tx,
        sub.id,
        events.map((e) => e.id),
      );
      await this.redeliveries.requeue(
        tx,
        sub.id,
        events.map((e) => plannedOf(sub.id, e)),
        { recovered: true, known },
      );
    });
    return { events: events.length };
  }

  /** The subscription's health over the last `window` (5m, 1h or 24h), from its attempt log. */
  async stats(principal: MapKeyPrincipal, mapPath: string, id: string, window: string | undefined): Promise<WebhookStatsDto> {
    const map = await this.access.byPath(principal, mapPath);
    const seconds = STATS_WINDOWS[window ?? '1h'];
    if (seconds === undefined) throw new ValidationError([{ field: 'window', message: `must be one of ${Object.keys(STATS_WINDOWS).join(', ')}` }]);
    const sub = await this.find(this.db, map, id);
    return this.deliveries.log.stats(this.db, sub.id, seconds);
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
    await this.deliveries.log.add(this.db, [
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

  // --- subscriptions owned by a managing resource (the Kubernetes operator; managed-webhooks.service.ts) ---

  applyManaged(...args: Parameters<ManagedWebhookService['applyManaged']>): ReturnType<ManagedWebhookService['applyManaged']> {
    return this.managed.applyManaged(...args);
  }

  planManaged(...args: Parameters<ManagedWebhookService['planManaged']>): ReturnType<ManagedWebhookService['planManaged']> {
    return this.managed.planManaged(...args);
  }

  removeManaged(managedBy: string): Promise<boolean> {
    return this.managed.removeManaged(managedBy);
  }

  getManaged(managedBy: string): Promise<WebhookSubscription | undefined> {
    return this.managed.getManaged(managedBy);
  }

  listManaged(prefix?: string): Promise<WebhookSubscription[]> {
    return this.managed.listManaged(prefix);
  }

  // --- helpers ---

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
