/**
 * The Secrets a WebhookSubscription depends on: the map key of spec.mapKeySecretRef (its proof that it
 * may read the map), and the signing secret, spec.secretRef's or one generated into a Secret the
 * resource owns. The generated Secret is written by server-side apply with the operator's field
 * manager, so a hand edit of what the operator owns there (its labels, its owner reference) is
 * repaired on the next reconcile; its value is written once and carried along unchanged.
 */
import { randomBytes } from 'node:crypto';
import { isNotFound, type KubeClient } from './kube-client.js';
import type { MapFacts } from './map-facts.js';
import {
  API_VERSION,
  KIND,
  MAP_KEY_KEY,
  OWNED_SECRET_LABEL,
  SECRET_KEY,
  ownedSecretName,
  secretPath,
  type SecretObject,
  type WebhookSubscriptionResource,
} from './webhook-subscription.types.js';

/** A resource whose spec the platform refuses: reported in its status, not retried in a loop. */
export interface Refusal {
  reason: string;
  message: string;
  requeueAfterMs?: number;
}

export interface SigningSecret {
  value: string;
  name: string;
  version: string;
  /** Made by this reconcile. */
  generated?: boolean;
}

/** Refused specs that another change elsewhere may cure (a map created, a slot freed) are looked at again after this. */
export const RECHECK_MS = 60_000;

/** The labels of a generated Secret (the recommended app.kubernetes.io set, and the one the cache selects by). */
export function ownedSecretLabels(obj: WebhookSubscriptionResource): Record<string, string> {
  return {
    [OWNED_SECRET_LABEL]: obj.metadata.name,
    'app.kubernetes.io/name': 'mapintel',
    'app.kubernetes.io/instance': obj.metadata.name.slice(0, 63),
    'app.kubernetes.io/component': 'webhook-signing-secret',
    'app.kubernetes.io/part-of': 'mapintel',
    'app.kubernetes.io/managed-by': 'mapintel-operator',
  };
}

/** The owner reference of a generated Secret: controller, and blocking the owner's foreground deletion until it is gone. */
export const ownerReferenceOf = (obj: WebhookSubscriptionResource) => ({
  apiVersion: API_VERSION,
  kind: KIND,
  name: obj.metadata.name,
  uid: obj.metadata.uid!,
  controller: true,
  blockOwnerDeletion: true,
});

export class SubscriptionSecrets {
  constructor(
    private readonly client: KubeClient,
    private readonly facts: MapFacts,
  ) {}

  /** The map key of spec.mapKeySecretRef, checked against the map spec.map names. */
  async mapKeyProof(obj: WebhookSubscriptionResource): Promise<{ keyId: string } | Refusal> {
    const ns = obj.metadata.namespace!;
    const ref = obj.spec.mapKeySecretRef;
    if (!ref) {
      return {
        reason: 'MapKeyRequired',
        message: `spec.mapKeySecretRef must name a Secret of namespace ${ns} holding a key of map ${obj.spec.map}: the proof that this namespace may read the map`,
      };
    }
    const key = ref.key ?? MAP_KEY_KEY;
    const secret = await this.read(ns, ref.name);
    if (!secret) return { reason: 'MapKeySecretNotFound', message: `Secret ${ns}/${ref.name} (spec.mapKeySecretRef) not found` };
    const encoded = secret.data?.[key];
    if (!encoded) return { reason: 'MapKeySecretKeyNotFound', message: `Secret ${ns}/${ref.name} (spec.mapKeySecretRef) has no key "${key}"` };
    const checked = await this.facts.checkMapKey(obj.spec.map, Buffer.from(encoded, 'base64').toString('utf8'));
    if (!checked.ok) return { reason: checked.reason, message: checked.message, ...(checked.reason === 'MapNotFound' ? { requeueAfterMs: RECHECK_MS } : {}) };
    return { keyId: checked.keyId };
  }

  /**
   * The signing secret: spec.secretRef's, or the generated one (made when absent, repaired when its
   * labels or owner reference drifted). Call it only for a spec the platform accepts.
   */
  async signingSecret(obj: WebhookSubscriptionResource): Promise<SigningSecret | Refusal> {
    const ns = obj.metadata.namespace!;
    const ref = obj.spec.secretRef;
    if (ref) {
      const key = ref.key ?? SECRET_KEY;
      const secret = await this.read(ns, ref.name);
      if (!secret) return { reason: 'SecretNotFound', message: `Secret ${ns}/${ref.name} not found` };
      const encoded = secret.data?.[key];
      if (!encoded) return { reason: 'SecretKeyNotFound', message: `Secret ${ns}/${ref.name} has no key "${key}"` };
      const value = Buffer.from(encoded, 'base64').toString('utf8');
      if (value.length < 16) return { reason: 'SecretTooShort', message: `The signing secret in ${ns}/${ref.name} must have at least 16 characters` };
      return { value, name: ref.name, version: secret.metadata.resourceVersion ?? '' };
    }
    const name = ownedSecretName(obj.metadata.name);
    // Read even when the cache lacks it: an apply over a Secret that exists would replace its value.
    let secret = await this.read(ns, name);
    let generated = false;
    if (!secret) {
      secret = await this.apply(obj, name, Buffer.from(randomBytes(32).toString('base64')).toString('base64'));
      generated = true;
    } else {
      const owner = secret.metadata.ownerReferences?.find((o) => o.controller);
      if (owner && owner.uid !== obj.metadata.uid) {
        return { reason: 'SecretConflict', message: `Secret ${ns}/${name} is controlled by another object` };
      }
      if (!owner && secret.metadata.labels?.[OWNED_SECRET_LABEL] !== obj.metadata.name) {
        return { reason: 'SecretConflict', message: `Secret ${ns}/${name} exists and was not made for this resource; set spec.secretRef to use it` };
      }
      const encoded = secret.data?.[SECRET_KEY];
      if (!encoded) return { reason: 'SecretKeyNotFound', message: `Secret ${ns}/${name} has no key "${SECRET_KEY}"` };
      if (drifted(secret, obj)) secret = await this.apply(obj, name, encoded);
    }
    const encoded = secret.data?.[SECRET_KEY] ?? '';
    return { value: Buffer.from(encoded, 'base64').toString('utf8'), name, version: secret.metadata.resourceVersion ?? '', generated };
  }

  async read(ns: string, name: string): Promise<SecretObject | undefined> {
    try {
      return await this.client.get<SecretObject>(secretPath(ns, name));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Server-side apply of the generated Secret: what the operator owns of it, with `encoded` as its value. */
  private async apply(obj: WebhookSubscriptionResource, name: string, encoded: string): Promise<SecretObject> {
    const ns = obj.metadata.namespace!;
    return this.client.patch<SecretObject>(
      secretPath(ns, name),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: { name, namespace: ns, labels: ownedSecretLabels(obj), ownerReferences: [ownerReferenceOf(obj)] },
        data: { [SECRET_KEY]: encoded },
      },
      'apply',
    );
  }
}

/** The generated Secret lacks a label or the owner reference the operator gives it. */
function drifted(secret: SecretObject, obj: WebhookSubscriptionResource): boolean {
  const labels = secret.metadata.labels ?? {};
  if (Object.entries(ownedSecretLabels(obj)).some(([k, v]) => labels[k] !== v)) return true;
  const want = ownerReferenceOf(obj);
  const have = secret.metadata.ownerReferences?.find((o) => o.uid === want.uid);
  return !have || have.controller !== true || have.blockOwnerDeletion !== true || have.name !== want.name || have.kind !== want.kind;
}
