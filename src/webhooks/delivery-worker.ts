import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.js';
import type { SecretBox } from '../common/crypto.js';
import type { Logger } from '../common/log.js';
import type { EventConsumer } from '../events/transport/types.js';
import type { WebhookSender } from './sender.js';
import { DeliveryRepository, type ClaimedDelivery } from './delivery.repository.js';
import { SubscriptionRepository } from './subscription.repository.js';
import type { WebhookMetrics } from './webhook.metrics.js';
import { DeliveryPlanner } from './delivery-planner.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { holdOf, OutcomeRecorder, outcomeOf } from './outcome-recorder.js';
import { SubscriptionProber } from './subscription-prober.js';
import { WebhookNoticeRepository } from './webhook-notices.repository.js';
import { sleep } from './sleep.js';

export interface DeliveryWorkerOptions {
  db: Db;
  box: SecretBox;
  consumer: EventConsumer;
  sender: WebhookSender;
  log: Logger;
  metrics: WebhookMetrics;
  /** Waits before attempts 2, 3, … (ms). */
  retryWaitsMs: readonly number[];
  /** Waits between the probes of a subscription disabled after failures (ms; subscription-prober.ts). */
  probeWaitsMs?: readonly number[];
  disableAfter: number;
  /** Attempts in flight in this worker. */
  concurrency: number;
  /** Attempts in flight per subscription in this worker. */
  perSubscription: number;
  /** Attempts in flight per map in this worker. */
  perMap: number;
  /** A leased delivery whose worker vanished is taken over after this long (must exceed the request timeout). */
  leaseMs: number;
  /** The sender's timeout: a leased delivery starts only while its lease outlasts an attempt by a second. */
  attemptTimeoutMs: number;
  /** Safety poll for due retries and for deliveries queued by other workers. */
  pollMs: number;
  attemptsRetentionDays: number;
}

const SWEEP_EVERY_MS = 5 * 60_000;
/** How often a worker looks for due probes of subscriptions disabled after failures. */
const PROBE_EVERY_MS = 1_000;
const DEFAULT_PROBE_WAITS_MS = [60_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000];

/**
 * Webhook delivery, at least once, with PostgreSQL as the source of truth. Three parts, each in a file
 * of its own:
 * - the planner (delivery-planner.ts) reads committed events through a durable consumer (its position
 *   in PostgreSQL, Redis or the in-process tail as the fast path) and queues one delivery per event and
 *   matching subscription (`webhook_deliveries`, unique per pair, so replays and other workers add
 *   nothing);
 * - the dispatcher (delivery-dispatcher.ts) leases due deliveries (checked again under the row lock, a lease
 *   per row) within the worker's and each subscription's concurrency (subscription-slots.ts) and starts
 *   their attempts;
 * - the recorder (outcome-recorder.ts) records each attempt's outcome, the attempt log and the
 *   subscription's state in batches.
 * This class sends (`attempt`) and runs the three. A worker that dies leaves leases that expire: another
 * worker (or the same one restarted) sends those deliveries again.
 */
export class DeliveryWorker {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly deliveries = new DeliveryRepository();
  private readonly notices = new WebhookNoticeRepository();
  private readonly planner: DeliveryPlanner;
  private readonly dispatcher: DeliveryDispatcher;
  private readonly recorder: OutcomeRecorder;
  private readonly prober: SubscriptionProber;
  private readonly secrets = new Map<string, string>();
  private running = false;
  private loops: Promise<void>[] = [];
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly o: DeliveryWorkerOptions) {
    const running = () => this.running;
    const common = { db: o.db, deliveries: this.deliveries, metrics: o.metrics, log: o.log, owner: this.owner };
    this.dispatcher = new DeliveryDispatcher({
      ...common,
      concurrency: o.concurrency,
      perSubscription: o.perSubscription,
      perMap: o.perMap,
      leaseMs: o.leaseMs,
      attemptTimeoutMs: o.attemptTimeoutMs,
      pollMs: o.pollMs,
      running,
      attempt: (d) => this.attempt(d),
    });
    this.planner = new DeliveryPlanner({ ...common, consumer: o.consumer, leaseMs: o.leaseMs, running }, this.dispatcher);
    const subs = new SubscriptionRepository();
    const probeWaitsMs = o.probeWaitsMs ?? DEFAULT_PROBE_WAITS_MS;
    const notices = this.notices;
    this.recorder = new OutcomeRecorder({ ...common, subs, disableAfter: o.disableAfter, retryWaitsMs: o.retryWaitsMs, probeWaitsMs, notices });
    this.prober = new SubscriptionProber({
      db: o.db,
      box: o.box,
      sender: o.sender,
      deliveries: this.deliveries,
      subs,
      metrics: o.metrics,
      log: o.log,
      probeWaitsMs,
      notices,
    });
  }

  start(): void {
    this.running = true;
    this.loops = [this.planner.loop(), this.dispatcher.loop(), this.recorder.loop(() => !this.running && this.dispatcher.attempts.size === 0)];
    this.timers.push(setInterval(() => void this.sweep(), SWEEP_EVERY_MS));
    this.loops.push(this.probeLoop());
    for (const t of this.timers) t.unref();
  }

  /** Stops taking work, lets attempts in flight finish (until `deadline`), records them. */
  async stop(deadline: number): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    const left = () => sleep(Math.max(0, deadline - Date.now()));
    // Ends the planning loop's wait for events; what it was handed and did not plan keeps its position
    // unmoved, so the next start reads it again.
    await this.o.consumer.close();
    this.dispatcher.forgetQueued();
    this.dispatcher.wake();
    await this.dispatcher.releaseReady();
    await Promise.race([Promise.allSettled([...this.dispatcher.attempts]), left()]);
    this.recorder.flushNow();
    await Promise.race([Promise.allSettled([...this.loops, this.planner.positionsMoved()]), left()]);
    await Promise.race([Promise.allSettled([...this.dispatcher.givingBack]), left()]);
    this.o.sender.close();
  }

  /** One attempt of a leased delivery: sent, counted, and handed to the recorder. */
  private async attempt(d: ClaimedDelivery): Promise<void> {
    // Counted when the delivery was leased (delivery.repository.ts): this attempt's number.
    const attempt = d.attempts;
    const attemptedAt = new Date();
    const result = await this.o.sender.send({
      url: d.url,
      secret: this.secret(d.secret_encrypted),
      body: d.body,
      eventId: d.event_id,
      eventType: d.event_type,
      attempt,
      sequence: d.sequence,
    });
    const m = this.o.metrics;
    m.deliveries.inc({ outcome: result.ok ? 'success' : 'failure', status_class: result.status === null ? 'none' : `${Math.floor(result.status / 100)}xx` });
    m.attemptDuration.observe(result.durationMs / 1000);
    if (result.ok) {
      this.dispatcher.slots.succeeded(d.subscription_id, Date.now(), result.durationMs);
      m.eventToDelivered.observe(Math.max(0, Date.now() - d.event_at_ms) / 1000);
    } else {
      this.dispatcher.slots.failed(d.subscription_id);
      const until = holdOf(result, attemptedAt, this.o.retryWaitsMs);
      if (until !== undefined) this.dispatcher.slots.hold(d.subscription_id, until);
    }
    this.recorder.add({ delivery: d, attempt, attemptedAt, result, outcome: outcomeOf(d, attempt, result, this.o.retryWaitsMs) });
  }

  private secret(encrypted: string): string {
    let s = this.secrets.get(encrypted);
    if (s === undefined) {
      s = this.o.box.decrypt(encrypted);
      if (this.secrets.size > 10_000) this.secrets.clear();
      this.secrets.set(encrypted, s);
    }
    return s;
  }

  /** Probes of subscriptions disabled after failures, one round at a time while the worker runs. */
  private async probeLoop(): Promise<void> {
    while (this.running) {
      try {
        await this.prober.round();
      } catch (err) {
        this.o.log.warn({ err }, 'probing disabled webhook subscriptions failed; retrying');
      }
      if (this.running) await sleep(PROBE_EVERY_MS);
    }
  }

  private async sweep(): Promise<void> {
    try {
      const n = (await this.deliveries.prune(this.o.db, this.o.attemptsRetentionDays)) + (await this.notices.prune(this.o.db));
      if (n) this.o.log.info({ deleted: n }, 'pruned the webhook attempt log');
    } catch (err) {
      this.o.log.warn({ err }, 'pruning the webhook attempt log failed');
    }
  }
}
