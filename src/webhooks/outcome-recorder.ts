import type { Db } from '../db/db.js';
import type { Logger } from '../common/log.js';
import { Alarm } from '../events/alarm.js';
import { DEFAULT_RETRY_WAITS_MS, longestWaitMs, nextWaitMs } from './retry-schedule.js';
import type { AttemptResult } from './sender.js';
import type { ClaimedDelivery, DeliveryOutcome, DeliveryRepository } from './delivery.repository.js';
import type { AttemptLogEntry } from './attempt-log.repository.js';
import type { WebhookNotice, WebhookNoticeRepository } from './webhook-notices.repository.js';
import type { SubscriptionRepository } from './subscription.repository.js';
import type { WebhookMetrics } from './webhook.metrics.js';
import { sleep } from './sleep.js';

const FLUSH_EVERY_MS = 20;
const FLUSH_MAX = 500;

/** An attempt made, with what it means for its delivery. */
export interface Finished {
  delivery: ClaimedDelivery;
  attempt: number;
  attemptedAt: Date;
  result: AttemptResult;
  outcome: DeliveryOutcome;
}

/**
 * What an attempt means for its delivery: delivered; failed for good (410 Gone, or the last of the
 * retry schedule); or due again after the schedule's next wait (or the receiver's Retry-After).
 */
export function outcomeOf(d: ClaimedDelivery, attempt: number, result: AttemptResult, retryWaitsMs: readonly number[], now = Date.now()): DeliveryOutcome {
  const ended = { id: d.id, attempts: attempt, lastStatus: result.status };
  if (result.ok) return { ...ended, state: 'delivered', nextAttemptAtMs: null, lastError: null };
  if (result.gone) return { ...ended, state: 'failed', nextAttemptAtMs: null, lastError: result.error };
  const wait = nextWaitMs(attempt, { waits: retryWaitsMs, retryAfterMs: result.retryAfterMs });
  return wait === null
    ? { ...ended, state: 'failed', nextAttemptAtMs: null, lastError: result.error }
    : { ...ended, state: 'pending', nextAttemptAtMs: now + wait, lastError: result.error };
}

export interface OutcomeRecorderOptions {
  db: Db;
  /** The worker's lease owner: outcomes are recorded only for deliveries it still holds. */
  owner: string;
  deliveries: DeliveryRepository;
  subs: SubscriptionRepository;
  metrics: WebhookMetrics;
  log: Logger;
  /** Events in a row that exhaust every attempt before a subscription is switched off. */
  disableAfter: number;
  /** The retry schedule, whose longest wait caps a receiver's Retry-After. */
  retryWaitsMs?: readonly number[];
  /** Waits between the probes of a subscription disabled after failures (the first after the disable). */
  probeWaitsMs?: readonly number[];
  /** Where the owner's notices go (the map's streams read them). */
  notices: WebhookNoticeRepository;
}

/**
 * The notices of a recorded batch, in the order the owner reads them: every warning, then every
 * disable (one after a 410 preceded by its own 90 % warning), so no disable comes without one before.
 */
export function noticesOf(
  warnings: readonly { id: string; level: number; failures: number; mapId: string; error: string | null }[],
  disabled: readonly { id: string; reason: 'gone' | 'failures'; mapId: string; error: string | null }[],
  disableAfter: number,
): WebhookNotice[] {
  const failing = (w: { id: string; level: number; failures: number; mapId: string; error: string | null }): WebhookNotice => ({
    mapId: w.mapId,
    kind: 'webhook_failing',
    payload: { subscription_id: w.id, level: w.level, consecutive_failures: w.failures, disable_after: disableAfter, last_error: w.error },
  });
  return [
    ...warnings.map(failing),
    ...disabled.flatMap((d) => [
      ...(d.reason === 'gone' ? [failing({ id: d.id, level: 90, failures: 0, mapId: d.mapId, error: d.error })] : []),
      { mapId: d.mapId, kind: 'webhook_disabled' as const, payload: { subscription_id: d.id, reason: d.reason, last_error: d.error } },
    ]),
  ];
}

/**
 * Until when a receiver's Retry-After (on 429 or 503) holds its subscription's attempts, in epoch ms, or
 * undefined when it asked for no wait: at most the retry schedule's longest wait.
 */
export function holdOf(result: AttemptResult, attemptedAt: Date, retryWaitsMs: readonly number[]): number | undefined {
  if (result.ok || result.retryAfterMs === undefined || result.retryAfterMs <= 0) return undefined;
  return attemptedAt.getTime() + result.durationMs + Math.min(result.retryAfterMs, longestWaitMs(retryWaitsMs));
}

/**
 * Records finished attempts in batches (every FLUSH_EVERY_MS, or at once when FLUSH_MAX are waiting):
 * each delivery's outcome, the attempt log, and the subscription's state (last success, last error,
 * switched off after 410 Gone or `disableAfter` exhausted events). The usual batch, successes only, is
 * one statement; a batch with failures is one transaction. A batch that cannot be recorded is kept for
 * the next round; if the worker dies first, the leases expire and the attempts are made again.
 */
export class OutcomeRecorder {
  private finished: Finished[] = [];
  private readonly alarm = new Alarm();

  constructor(private readonly o: OutcomeRecorderOptions) {}

  get pending(): number {
    return this.finished.length;
  }

  add(f: Finished): void {
    this.finished.push(f);
    if (this.finished.length >= FLUSH_MAX) this.alarm.ring();
  }

  /** Records what is waiting now instead of at the next interval. */
  flushNow(): void {
    this.alarm.ring();
  }

  /** Records batches until `done()` says nothing more will come and nothing is left. */
  async loop(done: () => boolean): Promise<void> {
    for (;;) {
      await this.alarm.sleep(FLUSH_EVERY_MS);
      if (this.finished.length) {
        const batch = this.finished;
        this.finished = [];
        try {
          await this.record(batch);
        } catch (err) {
          this.o.log.error({ err, attempts: batch.length }, 'recording webhook attempts failed; retrying');
          this.finished = batch.concat(this.finished);
          await sleep(500);
        }
      }
      if (this.finished.length === 0 && done()) return;
    }
  }

  async record(batch: readonly Finished[]): Promise<void> {
    const log: AttemptLogEntry[] = batch.map((f) => ({
      subscriptionId: f.delivery.subscription_id,
      eventId: f.delivery.event_id,
      eventType: f.delivery.event_type,
      attempt: f.attempt,
      attemptedAt: f.attemptedAt,
      result: f.result,
      nextAttemptAt: f.outcome.nextAttemptAtMs === null ? null : new Date(f.outcome.nextAttemptAtMs),
      sequence: f.delivery.sequence,
      recovered: f.delivery.recovered,
    }));
    const succeeded = [...new Set(batch.filter((f) => f.result.ok).map((f) => f.delivery.subscription_id))];
    // The usual batch: successes only, recorded in one statement (no transaction round trips).
    if (batch.every((f) => f.result.ok)) {
      await this.o.deliveries.recordSuccesses(
        this.o.db,
        this.o.owner,
        batch.map((f) => f.outcome),
        log,
        succeeded,
      );
      return;
    }
    const lastErrors = new Map<string, string>();
    for (const f of batch) if (!f.result.ok && f.result.error) lastErrors.set(f.delivery.subscription_id, f.result.error);
    const disabled: { id: string; reason: 'gone' | 'failures'; mapId: string; error: string | null }[] = [];
    const warnings: { id: string; level: number; failures: number; mapId: string; error: string | null }[] = [];
    const holds = new Map<string, number>();
    for (const f of batch) {
      const until = holdOf(f.result, f.attemptedAt, this.o.retryWaitsMs ?? DEFAULT_RETRY_WAITS_MS);
      const id = f.delivery.subscription_id;
      if (until !== undefined && until > (holds.get(id) ?? 0)) holds.set(id, until);
    }
    await this.o.db.transaction(async (tx) => {
      await this.o.deliveries.finish(
        tx,
        this.o.owner,
        batch.map((f) => f.outcome),
      );
      await this.o.deliveries.log.add(tx, log);
      await this.o.subs.recordSuccess(tx, succeeded);
      for (const [id, error] of lastErrors) await this.o.subs.recordError(tx, id, error);
      for (const f of batch) {
        const subId = f.delivery.subscription_id;
        if (f.result.gone) {
          if (await this.o.subs.disable(tx, subId, 'disabled: the receiver answered 410 Gone')) {
            disabled.push({ id: subId, reason: 'gone', mapId: f.delivery.map_id, error: f.result.error });
          }
        } else if (f.outcome.state === 'failed') {
          const error = `disabled after ${this.o.disableAfter} consecutive events failed every attempt; last: ${f.result.error ?? 'failure'}`;
          const r = await this.o.subs.recordExhausted(tx, subId, f.result.error ?? 'failure', this.o.disableAfter, this.o.probeWaitsMs?.[0] ?? 60_000);
          if (r.warned) warnings.push({ id: subId, level: r.warned, failures: r.failures, mapId: f.delivery.map_id, error: f.result.error });
          if (r.disabled) {
            await this.o.subs.recordError(tx, subId, error);
            disabled.push({ id: subId, reason: 'failures', mapId: f.delivery.map_id, error: f.result.error });
          }
        }
      }
      for (const d of disabled) {
        await this.o.deliveries.dropPending(tx, d.id);
        await this.o.subs.bumpMap(tx, d.mapId);
      }
      await this.o.notices.add(tx, noticesOf(warnings, disabled, this.o.disableAfter));
      // Last, so the queue state's rows are locked for the shortest time (planning takes them too).
      await this.o.deliveries.holdUntil(tx, holds);
    });
    // Warnings first: a subscription disabled by this batch was warned before (at 90 % at the latest).
    for (const w of warnings) {
      this.o.metrics.warnings.inc({ level: String(w.level) });
      this.o.log.warn(
        { subscription: w.id, level: w.level, consecutiveFailures: w.failures, disableAfter: this.o.disableAfter },
        'webhook subscription failing: disabled at the threshold',
      );
    }
    for (const d of disabled) {
      // A disable for failures was warned at 90 % before (at the latest in this batch: 90 % of the
      // threshold is reached no later than the threshold); a 410 disables at once, so its warning comes just before.
      if (d.reason === 'gone') {
        this.o.metrics.warnings.inc({ level: '90' });
        this.o.log.warn({ subscription: d.id, level: 90, reason: d.reason }, 'webhook subscription failing: disabled at the threshold');
      }
      this.o.metrics.disabled.inc({ reason: d.reason });
      this.o.log.warn({ subscription: d.id, reason: d.reason }, 'webhook subscription disabled');
    }
  }
}
