/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: a candidate takes the
 * Lease when it is free or when its holder has not renewed it for leaseDuration, measured on the
 * candidate's own clock from the moment it last saw the record change (so clock skew between pods
 * does not matter); the leader renews every retry period and steps down when it could not renew
 * within the renew deadline. Writes carry the resourceVersion read, so two candidates cannot both win.
 * Releasing (on SIGTERM) empties the holder so another candidate takes over at once.
 */
import type { Logger } from '../common/log.js';
import { isConflict, isNotFound, type KubeClient } from './kube-client.js';

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  /** A leader that could not renew for this long steps down (less than leaseDuration). */
  renewDeadlineMs: number;
  retryPeriodMs: number;
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

/** MicroTime of the Lease API: RFC 3339 with microseconds. */
const microTime = (d = new Date()): string => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export class LeaderElector {
  private leading = false;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private observed: { record: string; at: number } | undefined;
  private lastRenew = 0;
  private lease: Lease | undefined;
  private tick: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: KubeClient,
    private readonly opts: LeaderElectionOptions,
    private readonly log: Logger,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.opts.namespace}/leases/${this.opts.name}`;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.tick = this.attempt().finally(() => this.schedule(this.opts.retryPeriodMs));
    }, ms);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    try {
      const won = await this.tryAcquireOrRenew();
      if (won) {
        this.lastRenew = Date.now();
        if (!this.leading) {
          this.leading = true;
          this.log.info({ lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.opts.identity }, 'became leader');
          this.opts.onStartedLeading();
        }
        return;
      }
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'lease update failed');
    }
    if (this.leading && Date.now() - this.lastRenew > this.opts.renewDeadlineMs) this.stepDown('could not renew the lease in time');
    else if (this.leading && this.lease?.spec.holderIdentity !== this.opts.identity) this.stepDown('the lease has another holder');
  }

  private stepDown(why: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.log.warn({ identity: this.opts.identity, why }, 'stopped leading');
    this.opts.onStoppedLeading();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const durationS = Math.max(1, Math.round(this.opts.leaseDurationMs / 1000));
    let lease: Lease;
    try {
      lease = await this.client.get<Lease>(this.path);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const created: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.opts.name, namespace: this.opts.namespace },
        spec: {
          holderIdentity: this.opts.identity,
          leaseDurationSeconds: durationS,
          acquireTime: microTime(now),
          renewTime: microTime(now),
          leaseTransitions: 0,
        },
      };
      try {
        this.lease = await this.client.create<Lease>(`/apis/coordination.k8s.io/v1/namespaces/${this.opts.namespace}/leases`, created);
        return true;
      } catch (e) {
        if (isConflict(e)) return false;
        throw e;
      }
    }
    this.lease = lease;
    const record = JSON.stringify([lease.spec.holderIdentity, lease.spec.renewTime, lease.spec.leaseDurationSeconds]);
    if (!this.observed || this.observed.record !== record) this.observed = { record, at: Date.now() };
    const holder = lease.spec.holderIdentity ?? '';
    const heldByMe = holder === this.opts.identity;
    const theirDurationMs = (lease.spec.leaseDurationSeconds ?? durationS) * 1000;
    const expired = holder === '' || Date.now() > this.observed.at + theirDurationMs;
    if (!heldByMe && !expired) return false;
    const next: Lease = {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: this.opts.identity,
        leaseDurationSeconds: durationS,
        renewTime: microTime(now),
        ...(heldByMe ? {} : { acquireTime: microTime(now), leaseTransitions: (lease.spec.leaseTransitions ?? 0) + 1 }),
      },
    };
    try {
      this.lease = await this.client.replace<Lease>(this.path, next);
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  /** Stops campaigning; a leader empties the Lease's holder so another candidate takes over at once. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.tick;
    if (!this.leading) return;
    this.leading = false;
    this.opts.onStoppedLeading();
    try {
      const lease = await this.client.get<Lease>(this.path);
      if (lease.spec.holderIdentity !== this.opts.identity) return;
      await this.client.replace(this.path, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: null, acquireTime: null, renewTime: null, leaseDurationSeconds: 1 },
      });
      this.log.info({ lease: `${this.opts.namespace}/${this.opts.name}` }, 'lease released');
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'lease release failed');
    }
  }
}
