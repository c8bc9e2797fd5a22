import type { Core } from '../core/core.js';
import type { Role, RoleHandle } from '../core/role.js';
import { ROLE_INFO } from '../core/role-catalog.js';
import { dbOf } from '../db/db.js';
import { WebhookSender } from '../webhooks/sender.js';
import { DeliveryWorker } from '../webhooks/delivery-worker.js';
import { webhookMetrics } from '../webhooks/webhook.metrics.js';
import { DeliveryRepository } from '../webhooks/delivery.repository.js';
import { SubscriptionRepository } from '../webhooks/subscription.repository.js';
import { WebhookEventSkipper } from '../webhooks/event-skipper.js';
import { PartitionLeases } from '../events/partition-leases.js';
import { databaseTimeouts, sessionTimeouts } from '../db/pg-options.js';

/** The durable consumer's name: every worker process shares its position. */
export const WEBHOOK_CONSUMER = 'webhooks';

export interface WorkerHandle extends RoleHandle {
  worker: DeliveryWorker | undefined;
}

/**
 * The worker role: webhook delivery (src/webhooks/delivery-worker.ts). With SERVICE_WEBHOOKS_ENABLED
 * off it delivers nothing: it moves the webhook consumer past every event (src/webhooks/event-skipper.ts),
 * so events written while webhooks are off are never sent, and serves its probes and metrics.
 */
export const workerRole: Role<WorkerHandle> = {
  ...ROLE_INFO.worker,
  async start(core: Core): Promise<WorkerHandle> {
    const { config } = core;
    const log = core.log.child({ role: 'worker' });
    // With Redis, workers share the event partitions out: each event is planned by the one worker
    // holding its map's partition (without Redis there is one process, which reads every map).
    const leases = core.redis
      ? new PartitionLeases({
          // Session advisory locks: straight to PostgreSQL when DATABASE_URL is a transaction pooler.
          databaseUrl: config.databaseSessionUrl ?? core.db.url,
          schema: config.databaseSchema,
          timeouts: config.databaseSessionUrl ? sessionTimeouts(databaseTimeouts(config)) : databaseTimeouts(config),
          name: WEBHOOK_CONSUMER,
          count: core.events.partitions,
          log: log.child({ component: 'partition-leases' }),
        })
      : undefined;
    await leases?.start();
    if (!config.webhooksEnabled) {
      const skipper = new WebhookEventSkipper({ consumer: await core.events.consumer(WEBHOOK_CONSUMER, leases), log });
      skipper.start();
      log.info('worker role started; SERVICE_WEBHOOKS_ENABLED is off: events are passed over and no webhooks are delivered');
      return {
        worker: undefined,
        readiness: [],
        async stopAccepting() {},
        async stop() {
          await skipper.stop();
          await leases?.stop();
        },
      };
    }
    const db = dbOf(core.db.orm);
    const deliveries = new DeliveryRepository();
    const subscriptions = new SubscriptionRepository();
    const worker = new DeliveryWorker({
      db,
      box: core.secrets.box,
      consumer: await core.events.consumer(WEBHOOK_CONSUMER, leases),
      sender: new WebhookSender({ timeoutMs: config.webhookTimeoutMs, allowInsecure: config.webhooksAllowInsecureUrls, maxSockets: config.webhookConcurrency }),
      log,
      metrics: webhookMetrics(core.metrics.registry, { backlog: () => deliveries.backlog(db), subscriptionsByState: () => subscriptions.countByState(db) }),
      retryWaitsMs: config.webhookRetryWaitsMs,
      probeWaitsMs: config.webhookProbeWaitsMs,
      disableAfter: config.webhookDisableAfter,
      concurrency: config.webhookConcurrency,
      perSubscription: config.webhookConcurrencyPerSubscription,
      perMap: config.webhookConcurrencyPerMap,
      leaseMs: config.webhookTimeoutMs + 5_000,
      attemptTimeoutMs: config.webhookTimeoutMs,
      pollMs: 250,
      attemptsRetentionDays: config.webhookAttemptsRetentionDays,
    });
    worker.start();
    log.info({ owner: worker.owner }, 'worker role started: delivering webhooks');
    return {
      worker,
      readiness: [],
      async stopAccepting() {},
      async stop() {
        await worker.stop(Date.now() + Math.min(config.shutdownTimeoutMs / 2, config.webhookTimeoutMs));
        await leases?.stop();
      },
    };
  },
};
