import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Metrics of webhook delivery, registered on the process's registry when the worker role starts. */
export interface WebhookMetrics {
  deliveries: Counter<'outcome' | 'status_class'>;
  attemptDuration: Histogram;
  eventToDelivered: Histogram;
  retryQueueDepth: Gauge;
  retryQueueOldestAge: Gauge;
  subscriptions: Gauge<'state'>;
  inFlight: Gauge;
  queued: Gauge;
  plannerLag: Gauge;
  planned: Counter;
  disabled: Counter<'reason'>;
  warnings: Counter<'level'>;
  probes: Counter<'outcome'>;
  resumed: Counter;
}

/** Figures read from PostgreSQL when /metrics is scraped (they are the same from every worker). */
export interface WebhookFigures {
  backlog(): Promise<{ pending: number; oldestAgeS: number }>;
  subscriptionsByState(): Promise<{ state: string; n: string }[]>;
}

export function webhookMetrics(registry: Registry, figures: WebhookFigures): WebhookMetrics {
  let backlog: Promise<{ pending: number; oldestAgeS: number }> | undefined;
  // One query per scrape for both queue gauges.
  const readBacklog = () => {
    backlog ??= figures.backlog().finally(() => setTimeout(() => (backlog = undefined), 100).unref());
    return backlog;
  };
  return {
    deliveries: new Counter({
      name: 'mapintel_webhook_deliveries_total',
      help: 'Delivery attempts by outcome (success, failure) and status class (2xx, 3xx, 4xx, 5xx, none)',
      labelNames: ['outcome', 'status_class'],
      registers: [registry],
    }),
    attemptDuration: new Histogram({
      name: 'mapintel_webhook_attempt_duration_seconds',
      help: 'Duration of one delivery attempt (URL check, connect, request, response)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    eventToDelivered: new Histogram({
      name: 'mapintel_webhook_event_to_delivered_seconds',
      help: 'Time from an event being written in PostgreSQL to its successful delivery (retries included)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600],
      registers: [registry],
    }),
    retryQueueDepth: new Gauge({
      name: 'mapintel_webhook_queue_pending',
      help: 'Deliveries waiting for an attempt (first attempts and retries), all workers',
      registers: [registry],
      async collect() {
        this.set((await readBacklog().catch(() => ({ pending: Number.NaN }))).pending);
      },
    }),
    retryQueueOldestAge: new Gauge({
      name: 'mapintel_webhook_queue_oldest_age_seconds',
      help: 'Age of the oldest event among the pending deliveries, all workers',
      registers: [registry],
      async collect() {
        this.set((await readBacklog().catch(() => ({ oldestAgeS: Number.NaN }))).oldestAgeS);
      },
    }),
    subscriptions: new Gauge({
      name: 'mapintel_webhook_subscriptions',
      help: 'Subscriptions by state (active, inactive, map_disabled: active on a map whose webhooks are off)',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const rows = await figures.subscriptionsByState().catch(() => undefined);
        if (!rows) return;
        this.reset();
        for (const state of ['active', 'inactive', 'map_disabled']) this.set({ state }, Number(rows.find((r) => r.state === state)?.n ?? 0));
      },
    }),
    inFlight: new Gauge({ name: 'mapintel_webhook_worker_in_flight', help: 'Delivery attempts in flight in this worker', registers: [registry] }),
    queued: new Gauge({
      name: 'mapintel_webhook_worker_queued',
      help: 'Deliveries this worker planned while its slots were taken, waiting in its memory to be leased by id (other workers may claim them first)',
      registers: [registry],
    }),
    plannerLag: new Gauge({
      name: 'mapintel_webhook_worker_backlog_seconds',
      help: 'Age of the newest event this worker has matched to subscriptions when it did (how far it is behind the event log)',
      registers: [registry],
    }),
    planned: new Counter({
      name: 'mapintel_webhook_deliveries_planned_total',
      help: 'Deliveries this worker queued (one per event and matching subscription)',
      registers: [registry],
    }),
    disabled: new Counter({
      name: 'mapintel_webhook_subscriptions_disabled_total',
      help: 'Subscriptions this worker set inactive, by reason (gone: 410; failures: consecutive exhausted events)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    warnings: new Counter({
      name: 'mapintel_webhook_subscription_warnings_total',
      help: 'Warnings that a subscription is failing, by level (per cent of WEBHOOK_DISABLE_AFTER: 50, 90); 90 is always given before a disable',
      labelNames: ['level'],
      registers: [registry],
    }),
    probes: new Counter({
      name: 'mapintel_webhook_probes_total',
      help: 'Signed pings sent to subscriptions disabled after failures, by outcome (success resumes the subscription)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    resumed: new Counter({
      name: 'mapintel_webhook_subscriptions_resumed_total',
      help: 'Subscriptions disabled after failures that resumed by themselves when a probe succeeded',
      registers: [registry],
    }),
  };
}
