/**
 * The WebhookSubscription controller: caches of the resources and of Secrets (filled on every
 * replica, so a new leader starts warm), a work queue, reconcile workers that run only on the leader,
 * and a poll of delivery state that queues the resources whose status it would change.
 */
import type { Logger } from '../log.js';
import type { KubeClient } from './kube-client.js';
import { Informer, objectKey } from './informer.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER, type OperatorMetrics } from './operator.metrics.js';
import { WebhookSubscriptionReconciler, type ManagedSubscriptions } from './webhook-subscription.reconciler.js';
import type { EventRecorder } from './event-recorder.js';
import { OWNED_SECRET_LABEL, collectionPath, type SecretObject, type WebhookSubscriptionResource } from './webhook-subscription.types.js';

export interface ControllerOptions {
  concurrency: number;
  statusRefreshMs: number;
}

export class WebhookSubscriptionController {
  readonly resources: Informer<WebhookSubscriptionResource>;
  readonly secrets: Informer<SecretObject>;
  readonly queue: WorkQueue;
  private readonly reconciler: WebhookSubscriptionReconciler;
  /** namespace/secret name → keys of the resources whose spec.secretRef names it. */
  private readonly secretUsers = new Map<string, Set<string>>();
  private workers: Promise<void>[] = [];
  private leading = false;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private inFlight = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly subscriptions: ManagedSubscriptions,
    recorder: EventRecorder,
    private readonly metrics: OperatorMetrics,
    private readonly log: Logger,
    private readonly opts: ControllerOptions,
  ) {
    this.queue = new WorkQueue({
      onDepth: (d) => metrics.queueDepth.set({ name: CONTROLLER }, d),
      onAdd: () => metrics.queueAdds.inc({ name: CONTROLLER }),
      onRetry: () => metrics.queueRetries.inc({ name: CONTROLLER }),
    });
    this.resources = new Informer<WebhookSubscriptionResource>(
      client,
      collectionPath(),
      {
        upsert: (obj, old) => {
          this.indexSecretRef(obj, old);
          // Our own status writes come back as changes too; only the spec, deletion and finalizers matter.
          if (
            !old ||
            old.metadata.generation !== obj.metadata.generation ||
            old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp ||
            !sameList(old.metadata.finalizers, obj.metadata.finalizers) ||
            old.metadata.resourceVersion === obj.metadata.resourceVersion
          ) {
            this.queue.add(objectKey(obj));
          }
          this.countResources();
        },
        delete: (obj) => {
          this.indexSecretRef(undefined, obj);
          this.countResources();
        },
      },
      log.child({ informer: 'webhooksubscriptions' }),
    );
    this.secrets = new Informer<SecretObject>(
      client,
      '/api/v1/secrets',
      {
        upsert: (s, old) => {
          if (old && old.metadata.resourceVersion === s.metadata.resourceVersion) return;
          this.secretChanged(s);
        },
        delete: (s) => this.secretChanged(s),
      },
      log.child({ informer: 'secrets' }),
      {},
      // Only the Secrets this operator generates are kept whole; of the others, the metadata is enough.
      (s) =>
        s.metadata.labels?.[OWNED_SECRET_LABEL]
          ? s
          : {
              metadata: {
                name: s.metadata.name,
                namespace: s.metadata.namespace,
                resourceVersion: s.metadata.resourceVersion,
                ownerReferences: s.metadata.ownerReferences,
              },
            },
    );
    this.reconciler = new WebhookSubscriptionReconciler(
      client,
      subscriptions,
      recorder,
      log,
      (k) => this.resources.get(k),
      (k) => this.secrets.get(k),
    );
  }

  /** True once both caches hold a full list. */
  get synced(): boolean {
    return this.resources.hasSynced && this.secrets.hasSynced;
  }

  get busy(): number {
    return this.inFlight;
  }

  /** Starts the caches (every replica). */
  start(): void {
    this.resources.start();
    this.secrets.start();
  }

  /** The leader reconciles: workers and the delivery-state poll. */
  startLeading(): void {
    if (this.leading) return;
    this.leading = true;
    for (const obj of this.resources.list()) this.queue.add(objectKey(obj));
    this.workers = Array.from({ length: this.opts.concurrency }, () => this.work());
    const tick = () => {
      this.refreshing = this.refreshDeliveryState().finally(() => {
        if (this.leading) this.refreshTimer = setTimeout(tick, this.opts.statusRefreshMs).unref();
      });
    };
    this.refreshTimer = setTimeout(tick, this.opts.statusRefreshMs).unref();
  }

  /** Stops reconciling (leadership lost or shutting down); waits for reconciles in flight. */
  async stopLeading(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    await this.refreshing;
    this.queue.releaseWaiters();
    await Promise.all(this.workers);
    this.workers = [];
  }

  async stop(): Promise<void> {
    await this.stopLeading();
    this.queue.shutDown();
    await Promise.all([this.resources.stop(), this.secrets.stop()]);
  }

  private async work(): Promise<void> {
    while (this.leading) {
      const key = await this.queue.get();
      if (key === undefined) return;
      if (!this.leading) {
        // Not ours to do any more: put it back for whoever leads next.
        this.queue.done(key);
        this.queue.add(key);
        return;
      }
      await this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    const end = this.metrics.reconcileTime.startTimer({ controller: CONTROLLER });
    this.inFlight++;
    this.metrics.activeWorkers.set({ controller: CONTROLLER }, this.inFlight);
    try {
      const result = await this.reconciler.reconcile(key);
      this.log.debug({ key, requeueAfterMs: result.requeueAfterMs }, 'reconciled');
      this.queue.forget(key);
      if (result.requeueAfterMs) {
        this.queue.addAfter(key, result.requeueAfterMs);
        this.metrics.reconcileTotal.inc({ controller: CONTROLLER, result: 'requeue_after' });
      } else {
        this.metrics.reconcileTotal.inc({ controller: CONTROLLER, result: 'success' });
      }
    } catch (err) {
      const delay = this.queue.addRateLimited(key);
      this.metrics.reconcileTotal.inc({ controller: CONTROLLER, result: 'error' });
      this.metrics.reconcileErrors.inc({ controller: CONTROLLER });
      this.log.warn({ key, retryInMs: delay, attempt: this.queue.failuresOf(key), err: { message: (err as Error).message } }, 'reconcile failed');
    } finally {
      end();
      this.inFlight--;
      this.metrics.activeWorkers.set({ controller: CONTROLLER }, this.inFlight);
      this.queue.done(key);
    }
  }

  /**
   * Queues the resources whose delivery state (last delivery, failures, last error, disabled) differs
   * from their status, and removes subscriptions whose resource no longer exists.
   */
  async refreshDeliveryState(): Promise<void> {
    if (!this.synced) return;
    let subs;
    try {
      subs = await this.subscriptions.listManaged('kubernetes:');
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'could not read delivery state');
      return;
    }
    for (const sub of subs) {
      const key = sub.managedBy!.slice('kubernetes:'.length);
      const obj = this.resources.get(key);
      if (!obj) {
        // The resource went while no operator held its finalizer (or it was forced away).
        await this.subscriptions.removeManaged(sub.managedBy!).catch(() => undefined);
        this.log.info({ managedBy: sub.managedBy }, 'removed a subscription whose resource is gone');
        continue;
      }
      const s = obj.status ?? {};
      const degraded = s.conditions?.find((c) => c.type === 'Degraded');
      const disabled = (obj.spec.active ?? true) && !sub.active;
      if (
        s.subscriptionId !== sub.id ||
        (s.consecutiveFailures ?? 0) !== sub.consecutiveFailures ||
        !sameTime(s.lastDeliveryAt, sub.lastDeliveryAt) ||
        !sameTime(s.lastErrorAt, sub.lastErrorAt) ||
        (degraded?.reason === 'DisabledAfterFailures') !== disabled
      ) {
        this.queue.add(key);
      }
    }
  }

  private indexSecretRef(now: WebhookSubscriptionResource | undefined, before: WebhookSubscriptionResource | undefined): void {
    const key = objectKey((now ?? before)!);
    const ref = (o: WebhookSubscriptionResource | undefined) => (o?.spec?.secretRef ? `${o.metadata.namespace}/${o.spec.secretRef.name}` : undefined);
    const old = ref(before);
    const next = ref(now);
    if (old === next) return;
    if (old) {
      this.secretUsers.get(old)?.delete(key);
      if (this.secretUsers.get(old)?.size === 0) this.secretUsers.delete(old);
    }
    if (next) this.secretUsers.set(next, (this.secretUsers.get(next) ?? new Set()).add(key));
  }

  private secretChanged(s: SecretObject): void {
    const key = objectKey(s);
    for (const user of this.secretUsers.get(key) ?? []) this.queue.add(user);
    const owner = s.metadata.labels?.[OWNED_SECRET_LABEL] ?? s.metadata.ownerReferences?.find((o) => o.kind === 'WebhookSubscription' && o.controller)?.name;
    if (owner && this.resources.get(`${s.metadata.namespace}/${owner}`)) this.queue.add(`${s.metadata.namespace}/${owner}`);
  }

  private countResources(): void {
    let ready = 0;
    let other = 0;
    for (const o of this.resources.list()) {
      if (o.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True') ready++;
      else other++;
    }
    this.metrics.resources.set({ ready: 'true' }, ready);
    this.metrics.resources.set({ ready: 'false' }, other);
  }
}

function sameList(a: string[] | undefined, b: string[] | undefined): boolean {
  return (a ?? []).join('\n') === (b ?? []).join('\n');
}

function sameTime(a: string | undefined, b: string | null): boolean {
  if (!a && !b) return true;
  if (!a || !b) return false;
  return Date.parse(a) === Date.parse(b) || a === b;
}
