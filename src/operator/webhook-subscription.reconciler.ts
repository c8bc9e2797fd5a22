/**
 * Reconciles one WebhookSubscription resource into the platform subscription it manages
 * (`managed_by` kubernetes:<ns>/<name>), level-triggered and idempotent: running it twice changes
 * nothing. The finalizer goes on before any side effect and comes off after the subscription is gone.
 * Nothing is applied (and no Secret generated) before the resource proves, with a key of the map in
 * the Secret spec.mapKeySecretRef names, that it may read the map, and before the spec is accepted.
 * The status is written only when it changed, by server-side apply of /status.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../common/log.js';
import { AppError } from '../common/errors.js';
import type { WebhookService } from '../webhooks/webhook.service.js';
import { normalizeEvents } from '../webhooks/webhook.service.js';
import { canonicalUrl, NOT_PUBLIC_MESSAGE } from '../webhooks/url-guard.js';
import { isConflict, isNotFound, type KubeClient } from './kube-client.js';
import type { EventRecorder } from './event-recorder.js';
import type { MapFacts } from './map-facts.js';
import { condition, statusOf } from './webhook-subscription.conditions.js';
import {
  API_VERSION,
  FINALIZER,
  KIND,
  MAP_KEY_KEY,
  OWNED_SECRET_LABEL,
  SECRET_KEY,
  managedByOf,
  ownedSecretName,
  resourcePath,
  secretPath,
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
  /**
   * namespace/name → the status this leader last wrote (the apiserver's answer). The cache may still
   * hold an older one when the next reconcile starts; transitions and Events are judged against this.
   */
  private readonly written = new Map<string, { uid: string; status: WebhookSubscriptionStatus }>();

  constructor(
    private readonly client: KubeClient,
    private readonly subscriptions: ManagedSubscriptions,
    private readonly facts: MapFacts,
    private readonly recorder: EventRecorder,
    private readonly log: Logger,
    /** The cached resource by namespace/name (the informer's). */
    private readonly cached: (key: string) => WebhookSubscriptionResource | undefined,
    /** A cached Secret's metadata by namespace/name (the generated ones are always cached). */
    private readonly cachedSecret: (key: string) => SecretObject | undefined,
    private readonly opts: ReconcilerOptions = {},
  ) {}

  async reconcile(key: string): Promise<ReconcileResult> {
    const cr = this.cached(key);
    if (!cr) {
      this.dnsRefusals.delete(key);
      this.written.delete(key);
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
    const mine = this.written.get(key);
    let obj: WebhookSubscriptionResource = mine && mine.uid === cr.metadata.uid ? { ...cr, status: mine.status } : cr;
    if (!finalizers.includes(FINALIZER)) {
      const patched = await this.client.patch<WebhookSubscriptionResource>(resourcePath(ns, name), {
        metadata: { finalizers: [...finalizers, FINALIZER], resourceVersion: cr.metadata.resourceVersion },
      });
      obj = { ...patched, status: obj.status ?? patched.status };
    }

    // Before the first reconcile's outcome: Ready=Unknown (kubectl shows it at once).
    if (!obj.status?.conditions?.length) {
      const reconciling = 'Checking the map key, the signing secret and the spec';
      await this.writeStatus(obj, {
        conditions: [condition(obj, 'Ready', 'Unknown', 'Progressing', reconciling), condition(obj, 'Degraded', 'Unknown', 'Progressing', reconciling)],
      });
    }

    const spec = obj.spec;
    const proof = await this.mapKeyProof(obj);
    // Without a valid key the subscription goes; a map that does not exist (yet) is only a refused change.
    if ('reason' in proof) return this.refuse(obj, proof, { withdraw: proof.reason !== 'MapNotFound' });
    let events: string[];
    try {
      events = normalizeEvents(spec.events);
    } catch (err) {
      return this.refuse(obj, refusalOf(err)!);
    }
    const active = spec.active ?? true;
    const applyWith = (secretValue: string, dryRun = false) =>
      this.subscriptions.applyManaged({ managedBy, map: spec.map, url: spec.url, events, active, secret: secretValue }, { dryRun });

    // A Secret is generated only for a spec the platform accepts: a dry run first.
    const secret = await this.signingSecret(obj, async () => {
      try {
        await applyWith(randomBytes(24).toString('base64'), true);
        return undefined;
      } catch (err) {
        const refusal = refusalOf(err);
        if (!refusal) throw err;
        return refusal;
      }
    });
    if ('reason' in secret) return this.refuse(obj, secret);

    const generation = obj.metadata.generation ?? 0;
    let sub = await this.subscriptions.getManaged(managedBy);
    // `active` is applied only when the spec changed: a subscription the workers disabled after repeated
    // failures stays disabled (and shows as Degraded) until the resource is edited. A spec whose last
    // application was refused (Ready=False, written by refuse() with this generation) is tried again,
    // so it stays refused until what it needs exists, instead of passing for applied.
    const stale =
      !sub ||
      obj.status?.observedGeneration !== generation ||
      obj.status?.conditions?.some(
        (c) => c.type === 'Ready' && c.status !== 'True' && c.reason !== 'DisabledAfterFailures' && c.reason !== 'MapWebhooksDisabled',
      ) === true ||
      obj.status?.secretVersion !== secret.version ||
      obj.status?.subscriptionId !== sub.id ||
      sub.url !== canonicalUrl(spec.url) ||
      !sameSet(sub.events, events);
    if (stale) {
      try {
        const applied = await applyWith(secret.value);
        sub = applied.subscription;
        if (applied.created) {
          const generated = secret.generated ? ` (signing secret generated in Secret ${secret.name})` : '';
          this.recorder.record(obj, 'Normal', 'SubscriptionCreated', `Subscription ${sub.id} created on map ${sub.mapId}${generated}`);
        } else if (obj.status?.subscriptionId === sub.id) this.recorder.record(obj, 'Normal', 'SubscriptionUpdated', `Subscription ${sub.id} updated`);
      } catch (err) {
        const refusal = refusalOf(err);
        if (!refusal) throw err;
        return this.refuse(obj, refusal);
      }
    }
    this.dnsRefusals.delete(key);
    const enabled = (await this.facts.webhooksEnabled([sub!.mapId])).get(sub!.mapId) ?? false;
    await this.writeStatus(obj, statusOf(obj, sub!, secret, proof.keyId, enabled));
    return {};
  }

  /** The map key of spec.mapKeySecretRef, checked against the map spec.map names. */
  private async mapKeyProof(obj: WebhookSubscriptionResource): Promise<{ keyId: string } | Refusal> {
    const ns = obj.metadata.namespace!;
    const ref = obj.spec.mapKeySecretRef;
    if (!ref) {
      return {
        reason: 'MapKeyRequired',
        message: `spec.mapKeySecretRef must name a Secret of namespace ${ns} holding a key of map ${obj.spec.map}: the proof that this namespace may read the map`,
      };
    }
    const key = ref.key ?? MAP_KEY_KEY;
    const secret = await this.readSecret(ns, ref.name);
    if (!secret) return { reason: 'MapKeySecretNotFound', message: `Secret ${ns}/${ref.name} (spec.mapKeySecretRef) not found` };
    const encoded = secret.data?.[key];
    if (!encoded) return { reason: 'MapKeySecretKeyNotFound', message: `Secret ${ns}/${ref.name} (spec.mapKeySecretRef) has no key "${key}"` };
    const checked = await this.facts.checkMapKey(obj.spec.map, Buffer.from(encoded, 'base64').toString('utf8'));
    if (!checked.ok) return { reason: checked.reason, message: checked.message, ...(checked.reason === 'MapNotFound' ? { requeueAfterMs: RECHECK_MS } : {}) };
    return { keyId: checked.keyId };
  }

  /**
   * The signing secret: spec.secretRef's, or one generated into a Secret owned by the resource. Before
   * generating one, `accepted` says whether the platform would take the spec (a refusal, or undefined).
   */
  private async signingSecret(
    obj: WebhookSubscriptionResource,
    accepted: () => Promise<Refusal | undefined>,
  ): Promise<{ value: string; name: string; version: string; generated?: boolean } | Refusal> {
    const ns = obj.metadata.namespace!;
    const ref = obj.spec.secretRef;
    if (ref) {
      const key = ref.key ?? SECRET_KEY;
      const secret = await this.readSecret(ns, ref.name);
      if (!secret) return { reason: 'SecretNotFound', message: `Secret ${ns}/${ref.name} not found` };
      const encoded = secret.data?.[key];
      if (!encoded) return { reason: 'SecretKeyNotFound', message: `Secret ${ns}/${ref.name} has no key "${key}"` };
      const value = Buffer.from(encoded, 'base64').toString('utf8');
      if (value.length < 16) return { reason: 'SecretTooShort', message: `The signing secret in ${ns}/${ref.name} must have at least 16 characters` };
      return { value, name: ref.name, version: secret.metadata.resourceVersion ?? '' };
    }
    const name = ownedSecretName(obj.metadata.name);
    // The cache holds every generated Secret (by its label): absent there, most likely absent.
    let secret = this.cachedSecret(`${ns}/${name}`) ? await this.readSecret(ns, name) : undefined;
    let generated = false;
    if (!secret) {
      const refused = await accepted();
      if (refused) return refused;
      secret = await this.createOwnedSecret(obj, name);
      generated = secret !== undefined;
      // AlreadyExists (a Secret of that name the cache does not hold): read it.
      secret ??= await this.readSecret(ns, name);
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
    return { value: Buffer.from(encoded, 'base64').toString('utf8'), name, version: secret.metadata.resourceVersion ?? '', generated };
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
          // No blockOwnerDeletion: it would need update on webhooksubscriptions/finalizers where the
          // OwnerReferencesPermissionEnforcement admission plugin runs, for a foreground deletion nobody needs.
          ownerReferences: [{ apiVersion: API_VERSION, kind: KIND, name: obj.metadata.name, uid: obj.metadata.uid!, controller: true }],
        },
        data: { [SECRET_KEY]: Buffer.from(randomBytes(32).toString('base64')).toString('base64') },
      });
    } catch (err) {
      if (isConflict(err)) return undefined;
      throw err;
    }
  }

  /**
   * Reports a refusal in the status. `withdraw`: the resource no longer proves it may read the map, so
   * the subscription it made (if any) is removed, not left delivering.
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
    const status: WebhookSubscriptionStatus = {
      ...rest,
      ...kept,
      observedGeneration: obj.metadata.generation,
      conditions: [condition(obj, 'Ready', 'False', refusal.reason, refusal.message), condition(obj, 'Degraded', 'True', refusal.reason, refusal.message)],
    };
    await this.writeStatus(obj, status);
    return requeueAfterMs ? { requeueAfterMs } : {};
  }

  /** Writes /status by server-side apply (field manager mapintel-operator), only when it changed. */
  /** Forgets what was written (leadership starts again: another leader may have written since). */
  forgetWritten(): void {
    this.written.clear();
  }

  private async writeStatus(obj: WebhookSubscriptionResource, next: WebhookSubscriptionStatus): Promise<void> {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    const mine = this.written.get(key);
    const previous = (mine && mine.uid === obj.metadata.uid ? mine.status : obj.status) ?? {};
    // A condition keeps its lastTransitionTime unless its status changes.
    next.conditions = next.conditions?.map((c) => {
      const old = previous.conditions?.find((o) => o.type === c.type);
      return old && old.status === c.status ? { ...c, lastTransitionTime: old.lastTransitionTime } : c;
    });
    if (sameStatus(previous, next)) return;
    const applied = await this.client.patch<WebhookSubscriptionResource>(
      `${resourcePath(obj.metadata.namespace!, obj.metadata.name)}/status`,
      { apiVersion: API_VERSION, kind: KIND, metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace }, status: canonical(next) },
      'apply',
    );
    this.transitions(obj, previous, next);
    // The next write (of this reconcile or the next) starts from what was written.
    obj.status = applied.status ?? next;
    this.written.set(key, { uid: obj.metadata.uid ?? '', status: obj.status });
  }

  /** Kubernetes Events when Ready or Degraded change: a Warning on each move to a new trouble. */
  private transitions(obj: WebhookSubscriptionResource, before: WebhookSubscriptionStatus, after: WebhookSubscriptionStatus): void {
    const get = (s: WebhookSubscriptionStatus, t: 'Ready' | 'Degraded') => s.conditions?.find((c) => c.type === t);
    const ready = [get(before, 'Ready'), get(after, 'Ready')] as const;
    const degraded = [get(before, 'Degraded'), get(after, 'Degraded')] as const;
    // Ready after a refusal or a stop; the first Ready of a new resource says SubscriptionCreated already.
    if (ready[1]?.status === 'True' && ready[0]?.status === 'False') this.recorder.record(obj, 'Normal', 'Ready', ready[1].message);
    const trouble = degraded[1]?.status === 'True' ? degraded[1] : undefined;
    if (trouble && (degraded[0]?.status !== 'True' || degraded[0]?.reason !== trouble.reason))
      this.recorder.record(obj, 'Warning', trouble.reason, trouble.message);
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
