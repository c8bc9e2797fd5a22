/**
 * Reconciles one WebhookSubscription resource into the platform subscription it manages
 * (`managed_by` kubernetes:<ns>/<name>), level-triggered and idempotent: running it twice changes
 * nothing. The finalizer goes on before any side effect and comes off after the subscription is gone.
 * Nothing is applied (and no Secret generated) before the resource proves, with a key of the map in
 * the Secret spec.mapKeySecretRef names, that it may read the map, and before the platform accepts
 * the spec: one planManaged call says that, and whether the subscription must change.
 * Its seams: the Secrets (webhook-subscription.secrets.ts), the status and its Events
 * (webhook-subscription.status.ts), the conditions (webhook-subscription.conditions.ts).
 */
import type { Logger } from '../common/log.js';
import { AppError } from '../common/errors.js';
import type { WebhookService } from '../webhooks/webhook.service.js';
import { NOT_PUBLIC_MESSAGE } from '../webhooks/url-guard.js';
import type { KubeClient } from './kube-client.js';
import type { EventRecorder } from './event-recorder.js';
import type { MapFacts } from './map-facts.js';
import { condition, findStatusCondition, statusOf } from './webhook-subscription.conditions.js';
import { RECHECK_MS, SubscriptionSecrets, type Refusal } from './webhook-subscription.secrets.js';
import { StatusWriter } from './webhook-subscription.status.js';
import { FINALIZER, managedByOf, resourcePath, type WebhookSubscriptionResource, type WebhookSubscriptionStatus } from './webhook-subscription.types.js';

export type ManagedSubscriptions = Pick<WebhookService, 'planManaged' | 'applyManaged' | 'removeManaged' | 'listManaged'>;

export interface ReconcileResult {
  /** Reconcile again after this long even without a change (a map that may appear later). */
  requeueAfterMs?: number;
}

/** A URL whose host does not resolve (yet) or resolves to a private address is looked at again, backing off to this. */
const DNS_RECHECK_MAX_MS = 10 * 60_000;

/** Errors of the subscriptions service that mean "this spec cannot be applied", by code. */
const REFUSALS: Record<string, { reason: string; recheck: boolean }> = {
  map_not_found: { reason: 'MapNotFound', recheck: true },
  webhook_limit_reached: { reason: 'LimitReached', recheck: true },
  webhook_url_exists: { reason: 'URLInUse', recheck: true },
  invalid_webhook_url: { reason: 'InvalidURL', recheck: false },
  validation_failed: { reason: 'InvalidSpec', recheck: false },
};
/**
 * Whether a refusal of the URL is one DNS may cure (a host that does not resolve yet, or not to public
 * addresses): retried with backoff. The refusal says which only by this one message (url-guard.ts).
 */
const dnsDependent = (message: string): boolean => message.includes(NOT_PUBLIC_MESSAGE);

export interface ReconcilerOptions {
  /** First recheck of a URL that DNS may cure; doubles each time up to DNS_RECHECK_MAX_MS. */
  dnsRecheckMs?: number;
}

export class WebhookSubscriptionReconciler {
  /** namespace/name → DNS refusals in a row (the backoff's exponent). */
  private readonly dnsRefusals = new Map<string, number>();
  private readonly status: StatusWriter;
  private readonly secrets: SubscriptionSecrets;

  constructor(
    private readonly client: KubeClient,
    private readonly subscriptions: ManagedSubscriptions,
    private readonly facts: MapFacts,
    private readonly recorder: EventRecorder,
    private readonly log: Logger,
    /** The cached resource by namespace/name (the informer's). */
    private readonly cached: (key: string) => WebhookSubscriptionResource | undefined,
    private readonly opts: ReconcilerOptions = {},
  ) {
    this.status = new StatusWriter(client, recorder);
    this.secrets = new SubscriptionSecrets(client, facts);
  }

  /** Forgets what was written (leadership starts again: another leader may have written since). */
  forgetWritten(): void {
    this.status.forgetAll();
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const cr = this.cached(key);
    if (!cr) {
      this.dnsRefusals.delete(key);
      this.status.forget(key);
      return {};
    }
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

    // The status this leader wrote last is newer than (or as new as) the cache's.
    let obj = this.status.latest(cr);
    if (!finalizers.includes(FINALIZER)) {
      const patched = await this.client.patch<WebhookSubscriptionResource>(resourcePath(ns, name), {
        metadata: { finalizers: [...finalizers, FINALIZER], resourceVersion: cr.metadata.resourceVersion },
      });
      obj = { ...patched, status: obj.status ?? patched.status };
    }

    const generation = obj.metadata.generation ?? 0;
    if (!obj.status?.conditions?.length) {
      // Before the first reconcile's outcome: Ready=Unknown, Progressing=True (kubectl shows it at once).
      const reconciling = 'Checking the map key, the signing secret and the spec';
      await this.status.write(obj, {
        conditions: [
          condition(obj, 'Ready', 'Unknown', 'Progressing', reconciling),
          condition(obj, 'Degraded', 'Unknown', 'Progressing', reconciling),
          condition(obj, 'Progressing', 'True', 'Reconciling', reconciling),
        ],
      });
    } else if (obj.status.observedGeneration !== undefined && obj.status.observedGeneration !== generation) {
      // A new generation is being worked on: Progressing=True until its outcome is written.
      await this.status.write(obj, {
        ...obj.status,
        conditions: [
          ...(obj.status.conditions.filter((c) => c.type !== 'Progressing') ?? []),
          condition(obj, 'Progressing', 'True', 'NewGeneration', `Applying generation ${generation}`),
        ],
      });
    }

    const spec = obj.spec;
    const proof = await this.secrets.mapKeyProof(obj);
    // Without a valid key the subscription goes; a map that does not exist (yet) is only a refused change.
    if ('reason' in proof) return this.refuse(obj, proof, { withdraw: proof.reason !== 'MapNotFound' });
    const active = spec.active ?? true;
    // One call decides: refused as applying would be, or the subscription now and whether it must change.
    const plan = await this.subscriptions.planManaged({ managedBy, map: spec.map, url: spec.url, events: spec.events, active });
    if ('refused' in plan) return this.refuse(obj, refusalOf(plan.refused));

    // Only now may a Secret be generated: the platform takes the spec.
    const secret = await this.secrets.signingSecret(obj);
    if ('reason' in secret) return this.refuse(obj, secret);

    let sub = plan.current;
    // `active` is applied only when the spec changed: a subscription the workers disabled after repeated
    // failures stays disabled (and shows as Degraded) until the resource is edited. A spec whose last
    // application was refused (Ready=False, written by refuse() with this generation) is tried again,
    // so it stays refused until what it needs exists, instead of passing for applied.
    const ready = findStatusCondition(obj.status?.conditions, 'Ready');
    const stale =
      !sub ||
      plan.differs ||
      obj.status?.observedGeneration !== generation ||
      (ready !== undefined && ready.status !== 'True' && ready.reason !== 'DisabledAfterFailures' && ready.reason !== 'MapWebhooksDisabled') ||
      obj.status?.secretVersion !== secret.version ||
      obj.status?.subscriptionId !== sub.id;
    if (stale) {
      try {
        const applied = await this.subscriptions.applyManaged({ managedBy, map: spec.map, url: spec.url, events: spec.events, active, secret: secret.value });
        sub = applied.subscription;
        if (applied.created) {
          const generated = secret.generated ? ` (signing secret generated in Secret ${secret.name})` : '';
          this.recorder.record(obj, 'Normal', 'SubscriptionCreated', `Subscription ${sub.id} created on map ${sub.mapId}${generated}`);
        } else if (obj.status?.subscriptionId === sub.id) this.recorder.record(obj, 'Normal', 'SubscriptionUpdated', `Subscription ${sub.id} updated`);
      } catch (err) {
        // Refused between the plan and the apply (a slot taken meanwhile): the same as a refused plan.
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        return this.refuse(obj, refusalOf(err));
      }
    }
    this.dnsRefusals.delete(key);
    const enabled = (await this.facts.webhooksEnabled([sub!.mapId])).get(sub!.mapId) ?? false;
    await this.status.write(obj, statusOf(obj, sub!, secret, proof.keyId, enabled));
    return {};
  }

  /**
   * Reports a refusal in the status. `withdraw`: the resource no longer proves it may read the map, so
   * the subscription it made (if any) is removed, not left delivering. Progressing stays True while the
   * refusal is checked again, and turns False when only a change of the spec can cure it.
   */
  private async refuse(obj: WebhookSubscriptionResource, refusal: Refusal, opts: { withdraw?: boolean } = {}): Promise<ReconcileResult> {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    let requeueAfterMs = refusal.requeueAfterMs;
    if (refusal.reason === 'InvalidURL' && dnsDependent(refusal.message)) {
      const n = this.dnsRefusals.get(key) ?? 0;
      this.dnsRefusals.set(key, n + 1);
      requeueAfterMs = Math.min(DNS_RECHECK_MAX_MS, (this.opts.dnsRecheckMs ?? 15_000) * 2 ** Math.min(n, 10));
    }
    const { subscriptionId, mapId, mapKeyId, ...rest } = obj.status ?? {};
    let kept = { subscriptionId, mapId, mapKeyId };
    if (opts.withdraw && (await this.subscriptions.removeManaged(managedByOf(obj.metadata.namespace!, obj.metadata.name)))) {
      this.recorder.record(obj, 'Warning', 'SubscriptionWithdrawn', `Subscription ${subscriptionId ?? ''} removed: ${refusal.message}`);
      kept = { subscriptionId: undefined, mapId: undefined, mapKeyId: undefined };
    }
    const progressing = requeueAfterMs
      ? condition(obj, 'Progressing', 'True', refusal.reason, `Refused, checked again in ${Math.round(requeueAfterMs / 1000)} s: ${refusal.message}`)
      : condition(obj, 'Progressing', 'False', refusal.reason, `Refused until the spec changes: ${refusal.message}`);
    const status: WebhookSubscriptionStatus = {
      ...rest,
      ...kept,
      observedGeneration: obj.metadata.generation,
      conditions: [
        condition(obj, 'Ready', 'False', refusal.reason, refusal.message),
        condition(obj, 'Degraded', 'True', refusal.reason, refusal.message),
        progressing,
      ],
    };
    await this.status.write(obj, status);
    return requeueAfterMs ? { requeueAfterMs } : {};
  }
}

/** The refusal of a 4xx AppError of the subscriptions service. */
function refusalOf(err: AppError): Refusal {
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
