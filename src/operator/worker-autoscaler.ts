/**
 * Sizes the delivery worker Deployment from what the workers have to do: the deliveries waiting for
 * an attempt (the backlog) and the active subscriptions, each divided by what one worker is meant to
 * carry, bounded by min and max replicas. It writes only the Deployment's scale subresource, on the
 * leader, every interval: up at once, down only after a cool-down since the last change (or since it
 * took the lead), so a burst brings workers up and a quiet spell brings them down without flapping. Each change is a Kubernetes
 * Event on the Deployment and a step of the metrics.
 *
 * It reads the platform through DeliveryLoad (the repositories, as MapFacts does), never its own SQL.
 */
import type { Logger } from '../common/log.js';
import type { Db } from '../db/db.js';
import { DeliveryRepository } from '../webhooks/delivery.repository.js';
import { SubscriptionRepository } from '../webhooks/subscription.repository.js';
import type { KubeClient } from './kube-client.js';
import type { EventRecorder } from './event-recorder.js';
import type { OperatorMetrics } from './operator.metrics.js';

export interface DeliveryLoad {
  /** Deliveries waiting for an attempt (first attempts and retries). */
  pendingDeliveries(): Promise<number>;
  /** Active subscriptions on maps whose webhooks are on. */
  activeSubscriptions(): Promise<number>;
}

export class DbDeliveryLoad implements DeliveryLoad {
  private readonly deliveries = new DeliveryRepository();
  private readonly subscriptions = new SubscriptionRepository();

  constructor(private readonly db: Db) {}

  async pendingDeliveries(): Promise<number> {
    return (await this.deliveries.backlog(this.db)).pending;
  }

  async activeSubscriptions(): Promise<number> {
    return Number((await this.subscriptions.countByState(this.db)).find((r) => r.state === 'active')?.n ?? 0);
  }
}

export interface WorkerAutoscalerOptions {
  namespace: string;
  /** Name of the worker Deployment. */
  deployment: string;
  minReplicas: number;
  maxReplicas: number;
  /** Pending deliveries one worker is meant to carry. */
  pendingPerReplica: number;
  /** Active subscriptions one worker is meant to carry. */
  subscriptionsPerReplica: number;
  /** Time since the last change before a scale-down. */
  scaleDownCooldownMs: number;
  intervalMs: number;
  now?: () => number;
}

interface Scale {
  metadata: { name: string; namespace: string; uid?: string; resourceVersion?: string };
  spec: { replicas?: number };
  status?: { replicas?: number };
}

/** The replicas the load asks for, within the bounds. */
export function desiredWorkers(
  load: { pending: number; active: number },
  o: Pick<WorkerAutoscalerOptions, 'minReplicas' | 'maxReplicas' | 'pendingPerReplica' | 'subscriptionsPerReplica'>,
): number {
  const wanted = Math.max(Math.ceil(load.pending / o.pendingPerReplica), Math.ceil(load.active / o.subscriptionsPerReplica), o.minReplicas);
  return Math.min(o.maxReplicas, wanted);
}

export class WorkerAutoscaler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastChange = 0;
  private readonly now: () => number;

  constructor(
    private readonly client: KubeClient,
    private readonly load: DeliveryLoad,
    private readonly recorder: EventRecorder,
    private readonly metrics: OperatorMetrics,
    private readonly log: Logger,
    private readonly opts: WorkerAutoscalerOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  private get scalePath(): string {
    return `/apis/apps/v1/namespaces/${this.opts.namespace}/deployments/${this.opts.deployment}/scale`;
  }

  /**
   * Starts the periodic sizing (on the leader). Taking the lead counts as a change: the last leader's
   * changes are unknown here, so a scale-down waits a cool-down from now (a scale-up does not wait).
   */
  start(): void {
    if (this.timer) return;
    this.lastChange = this.now();
    const tick = () => {
      this.running = this.step()
        .then(() => undefined)
        .catch((err: Error) => this.log.warn({ err: { message: err.message } }, 'could not size the delivery workers'))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, this.opts.intervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One sizing: reads the load and the scale, changes the scale when it should; the replicas it leaves. */
  async step(): Promise<number> {
    const [pending, active] = await Promise.all([this.load.pendingDeliveries(), this.load.activeSubscriptions()]);
    const scale = await this.client.get<Scale>(this.scalePath);
    const current = scale.spec.replicas ?? 0;
    const desired = desiredWorkers({ pending, active }, this.opts);
    this.metrics.workerDesiredReplicas.set(desired);
    if (desired === current) return current;
    if (desired < current && this.now() - this.lastChange < this.opts.scaleDownCooldownMs) return current;
    await this.client.patch(this.scalePath, { spec: { replicas: desired } });
    this.lastChange = this.now();
    const direction = desired > current ? 'up' : 'down';
    this.metrics.workerScaleChanges.inc({ direction });
    const message = `Scaled delivery workers from ${current} to ${desired}: ${pending} deliveries pending, ${active} active subscriptions`;
    this.recorder.record(
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: this.opts.deployment, namespace: this.opts.namespace, uid: scale.metadata.uid } },
      'Normal',
      direction === 'up' ? 'WorkersScaledUp' : 'WorkersScaledDown',
      message,
    );
    this.log.info({ from: current, to: desired, pending, active }, 'scaled the delivery workers');
    return desired;
  }
}
