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
import { withSignal, type KubeClient } from './kube-client.js';
import { Informer, InformerSet, objectKey, RESTART_REASONS, type InformerOptions } from './informer.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER, type OperatorMetrics } from './operator.metrics.js';
import { WebhookSubscriptionReconciler, type ManagedSubscriptions } from './webhook-subscription.reconciler.js';
import type { EventRecorder } from './event-recorder.js';
import type { MapFacts } from './map-facts.js';
import { refreshDeliveryState } from './delivery-state.js';
import { GROUP, OWNED_SECRET_LABEL, PLURAL, VERSION, type SecretObject, type WebhookSubscriptionResource } from './webhook-subscription.types.js';

export interface ControllerOptions {
  concurrency: number;
  statusRefreshMs: number;
  /** Namespaces watched; empty: the whole cluster. */
  namespaces?: readonly string[];
  /** First recheck of a URL whose host does not resolve yet (doubles up to 10 minutes). */
  dnsRecheckMs?: number;
  /** A reconcile running longer fails (its apiserver calls cancelled) and is retried with backoff. */
  reconcileTimeoutMs?: number;
  /** The work queue's shared retry bucket (client-go's 10 and 100 by default). */
  queueQps?: number;
  queueBurst?: number;
  /** Informer settings (the fake-apiserver tests shorten the waits). */
  informer?: Omit<InformerOptions, 'onRestart'>;
}

/** controller-runtime has no default; a reconcile here is a few apiserver and database calls. */
export const DEFAULT_RECONCILE_TIMEOUT_MS = 60_000;

/** The reconcile ran past its deadline. */
export class ReconcileDeadlineError extends Error {
  constructor(ms: number) {
    super(`reconcile did not finish within ${ms} ms`);
    this.name = 'ReconcileDeadlineError';
  }
}

/** Programming errors, not failures of what the reconciler talks to: counted as controller-runtime counts panics. */
const isPanic = (err: unknown): boolean => err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError || err instanceof SyntaxError;

export class WebhookSubscriptionController {
  readonly resources: InformerSet<WebhookSubscriptionResource>;
  readonly secrets: InformerSet<SecretObject>;
  readonly queue: WorkQueue;
  private readonly reconciler: WebhookSubscriptionReconciler;
  /** namespace/secret name → keys of the resources whose spec.secretRef names it. */
  private readonly secretUsers = new Map<string, Set<string>>();
  private workers: Promise<void>[] = [];
  private leading = false;
  /** Leadership began and the workers wait for the caches (controller-runtime's WaitForCacheSync). */
  private starting: Promise<void> | undefined;
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
      onQueued: (s) => metrics.queueDuration.observe({ name: CONTROLLER }, s),
      onWorked: (s) => metrics.workDuration.observe({ name: CONTROLLER }, s),
      qps: opts.queueQps,
      burst: opts.queueBurst,
    });
    metrics.queueProbe.current = () => this.queue.inFlight();
    const informerOptions = (resource: string): InformerOptions => {
      // Every series at 0 from the start (as controller-runtime's): a dashboard panel or an alert has data before the first restart.
      for (const reason of RESTART_REASONS) metrics.watchRestarts.inc({ resource, reason }, 0);
      return { ...opts.informer, onRestart: (reason) => metrics.watchRestarts.inc({ resource, reason }) };
    };
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
            {},
            undefined,
            false,
            informerOptions('webhooksubscriptions'),
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
        (scope) =>
          new Informer<SecretObject>(
            client,
            `/api/v1${scope}/secrets`,
            secretHandlers,
            log.child({ informer: 'secrets' }),
            {},
            keepSecret,
            true,
            informerOptions('secrets'),
          ),
      ),
    );
    this.reconciler = new WebhookSubscriptionReconciler(client, subscriptions, facts, recorder, log, (k) => this.resources.get(k), {
      dnsRecheckMs: opts.dnsRecheckMs,
    });
  }

  /** True once both caches hold a full list. */
  get synced(): boolean {
    return this.resources.hasSynced && this.secrets.hasSynced;
  }

  get busy(): number {
    return this.inFlight;
  }

  /** The longest time one of the caches has gone without an established list or watch (0: all fine). */
  failingForMs(now = Date.now()): number {
    return Math.max(this.resources.failingForMs(now), this.secrets.failingForMs(now));
  }

  /** True while the workers of a new leader wait for the caches to fill. */
  get waitingForSync(): boolean {
    return this.leading && this.workers.length === 0;
  }

  /** Starts the caches (every replica). */
  start(): void {
    this.resources.start();
    this.secrets.start();
  }

  /**
   * The leader reconciles: workers and the delivery-state poll, started only once every informer has
   * synced (a reconcile on a half-filled cache would take a missing Secret or resource for a deleted one).
   */
  startLeading(): void {
    if (this.leading) return;
    this.leading = true;
    this.reconciler.forgetWritten();
    this.starting = this.untilSynced().then(() => {
      if (this.leading) this.startWorkers();
    });
  }

  private async untilSynced(): Promise<void> {
    if (!this.synced) this.log.info('leading: waiting for the caches to sync before reconciling');
    while (this.leading && !this.synced) await new Promise((r) => setTimeout(r, 50).unref());
  }

  private startWorkers(): void {
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
    await this.starting;
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

  /**
   * One reconcile under a deadline: at the deadline its apiserver calls are cancelled and the worker
   * moves on, counting an error and retrying with backoff; the key stays in processing until the
   * reconcile has really ended (a database call is not cancelled), so it never runs twice at once.
   */
  private async process(key: string): Promise<void> {
    const end = this.metrics.reconcileTime.startTimer({ controller: CONTROLLER });
    const timeoutMs = this.opts.reconcileTimeoutMs ?? DEFAULT_RECONCILE_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new ReconcileDeadlineError(timeoutMs)), timeoutMs);
    this.inFlight++;
    this.metrics.activeWorkers.set({ controller: CONTROLLER }, this.inFlight);
    const run = withSignal(deadline.signal, () => this.reconciler.reconcile(key));
    const expired = new Promise<never>((_, reject) => deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason as Error)));
    try {
      const result = await Promise.race([run, expired]);
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
      if (isPanic(err)) this.metrics.reconcilePanics.inc({ controller: CONTROLLER });
      if (deadline.signal.aborted) this.metrics.reconcileTimeouts.inc({ controller: CONTROLLER });
      const e = err as Error;
      this.log.warn(
        { key, retryInMs: delay, attempt: this.queue.failuresOf(key), err: { name: e.name, message: e.message, ...(isPanic(err) ? { stack: e.stack } : {}) } },
        'reconcile failed',
      );
    } finally {
      clearTimeout(timer);
      end();
      this.inFlight--;
      this.metrics.activeWorkers.set({ controller: CONTROLLER }, this.inFlight);
      // A reconcile abandoned at its deadline still holds its key until it ends.
      void run.then(noop, noop).finally(() => this.queue.done(key));
    }
  }

  /**
   * Queues the resources whose delivery state differs from their status (or whose map key was
   * revoked), and removes subscriptions whose resource no longer exists: see delivery-state.ts.
   */
  async refreshDeliveryState(): Promise<void> {
    if (!this.synced) return;
    await refreshDeliveryState({
      subscriptions: this.subscriptions,
      facts: this.facts,
      resources: this.resources,
      queue: this.queue,
      log: this.log,
      watches: (ns) => this.watches(ns),
    });
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

const noop = (): void => undefined;

function sameList(a: string[] | undefined, b: string[] | undefined): boolean {
  return (a ?? []).join('\n') === (b ?? []).join('\n');
}
