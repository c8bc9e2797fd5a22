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
 * /readyz of the ops port is false until the caches are synced.
 */
export const operatorRole: Role<OperatorHandle> = {
  ...ROLE_INFO.operator,
  async start(core: Core): Promise<OperatorHandle> {
    const { config } = core;
    const log = core.log.child({ component: 'operator' });
    const metrics = operatorMetrics(core.metrics.registry);
    const kc = loadKubeConfig(config.kubeconfig);
    const client = new KubeClient(kc, { requests: metrics.apiRequests, responseBytes: metrics.responseBytes });
    const identity = config.operatorIdentity ?? `${os.hostname()}-${process.pid}`;
    const subscriptions = new WebhookService(dbOf(core.db.orm), core.secrets.box, { allowInsecureUrls: config.webhooksAllowInsecureUrls });
    const facts = new DbMapFacts(dbOf(core.db.orm));
    const controller = new WebhookSubscriptionController(client, subscriptions, facts, new EventRecorder(client, identity, log, metrics), metrics, log, {
      concurrency: config.operatorConcurrency,
      statusRefreshMs: config.operatorStatusRefreshMs,
      namespaces: config.operatorWatchNamespaces,
    });
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
        },
        onStoppedLeading: () => {
          metrics.leader.set({ name: lease }, 0);
          void controller.stopLeading();
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
      readiness: [{ name: 'kubernetes', check: async () => controller.synced }],
      async stopAccepting() {},
      stop() {
        stopped ??= (async () => {
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
