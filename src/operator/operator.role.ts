import os from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import type { Core } from '../core/core.js';
import type { Role, RoleHandle } from '../core/role.js';
import { ROLE_INFO } from '../core/role-catalog.js';
import { dbOf } from '../db/db.js';
import { WebhookService } from '../webhooks/webhook.service.js';
import { KubeClient } from './kube-client.js';
import { LeaderElector } from './leader-election.js';
import { EventRecorder } from './event-recorder.js';
import { operatorMetrics } from './operator.metrics.js';
import { DbMapFacts } from './map-facts.js';
import { WebhookSubscriptionController } from './webhook-subscription.controller.js';
import { DbDeliveryLoad, WorkerAutoscaler } from './worker-autoscaler.js';

export interface OperatorHandle extends RoleHandle {
  controller: WebhookSubscriptionController;
  elector: LeaderElector;
}

/** The kubeconfig: KUBECONFIG when set, else the in-cluster ServiceAccount (or ~/.kube/config). */
export function loadKubeConfig(file: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else kc.loadFromDefault();
  return kc;
}

/**
 * The operator role: reconciles WebhookSubscription resources (mapintel.io/v1alpha1) into platform
 * webhook subscriptions. Every replica keeps warm caches; the holder of the Lease reconciles.
 * /readyz of the ops port is false until the caches are synced, and again while a cache has gone
 * OPERATOR_WATCH_FAILURE_UNREADY_SECONDS without an established list or watch.
 */
export const operatorRole: Role<OperatorHandle> = {
  ...ROLE_INFO.operator,
  async start(core: Core): Promise<OperatorHandle> {
    const { config } = core;
    const log = core.log.child({ component: 'operator' });
    const metrics = operatorMetrics(core.metrics.registry);
    const kc = loadKubeConfig(config.kubeconfig);
    const client = new KubeClient(kc, {
      requests: metrics.apiRequests,
      responseBytes: metrics.responseBytes,
      rest: { requests: metrics.restRequests, duration: metrics.restDuration, rateLimiterDuration: metrics.restRateLimiterDuration },
      qps: config.operatorKubeApiQps,
      burst: config.operatorKubeApiBurst,
    });
    const identity = config.operatorIdentity ?? `${os.hostname()}-${process.pid}`;
    const subscriptions = new WebhookService(dbOf(core.db.orm), core.secrets.box, { allowInsecureUrls: config.webhooksAllowInsecureUrls });
    const facts = new DbMapFacts(dbOf(core.db.orm));
    const recorder = new EventRecorder(client, identity, log, metrics);
    const controller = new WebhookSubscriptionController(client, subscriptions, facts, recorder, metrics, log, {
      concurrency: config.operatorConcurrency,
      statusRefreshMs: config.operatorStatusRefreshMs,
      namespaces: config.operatorWatchNamespaces,
      reconcileTimeoutMs: config.operatorReconcileTimeoutSeconds * 1000,
      queueQps: config.operatorQueueQps,
      queueBurst: config.operatorQueueBurst,
    });
    // Off by default: the chart's worker.autoscale.mode operator turns it on (and grants deployments/scale).
    const autoscaler = config.operatorWorkerAutoscale
      ? new WorkerAutoscaler(client, new DbDeliveryLoad(dbOf(core.db.orm)), recorder, metrics, log.child({ autoscaler: config.operatorWorkerDeployment }), {
          namespace: config.operatorNamespace,
          deployment: config.operatorWorkerDeployment,
          minReplicas: config.operatorWorkerMinReplicas,
          maxReplicas: config.operatorWorkerMaxReplicas,
          pendingPerReplica: config.operatorWorkerPendingPerReplica,
          subscriptionsPerReplica: config.operatorWorkerSubscriptionsPerReplica,
          scaleDownCooldownMs: config.operatorWorkerScaleDownCooldownSeconds * 1000,
          intervalMs: config.operatorWorkerAutoscaleIntervalSeconds * 1000,
        })
      : undefined;
    const leaseMs = config.operatorLeaseDurationSeconds * 1000;
    const lease = config.operatorLeaseName;
    metrics.leader.set({ name: lease }, 0);
    const elector = new LeaderElector(
      client,
      {
        namespace: config.operatorNamespace,
        name: lease,
        identity,
        leaseDurationMs: leaseMs,
        renewDeadlineMs: Math.round((leaseMs * 2) / 3),
        retryPeriodMs: Math.max(500, Math.round(leaseMs / 5)),
        onStartedLeading: () => {
          metrics.leader.set({ name: lease }, 1);
          controller.startLeading();
          autoscaler?.start();
        },
        onStoppedLeading: () => {
          metrics.leader.set({ name: lease }, 0);
          void controller.stopLeading();
          void autoscaler?.stop();
        },
      },
      log,
    );
    controller.start();
    elector.start();
    log.info(
      {
        server: client.server,
        lease: `${config.operatorNamespace}/${lease}`,
        identity,
        namespaces: config.operatorWatchNamespaces.length ? config.operatorWatchNamespaces : 'all',
      },
      'operator started',
    );
    let stopped: Promise<void> | undefined;
    return {
      controller,
      elector,
      // Not ready before the caches are full, nor once one has failed to re-establish its watch for too long.
      readiness: [
        {
          name: 'kubernetes',
          check: async () => controller.synced && controller.failingForMs() < config.operatorWatchFailureUnreadySeconds * 1000,
        },
      ],
      async stopAccepting() {},
      stop() {
        stopped ??= (async () => {
          await autoscaler?.stop();
          await controller.stopLeading();
          await elector.stop();
          await controller.stop();
          client.close();
        })();
        return stopped;
      },
    };
  },
};
