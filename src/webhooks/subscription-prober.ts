import { ulid } from 'ulid';
import type { Db } from '../db/db.js';
import type { SecretBox } from '../common/crypto.js';
import type { Logger } from '../common/log.js';
import { parseEventFilter } from '../events/event-filter.js';
import { EventLogService } from '../maps/event-log/event-log.service.js';
import type { WebhookSender } from './sender.js';
import { serializeEnvelope, type DeliveryRepository } from './delivery.repository.js';
import { RedeliveryRepository } from './redelivery.repository.js';
import type { SubscriptionRepository } from './subscription.repository.js';
import type { WebhookMetrics } from './webhook.metrics.js';
import type { WebhookNoticeRepository } from './webhook-notices.repository.js';

/** Probes are given up this long after the disable: a receiver gone for more than a day needs its owner. */
export const PROBE_FOR_MS = 86_400_000;
/** Probes due that one worker takes per round. */
const PROBES_PER_ROUND = 20;
/** Events a resume delivers at most (those a recover would). */
const RESUME_MAX_EVENTS = 10_000;

export interface SubscriptionProberOptions {
  db: Db;
  box: SecretBox;
  sender: WebhookSender;
  deliveries: DeliveryRepository;
  subs: SubscriptionRepository;
  metrics: WebhookMetrics;
  log: Logger;
  /** Waits after the disable before the first probe, then between probes; the last repeats. */
  probeWaitsMs: readonly number[];
  notices: WebhookNoticeRepository;
}

interface DueProbe {
  id: string;
  map_id: string;
  url: string;
  secret_encrypted: string;
  events: string[];
  probe_step: number;
  resume_since_ms: number | null;
  disabled_at_ms: number;
}

/**
 * Resume by itself (docs/decisions/0011-webhooks-for-integrators.md): a subscription disabled after
 * failures (not one its owner switched off, not one that answered 410) is probed with a signed `ping`
 * at growing intervals (`probeWaitsMs`) for a day after the disable. When the receiver answers 2xx the
 * subscription is active again and the events it missed since its oldest undelivered one (within the
 * event log's retention, at most 10,000) are queued in event order.
 */
export class SubscriptionProber {
  private readonly redeliveries = new RedeliveryRepository();

  constructor(private readonly o: SubscriptionProberOptions) {}

  /** Probes the subscriptions whose probe is due; returns how many were probed. */
  async round(): Promise<number> {
    const due = await this.take();
    for (const p of due) await this.probe(p);
    return due.length;
  }

  /**
   * The due probes, each moved a minute on under the row lock first, so another worker's round skips it
   * (and, should this worker die mid-probe, probes it a minute later).
   */
  private async take(): Promise<DueProbe[]> {
    return this.o.db.allBound<DueProbe>(
      `update webhook_subscriptions s set probe_at = now() + interval '1 minute'
       from (select id from webhook_subscriptions where probe_at <= now() and not active and disabled_reason = 'failures'
             order by probe_at limit $1 for update skip locked) due
       where s.id = due.id
       returning s.id, s.map_id, s.url, s.secret_encrypted, s.events, s.probe_step,
         (extract(epoch from s.resume_since) * 1000)::float8 as resume_since_ms, (extract(epoch from s.disabled_at) * 1000)::float8 as disabled_at_ms`,
      [PROBES_PER_ROUND],
    );
  }

  private async probe(p: DueProbe): Promise<void> {
    const event = {
      id: ulid(),
      type: 'ping',
      map_id: p.map_id,
      ts: new Date().toISOString(),
      payload: { subscription_id: p.id, message: 'Probe from mapintel: this subscription was disabled after failures; a 2xx answer resumes it' },
    };
    const attemptedAt = new Date();
    const result = await this.o.sender.send({
      url: p.url,
      secret: this.o.box.decrypt(p.secret_encrypted),
      body: JSON.stringify(event),
      eventId: event.id,
      eventType: 'ping',
      attempt: p.probe_step + 1,
    });
    this.o.metrics.probes.inc({ outcome: result.ok ? 'success' : 'failure' });
    await this.o.deliveries.log.add(this.o.db, [
      { subscriptionId: p.id, eventId: event.id, eventType: 'ping', attempt: p.probe_step + 1, attemptedAt, result, nextAttemptAt: null },
    ]);
    if (result.ok) return this.resume(p);
    const waits = this.o.probeWaitsMs;
    const next = Date.now() + waits[Math.min(p.probe_step + 1, waits.length - 1)]!;
    // Past a day after the disable: no more probes; the owner sets it active again.
    const nextAt = next > p.disabled_at_ms + PROBE_FOR_MS ? null : next;
    await this.o.subs.scheduleProbe(this.o.db, p.id, nextAt, p.probe_step + 1);
    this.o.log.info({ subscription: p.id, probe: p.probe_step + 1, error: result.error, nextProbeAt: nextAt && new Date(nextAt) }, 'webhook probe failed');
  }

  /** Active again, and the events it missed queued in event order. */
  private async resume(p: DueProbe): Promise<void> {
    const filter = parseEventFilter(p.events);
    const since = new Date(p.resume_since_ms ?? p.disabled_at_ms);
    let missed = 0;
    const resumed = await this.o.db.transaction(async (tx) => {
      if (!(await this.o.subs.resume(tx, p.id))) return false;
      await this.o.subs.bumpMap(tx, p.map_id);
      // Read after the subscription is active again: later events are planned as they come.
      const events = await new EventLogService(tx).listSince(p.map_id, since, filter.all ? null : [...filter.types], RESUME_MAX_EVENTS);
      missed = events.length;
      const known = await this.o.deliveries.log.sequencesOf(
        tx,
        p.id,
        events.map((e) => e.id),
      );
      await this.redeliveries.requeue(
        tx,
        p.id,
        events.map((e) => ({
          subscriptionId: p.id,
          mapId: e.map_id,
          eventId: e.id,
          eventType: e.type,
          eventAtMs: Date.parse(e.ts),
          body: serializeEnvelope(e),
        })),
        { recovered: false, known },
      );
      await this.o.notices.add(tx, [
        { mapId: p.map_id, kind: 'webhook_recovered', payload: { subscription_id: p.id, missed_events: events.length, since: since.toISOString() } },
      ]);
      return true;
    });
    if (!resumed) return;
    this.o.metrics.resumed.inc();
    this.o.log.info({ subscription: p.id, missed, since }, 'webhook subscription resumed: a probe succeeded');
  }
}
