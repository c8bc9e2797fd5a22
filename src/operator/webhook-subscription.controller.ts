/**
 * The WebhookSubscription controller: caches of the resources and of Secrets (filled on every
 * replica, so a new leader starts warm), a work queue, reconcile workers that run only on the leader,
 * and a poll of delivery state that queues the resources whose status it would change.
 *
 * Secrets are listed and watched as metadata only (the apiserver never sends their data), page by
 * page, and the cache keeps only the metadata of the Secrets the operator generated: unrelated
 * Secrets, however many and however large, cost it nothing but a passing glance at their names.
 */
import type { Logger } from '../common/log.js';
import type { KubeClient } from './kube-client.js';
import { Informer, InformerSet, objectKey } from './informer.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER, type OperatorMetrics } from './operator.metrics.js';
import { WebhookSubscriptionReconciler, type ManagedSubscriptions } from './webhook-subscription.reconciler.js';
import type { EventRecorder } from './event-recorder.js';
import type { MapFacts } from './map-facts.js';
import { deliveryConditions } from './webhook-subscription.conditions.js';
import { GROUP, OWNED_SECRET_LABEL, PLURAL, VERSION, type SecretObject, type WebhookSubscriptionResource } from './webhook-subscription.types.js';

export interface ControllerOptions {
  concurrency: number;
  statusRefreshMs: number;
  /** Namespaces watched; empty: the whole cluster. */
  namespaces?: readonly string[];
  /** First recheck of a URL whose host does not resolve yet (doubles up to 10 minutes). */
  dnsRecheckMs?: number;
}

export class WebhookSubscriptionController {
  readonly resources: InformerSet<WebhookSubscriptionResource>;
  readonly secrets: InformerSet<SecretObject>;
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
    private readonly facts: MapFacts,
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
    const scopes = opts.namespaces?.length ? opts.namespaces.map((ns) => `/namespaces/${ns}`) : [''];
    const resourceHandlers = {
      upsert: (obj: WebhookSubscriptionResource, old: WebhookSubscriptionResource | undefined) => {
        this.indexSecretRefs(obj, old);
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
      delete: (obj: WebhookSubscriptionResource) => {
        this.indexSecretRefs(undefined, obj);
        this.countResources();
      },
    };
    this.resources = new InformerSet(
      scopes.map(
        (scope) =>
          new Informer<WebhookSubscriptionResource>(
            client,
            `/apis/${GROUP}/${VERSION}${scope}/${PLURAL}`,
            resourceHandlers,
            log.child({ informer: 'webhooksubscriptions' }),
          ),
      ),
    );
    const secretHandlers = {
      upsert: (s: SecretObject, old: SecretObject | undefined) => {
        this.metrics.cachedObjects.set({ resource: 'secrets' }, this.secrets?.size ?? 0);
        if (old && old.metadata.resourceVersion === s.metadata.resourceVersion) return;
        this.secretChanged(s);
      },
      delete: (s: SecretObject) => {
        this.metrics.cachedObjects.set({ resource: 'secrets' }, this.secrets?.size ?? 0);
        this.secretChanged(s);
      },
    };
    // Of the Secrets, only the metadata of those generated here is kept (the others are read when needed).
    const keepSecret = (s: SecretObject): SecretObject | undefined =>
      s.metadata.labels?.[OWNED_SECRET_LABEL]
        ? {
            metadata: {
              name: s.metadata.name,
              namespace: s.metadata.namespace,
              resourceVersion: s.metadata.resourceVersion,
              labels: s.metadata.labels,
              ownerReferences: s.metadata.ownerReferences,
            },
          }
        : undefined;
    this.secrets = new InformerSet(
      scopes.map(
        (scope) => new Informer<SecretObject>(client, `/api/v1${scope}/secrets`, secretHandlers, log.child({ informer: 'secrets' }), {}, keepSecret, true),
      ),
    );
    this.reconciler = new WebhookSubscriptionReconciler(
      client,
      subscriptions,
      facts,
      recorder,
      log,
      (k) => this.resources.get(k),
      (k) => this.secrets.get(k),
      { dnsRecheckMs: opts.dnsRecheckMs },
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
    this.reconciler.forgetWritten();
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
   * Queues the resources whose delivery state (last delivery, failures, last error, disabled, the map's
   * webhooks switched off) differs from their status, or whose map key was revoked, and removes
   * subscriptions whose resource no longer exists.
   */
  async refreshDeliveryState(): Promise<void> {
    if (!this.synced) return;
    let subs;
    let enabled: Map<string, boolean>;
    let liveKeys: Set<string>;
    try {
      subs = await this.subscriptions.listManaged('kubernetes:');
      enabled = await this.facts.webhooksEnabled(subs.map((s) => s.mapId));
      const keyIds = this.resources.list().flatMap((o) => (o.status?.mapKeyId ? [o.status.mapKeyId] : []));
      liveKeys = await this.facts.liveMapKeyIds(keyIds);
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'could not read delivery state');
      return;
    }
    for (const sub of subs) {
      const key = sub.managedBy!.slice('kubernetes:'.length);
      const obj = this.resources.get(key);
      if (!obj) {
        // Outside the watched namespaces: another operator's.
        if (!this.watches(key.split('/')[0]!)) continue;
        // The resource went while no operator held its finalizer (or it was forced away).
        await this.subscriptions.removeManaged(sub.managedBy!).catch(() => undefined);
        this.log.info({ managedBy: sub.managedBy }, 'removed a subscription whose resource is gone');
        continue;
      }
      const s = obj.status ?? {};
      const ready = s.conditions?.find((c) => c.type === 'Ready');
      const degraded = s.conditions?.find((c) => c.type === 'Degraded');
      // Refused resources are rechecked by their own requeue.
      if (ready?.status === 'False' && ready.reason !== 'DisabledAfterFailures' && ready.reason !== 'MapWebhooksDisabled') continue;
      const [wantReady, wantDegraded] = deliveryConditions(obj, sub, enabled.get(sub.mapId) ?? false);
      if (
        s.subscriptionId !== sub.id ||
        (s.mapKeyId !== undefined && !liveKeys.has(s.mapKeyId)) ||
        (s.consecutiveFailures ?? 0) !== sub.consecutiveFailures ||
        !sameTime(s.lastDeliveryAt, sub.lastDeliveryAt) ||
        !sameTime(s.lastErrorAt, sub.lastErrorAt) ||
        ready?.reason !== wantReady.reason ||
        degraded?.reason !== wantDegraded.reason
      ) {
        this.queue.add(key);
      }
    }
  }

  private watches(namespace: string): boolean {
    return !this.opts.namespaces?.length || this.opts.namespaces.includes(namespace);
  }

  /** Indexes the Secrets a resource names (spec.secretRef, spec.mapKeySecretRef): their changes queue it. */
  private indexSecretRefs(now: WebhookSubscriptionResource | undefined, before: WebhookSubscriptionResource | undefined): void {
    const key = objectKey((now ?? before)!);
    const refs = (o: WebhookSubscriptionResource | undefined) =>
      [o?.spec?.secretRef?.name, o?.spec?.mapKeySecretRef?.name].filter((n): n is string => !!n).map((n) => `${o!.metadata.namespace}/${n}`);
    const old = refs(before);
    const next = refs(now);
    for (const ref of old) {
      if (next.includes(ref)) continue;
      this.secretUsers.get(ref)?.delete(key);
      if (this.secretUsers.get(ref)?.size === 0) this.secretUsers.delete(ref);
    }
    for (const ref of next) this.secretUsers.set(ref, (this.secretUsers.get(ref) ?? new Set()).add(key));
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
    this.metrics.cachedObjects.set({ resource: 'webhooksubscriptions' }, this.resources.size);
    this.metrics.cachedObjects.set({ resource: 'secrets' }, this.secrets.size);
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
