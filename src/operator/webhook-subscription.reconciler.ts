/**
 * Reconciles one WebhookSubscription resource into the platform subscription it manages
 * (`managed_by` kubernetes:<ns>/<name>), level-triggered and idempotent: running it twice changes
 * nothing. The finalizer goes on before any side effect and comes off after the subscription is gone;
 * the status is written only when it changed, through /status.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import { AppError } from '../errors.js';
import type { WebhookService, WebhookSubscription } from '../webhooks/webhook.service.js';
import { normalizeEvents } from '../webhooks/webhook.service.js';
import { canonicalUrl } from '../webhooks/url-guard.js';
import { isConflict, isNotFound, type KubeClient } from './kube-client.js';
import type { EventRecorder } from './event-recorder.js';
import {
  API_VERSION,
  FINALIZER,
  KIND,
  OWNED_SECRET_LABEL,
  SECRET_KEY,
  managedByOf,
  ownedSecretName,
  resourcePath,
  secretPath,
  type Condition,
  type SecretObject,
  type WebhookSubscriptionResource,
  type WebhookSubscriptionStatus,
} from './webhook-subscription.types.js';

export type ManagedSubscriptions = Pick<WebhookService, 'applyManaged' | 'removeManaged' | 'getManaged' | 'listManaged'>;

export interface ReconcileResult {
  /** Reconcile again after this long even without a change (a map that may appear later). */
  requeueAfterMs?: number;
}

/** A resource whose spec the platform refuses: reported in its status, not retried in a loop. */
interface Refusal {
  reason: string;
  message: string;
  requeueAfterMs?: number;
}

/** Refused specs that another change elsewhere may cure (a map created, a slot freed) are looked at again after this. */
const RECHECK_MS = 60_000;

/** Errors of the subscriptions service that mean "this spec cannot be applied", by code. */
const REFUSALS: Record<string, { reason: string; recheck: boolean }> = {
  map_not_found: { reason: 'MapNotFound', recheck: true },
  webhook_limit_reached: { reason: 'LimitReached', recheck: true },
  webhook_url_exists: { reason: 'URLInUse', recheck: true },
  invalid_webhook_url: { reason: 'InvalidURL', recheck: false },
  validation_failed: { reason: 'InvalidSpec', recheck: false },
};

export class WebhookSubscriptionReconciler {
  constructor(
    private readonly client: KubeClient,
    private readonly subscriptions: ManagedSubscriptions,
    private readonly recorder: EventRecorder,
    private readonly log: Logger,
    /** The cached resource by namespace/name (the informer's). */
    private readonly cached: (key: string) => WebhookSubscriptionResource | undefined,
    /** A cached Secret by namespace/name, when the cache holds its data. */
    private readonly cachedSecret: (key: string) => SecretObject | undefined,
  ) {}

  async reconcile(key: string): Promise<ReconcileResult> {
    const cr = this.cached(key);
    if (!cr) return {};
    const ns = cr.metadata.namespace!;
    const name = cr.metadata.name;
    const managedBy = managedByOf(ns, name);
    const finalizers = cr.metadata.finalizers ?? [];

    if (cr.metadata.deletionTimestamp) {
      if (!finalizers.includes(FINALIZER)) return {};
      const removed = await this.subscriptions.removeManaged(managedBy);
      await this.client.patch(resourcePath(ns, name), {
        metadata: { finalizers: finalizers.filter((f) => f !== FINALIZER), resourceVersion: cr.metadata.resourceVersion },
      });
      if (removed) this.recorder.record(cr, 'Normal', 'SubscriptionDeleted', `Subscription ${cr.status?.subscriptionId ?? ''} removed`.trim());
      return {};
    }

    let obj = cr;
    if (!finalizers.includes(FINALIZER)) {
      obj = await this.client.patch<WebhookSubscriptionResource>(resourcePath(ns, name), {
        metadata: { finalizers: [...finalizers, FINALIZER], resourceVersion: cr.metadata.resourceVersion },
      });
    }

    const secret = await this.signingSecret(obj);
    if ('reason' in secret) return this.refuse(obj, secret);

    const spec = obj.spec;
    const active = spec.active ?? true;
    const generation = obj.metadata.generation ?? 0;
    let sub = await this.subscriptions.getManaged(managedBy);
    let events: string[];
    try {
      events = normalizeEvents(spec.events);
    } catch (err) {
      return this.refuse(obj, refusalOf(err)!);
    }
    // `active` is applied only when the spec changed: a subscription the workers disabled after repeated
    // failures stays disabled (and shows as Degraded) until the resource is edited. A spec whose last
    // application was refused (Ready=False, written by refuse() with this generation) is tried again,
    // so it stays refused until what it needs exists, instead of passing for applied.
    const stale =
      !sub ||
      obj.status?.observedGeneration !== generation ||
      obj.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False') === true ||
      obj.status?.secretVersion !== secret.version ||
      obj.status?.subscriptionId !== sub.id ||
      sub.url !== canonicalUrl(spec.url) ||
      !sameSet(sub.events, events);
    if (stale) {
      try {
        const applied = await this.subscriptions.applyManaged({ managedBy, map: spec.map, url: spec.url, events, active, secret: secret.value });
        sub = applied.subscription;
        if (applied.created) this.recorder.record(obj, 'Normal', 'SubscriptionCreated', `Subscription ${sub.id} created on map ${sub.mapId}`);
        else if (obj.status?.subscriptionId === sub.id) this.recorder.record(obj, 'Normal', 'SubscriptionUpdated', `Subscription ${sub.id} updated`);
      } catch (err) {
        const refusal = refusalOf(err);
        if (!refusal) throw err;
        return this.refuse(obj, refusal);
      }
    }
    await this.writeStatus(obj, statusOf(obj, sub!, secret));
    return {};
  }

  /** The signing secret: spec.secretRef's, or one generated into a Secret owned by the resource. */
  private async signingSecret(obj: WebhookSubscriptionResource): Promise<{ value: string; name: string; version: string } | Refusal> {
    const ns = obj.metadata.namespace!;
    const ref = obj.spec.secretRef;
    if (ref) {
      const key = ref.key ?? SECRET_KEY;
      let secret: SecretObject;
      try {
        secret = await this.client.get<SecretObject>(secretPath(ns, ref.name));
      } catch (err) {
        if (isNotFound(err)) return { reason: 'SecretNotFound', message: `Secret ${ns}/${ref.name} not found` };
        throw err;
      }
      const encoded = secret.data?.[key];
      if (!encoded) return { reason: 'SecretKeyNotFound', message: `Secret ${ns}/${ref.name} has no key "${key}"` };
      const value = Buffer.from(encoded, 'base64').toString('utf8');
      if (value.length < 16) return { reason: 'SecretTooShort', message: `The signing secret in ${ns}/${ref.name} must have at least 16 characters` };
      return { value, name: ref.name, version: secret.metadata.resourceVersion ?? '' };
    }
    const name = ownedSecretName(obj.metadata.name);
    const cached = this.cachedSecret(`${ns}/${name}`);
    let secret = cached?.data ? cached : undefined;
    // Absent from a synced cache: most likely absent, so create at once (AlreadyExists falls back to a read).
    if (!secret && cached) secret = await this.readSecret(ns, name);
    if (!secret) {
      secret = await this.createOwnedSecret(obj, name);
      if (secret) this.recorder.record(obj, 'Normal', 'SecretCreated', `Generated signing secret in Secret ${name}`);
      else secret = await this.readSecret(ns, name);
      if (!secret) throw new Error(`Secret ${ns}/${name} vanished while it was being created`);
    }
    const owner = secret.metadata.ownerReferences?.find((o) => o.controller);
    if (owner && owner.uid !== obj.metadata.uid) {
      return { reason: 'SecretConflict', message: `Secret ${ns}/${name} is controlled by another object` };
    }
    if (!owner && secret.metadata.labels?.[OWNED_SECRET_LABEL] !== obj.metadata.name) {
      return { reason: 'SecretConflict', message: `Secret ${ns}/${name} exists and was not made for this resource; set spec.secretRef to use it` };
    }
    const encoded = secret.data?.[SECRET_KEY];
    if (!encoded) return { reason: 'SecretKeyNotFound', message: `Secret ${ns}/${name} has no key "${SECRET_KEY}"` };
    return { value: Buffer.from(encoded, 'base64').toString('utf8'), name, version: secret.metadata.resourceVersion ?? '' };
  }

  private async readSecret(ns: string, name: string): Promise<SecretObject | undefined> {
    try {
      return await this.client.get<SecretObject>(secretPath(ns, name));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Creates the generated signing Secret, owned by the resource; undefined when it exists already. */
  private async createOwnedSecret(obj: WebhookSubscriptionResource, name: string): Promise<SecretObject | undefined> {
    const ns = obj.metadata.namespace!;
    try {
      return await this.client.create<SecretObject>(secretPath(ns), {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: {
          name,
          namespace: ns,
          labels: { [OWNED_SECRET_LABEL]: obj.metadata.name },
          ownerReferences: [
            { apiVersion: API_VERSION, kind: KIND, name: obj.metadata.name, uid: obj.metadata.uid!, controller: true, blockOwnerDeletion: true },
          ],
        },
        data: { [SECRET_KEY]: Buffer.from(randomBytes(32).toString('base64')).toString('base64') },
      });
    } catch (err) {
      if (isConflict(err)) return undefined;
      throw err;
    }
  }

  private async refuse(obj: WebhookSubscriptionResource, refusal: Refusal): Promise<ReconcileResult> {
    const status: WebhookSubscriptionStatus = {
      ...obj.status,
      observedGeneration: obj.metadata.generation,
      conditions: [condition(obj, 'Ready', 'False', refusal.reason, refusal.message), condition(obj, 'Degraded', 'True', refusal.reason, refusal.message)],
    };
    await this.writeStatus(obj, status);
    return refusal.requeueAfterMs ? { requeueAfterMs: refusal.requeueAfterMs } : {};
  }

  private async writeStatus(obj: WebhookSubscriptionResource, next: WebhookSubscriptionStatus): Promise<void> {
    const previous = obj.status ?? {};
    // A condition keeps its lastTransitionTime unless its status changes.
    next.conditions = next.conditions?.map((c) => {
      const old = previous.conditions?.find((o) => o.type === c.type);
      return old && old.status === c.status ? { ...c, lastTransitionTime: old.lastTransitionTime } : c;
    });
    if (sameStatus(previous, next)) return;
    await this.client.replace(`${resourcePath(obj.metadata.namespace!, obj.metadata.name)}/status`, {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, resourceVersion: obj.metadata.resourceVersion },
      spec: obj.spec,
      status: next,
    });
    this.transitions(obj, previous, next);
  }

  /** Kubernetes Events when Ready or Degraded change. */
  private transitions(obj: WebhookSubscriptionResource, before: WebhookSubscriptionStatus, after: WebhookSubscriptionStatus): void {
    const get = (s: WebhookSubscriptionStatus, t: Condition['type']) => s.conditions?.find((c) => c.type === t);
    const ready = [get(before, 'Ready'), get(after, 'Ready')] as const;
    const degraded = [get(before, 'Degraded'), get(after, 'Degraded')] as const;
    if (ready[1]?.status === 'True' && ready[0]?.status !== 'True') this.recorder.record(obj, 'Normal', 'Ready', ready[1].message);
    if (ready[1]?.status === 'False' && (ready[0]?.status !== 'False' || ready[0]?.reason !== ready[1].reason)) {
      this.recorder.record(obj, 'Warning', ready[1].reason, ready[1].message);
    }
    if (ready[1]?.status === 'True' && degraded[1]?.status === 'True' && (degraded[0]?.status !== 'True' || degraded[0]?.reason !== degraded[1].reason)) {
      this.recorder.record(obj, 'Warning', degraded[1].reason, degraded[1].message);
    }
    if (degraded[0]?.status === 'True' && degraded[1]?.status === 'False') this.recorder.record(obj, 'Normal', 'Recovered', degraded[1].message);
  }
}

function refusalOf(err: unknown): Refusal | undefined {
  if (!(err instanceof AppError) || err.status >= 500) return undefined;
  const known = REFUSALS[err.code];
  // Details the message already says (an invalid URL's reason) are not repeated.
  const detail = err.details
    ?.filter((d) => !err.message.includes(d.message))
    .map((d) => `${d.field}: ${d.message}`)
    .join('; ');
  return {
    reason: known?.reason ?? 'Refused',
    message: detail ? `${err.message} (${detail})` : err.message,
    ...(known?.recheck ? { requeueAfterMs: RECHECK_MS } : {}),
  };
}

function condition(obj: WebhookSubscriptionResource, type: Condition['type'], status: Condition['status'], reason: string, message: string): Condition {
  return { type, status, observedGeneration: obj.metadata.generation, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), reason, message };
}

function statusOf(obj: WebhookSubscriptionResource, sub: WebhookSubscription, secret: { name: string; version: string }): WebhookSubscriptionStatus {
  const wanted = obj.spec.active ?? true;
  const degraded =
    wanted && !sub.active
      ? condition(
          obj,
          'Degraded',
          'True',
          'DisabledAfterFailures',
          `Deliveries were stopped after repeated failures: ${sub.lastError ?? 'unknown error'}; edit the resource to resume`,
        )
      : sub.consecutiveFailures > 0
        ? condition(obj, 'Degraded', 'True', 'DeliveryFailing', `${sub.consecutiveFailures} consecutive failed deliveries: ${sub.lastError ?? 'unknown error'}`)
        : condition(obj, 'Degraded', 'False', 'DeliveriesSucceeding', 'No failed deliveries');
  const status: WebhookSubscriptionStatus = {
    observedGeneration: obj.metadata.generation,
    subscriptionId: sub.id,
    mapId: sub.mapId,
    secretName: secret.name,
    secretVersion: secret.version,
    consecutiveFailures: sub.consecutiveFailures,
    conditions: [condition(obj, 'Ready', 'True', 'Reconciled', `Subscription ${sub.id} on map ${sub.mapId}${sub.active ? '' : ' (inactive)'}`), degraded],
  };
  if (sub.lastDeliveryAt) status.lastDeliveryAt = rfc3339(sub.lastDeliveryAt);
  if (sub.lastErrorAt) status.lastErrorAt = rfc3339(sub.lastErrorAt);
  if (sub.lastError) status.lastError = sub.lastError.slice(0, 1024);
  return status;
}

const rfc3339 = (t: string): string => (t.endsWith('Z') ? t : new Date(t).toISOString());

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

function sameStatus(a: WebhookSubscriptionStatus, b: WebhookSubscriptionStatus): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined && v !== null)
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}
