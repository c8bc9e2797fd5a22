import type { Db } from '../db/db.js';
import type { SecretBox } from '../common/crypto.js';
import { AppError, NotFoundError } from '../common/errors.js';
import { MapRefRepository } from '../maps/map.repository.js';
import type { Resolve } from './url-guard.js';
import { SubscriptionRepository } from './subscription.repository.js';
import { DeliveryRepository } from './delivery.repository.js';
import { toSubscription, type WebhookSubscription } from './webhook.presenters.js';
import { checkedUrl, insertSubscription, newSecret, normalizeEvents, urlTakenError } from './subscription-rules.js';

/** What a managing resource (a Kubernetes WebhookSubscription) wants to exist. */
export interface ManagedSubscriptionSpec {
  /** `kubernetes:<namespace>/<name>`. */
  managedBy: string;
  /** Map UUID or slug. */
  map: string;
  url: string;
  events: readonly string[];
  active: boolean;
  /** The signing secret (from the resource's Secret). */
  secret: string;
}

type Applied = { subscription: WebhookSubscription; created: boolean };
/** planManaged's answer: refused as applying would be, or the subscription now and whether applying changes it. */
export type ManagedPlan = { refused: AppError } | { current: WebhookSubscription | undefined; differs: boolean };
class DryRunDone {
  constructor(readonly result: Applied) {}
}

/**
 * Subscriptions owned by a managing resource (the Kubernetes operator calls these): read-only through
 * the management API, changed only here.
 */
export class ManagedWebhookService {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly opts: { allowInsecureUrls: boolean; resolve?: Resolve | undefined },
    private readonly subs = new SubscriptionRepository(),
    private readonly deliveries = new DeliveryRepository(),
    private readonly maps = new MapRefRepository(),
  ) {}

  /** Creates or updates the subscription of `spec.managedBy`; `created` tells which. A dry run (DryRunDone) changes nothing. */
  async applyManaged(spec: ManagedSubscriptionSpec, opts: { dryRun?: boolean } = {}): Promise<Applied> {
    const events = normalizeEvents(spec.events);
    const url = await checkedUrl(spec.url, this.opts);
    // A dry run refuses what applying would refuse, and changes nothing: its transaction is rolled back.
    const done = (err: unknown) => (err instanceof DryRunDone ? err.result : Promise.reject(err));
    return this.db
      .transaction(async (tx) => {
        const result = await this.applyManagedIn(tx, spec, url, events);
        if (opts.dryRun) throw new DryRunDone(result);
        return result;
      })
      .catch(done);
  }

  private async applyManagedIn(tx: Db, spec: ManagedSubscriptionSpec, url: string, events: string[]): Promise<Applied> {
    const map = await this.maps.byReference(tx, spec.map);
    if (!map) throw new NotFoundError(`Map not found: ${spec.map}`, 'map_not_found');
    await this.subs.bumpMap(tx, map.id);
    const current = await this.subs.byManagedBy(tx, spec.managedBy);
    if (current && current.map_id !== map.id) {
      // The resource now names another map: the old subscription goes, a new one is made.
      await this.subs.bumpMap(tx, current.map_id);
      await this.subs.remove(tx, current.id);
    }
    const keep = current && current.map_id === map.id ? current : undefined;
    if (keep) {
      if (url !== keep.url && (await this.subs.urlTaken(tx, map.id, url, keep.id))) throw urlTakenError();
      const secretChanged = this.box.decrypt(keep.secret_encrypted) !== spec.secret;
      await this.subs.update(tx, keep.id, { url, events, active: spec.active, ...(secretChanged ? { secretEncrypted: this.box.encrypt(spec.secret) } : {}) });
      if (!spec.active) await this.deliveries.dropPending(tx, keep.id);
      return { subscription: toSubscription((await this.subs.byId(tx, map.id, keep.id))!), created: false };
    }
    const id = await insertSubscription(tx, this.subs, this.box, {
      mapId: map.id,
      url,
      events,
      active: spec.active,
      secret: spec.secret,
      managedBy: spec.managedBy,
    });
    return { subscription: toSubscription((await this.subs.byId(tx, map.id, id))!), created: true };
  }

  /**
   * What applying `spec` would do, decided in one call that changes nothing (its transaction is rolled
   * back): `refused` with the error applying would throw (a 4xx AppError), or the subscription as it
   * is now (if any) and whether its map, URL or events differ from the spec. The operator asks this
   * once per reconcile, then generates a signing secret and applies only when something must change.
   */
  async planManaged(spec: Omit<ManagedSubscriptionSpec, 'secret'>): Promise<ManagedPlan> {
    try {
      const events = normalizeEvents(spec.events);
      const url = await checkedUrl(spec.url, this.opts);
      let current: WebhookSubscription | undefined;
      const result = await this.db
        .transaction(async (tx) => {
          const row = await this.subs.byManagedBy(tx, spec.managedBy);
          current = row && toSubscription(row);
          throw new DryRunDone(await this.applyManagedIn(tx, { ...spec, secret: row ? this.box.decrypt(row.secret_encrypted) : newSecret() }, url, events));
        })
        .catch((err: unknown) => (err instanceof DryRunDone ? err.result : Promise.reject(err)));
      const next = result.subscription;
      const same = (a: readonly string[], b: readonly string[]) => [...a].sort().join('\n') === [...b].sort().join('\n');
      return { current, differs: !current || current.mapId !== next.mapId || current.url !== next.url || !same(current.events, next.events) };
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return { refused: err };
      throw err;
    }
  }

  /** Removes the subscription of `managedBy`; false when there was none. */
  async removeManaged(managedBy: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const current = await this.subs.byManagedBy(tx, managedBy);
      if (!current) return false;
      await this.subs.bumpMap(tx, current.map_id);
      return this.subs.remove(tx, current.id);
    });
  }

  async getManaged(managedBy: string): Promise<WebhookSubscription | undefined> {
    const row = await this.subs.byManagedBy(this.db, managedBy);
    return row && toSubscription(row);
  }

  /** Every managed subscription whose managed_by starts with the prefix (default: Kubernetes ones). */
  async listManaged(prefix = 'kubernetes:'): Promise<WebhookSubscription[]> {
    return (await this.subs.listManaged(this.db, prefix)).map(toSubscription);
  }
}
