/**
 * The WebhookSubscription custom resource (mapintel.io/v1alpha1; CRD in
 * charts/mapintel/crds/webhooksubscriptions.mapintel.io.yaml).
 */
import type { KubeObject } from './informer.js';

export const GROUP = 'mapintel.io';
export const VERSION = 'v1alpha1';
export const PLURAL = 'webhooksubscriptions';
export const KIND = 'WebhookSubscription';
export const API_VERSION = `${GROUP}/${VERSION}`;
/** Held on every resource until its platform subscription is removed. */
export const FINALIZER = 'mapintel.io/subscription';
/** Key of the generated signing secret in the owned Secret (and the default of spec.secretRef.key). */
export const SECRET_KEY = 'secret';
/** Label of the Secrets the operator generates. */
export const OWNED_SECRET_LABEL = 'mapintel.io/webhook-subscription';
/** Default key of spec.mapKeySecretRef: the Secret's data key holding the map key. */
export const MAP_KEY_KEY = 'key';

export interface Condition {
  type: 'Ready' | 'Degraded' | 'Progressing';
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface WebhookSubscriptionSpec {
  map: string;
  url: string;
  events: string[];
  active?: boolean;
  secretRef?: { name: string; key?: string };
  /** A Secret of the resource's namespace holding a key of the map: the proof that it may read the map. */
  mapKeySecretRef?: { name: string; key?: string };
}

export interface WebhookSubscriptionStatus {
  observedGeneration?: number;
  subscriptionId?: string;
  mapId?: string;
  secretName?: string;
  secretVersion?: string;
  /** Id (not the key) of the map key that spec.mapKeySecretRef proved, re-checked for revocation. */
  mapKeyId?: string;
  lastDeliveryAt?: string;
  lastErrorAt?: string;
  lastError?: string;
  consecutiveFailures?: number;
  conditions?: Condition[];
}

export interface WebhookSubscriptionResource extends KubeObject {
  spec: WebhookSubscriptionSpec;
  status?: WebhookSubscriptionStatus;
}

export interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export const collectionPath = (): string => `/apis/${GROUP}/${VERSION}/${PLURAL}`;
export const resourcePath = (ns: string, name: string): string => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}/${name}`;
export const secretPath = (ns: string, name?: string): string => `/api/v1/namespaces/${ns}/secrets${name ? `/${name}` : ''}`;
/** `managed_by` of the platform subscription a resource owns. */
export const managedByOf = (ns: string, name: string): string => `kubernetes:${ns}/${name}`;
/** Name of the Secret generated for a resource without spec.secretRef (a DNS subdomain of at most 253). */
export const ownedSecretName = (name: string): string => `${name.slice(0, 253 - '-webhook-secret'.length)}-webhook-secret`;
