/**
 * A list-then-watch cache of one kind of object that never gives up: a 410 (resource version too
 * old) lists again; a server timeout, a dropped connection or an apiserver restart watches again from
 * the last resource version seen (bookmarks keep it fresh), with a growing pause while the apiserver
 * does not answer. Handlers run for every change, and for every object after each relist, so the
 * work queue sees the level, not only the edges.
 *
 * As client-go's reflector: each watch asks for a timeout jittered to [1, 2) × the base, so replicas
 * started together do not all come back at once; a watch that ends within a second of opening with
 * no event, or an ERROR event, counts as a failure and is backed off (with jitter), never reopened at
 * once; a silent stream is given up after `idleMs`. `failingForMs` says how long the informer has gone
 * without an established list or watch, for /readyz.
 */
import type { Logger } from '../common/log.js';
import { isGone, KubeApiError, METADATA_ONLY, type KubeClient, type WatchEvent } from './kube-client.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    deletionTimestamp?: string;
    finalizers?: string[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
    creationTimestamp?: string;
  };
}

export interface InformerHandlers<T extends KubeObject> {
  /** Added, changed, or seen again after a relist. */
  upsert(obj: T, old: T | undefined): void;
  delete(obj: T): void;
}

const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 10_000;
/** Base of the watch timeout asked for (client-go's minWatchTimeout); each watch asks for [1, 2) × it. */
const WATCH_TIMEOUT_S = 300;
/** A watch that ends sooner than this with no event is a failure (client-go's "very short watch"). */
export const SHORT_WATCH_MS = 1000;
/** A watch stream without a byte for this long is dead (bookmarks and the apiserver's keep it talking). */
const WATCH_IDLE_MS = 90_000;

/** Why a list or watch was started again (the label of mapintel_operator_watch_restarts_total). */
export const RESTART_REASONS = ['closed', 'expired', 'idle', 'broken', 'short', 'error_event', 'failed'] as const;
export type RestartReason = (typeof RESTART_REASONS)[number];

export interface InformerOptions {
  /** Called on every restart of the watch (or relist), with its reason. */
  onRestart?: (reason: RestartReason) => void;
  watchTimeoutSeconds?: number;
  idleMs?: number;
  retryMinMs?: number;
  retryMaxMs?: number;
  /** [0, 1): the jitter of watch timeouts and retry pauses (tests pin it). */
  random?: () => number;
}

/** An ERROR event (other than 410) ends the watch as a failure. */
class WatchErrorEvent extends Error {
  constructor(
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }
}
/** Objects per page of a list: a relist never holds more than one page of answers at once. */
export const LIST_PAGE_SIZE = 500;

export const objectKey = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export class Informer<T extends KubeObject> {
  private readonly cache = new Map<string, T>();
  private resourceVersion = '';
  private running = false;
  private synced = false;
  private current: { abort(): void } | undefined;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Since when the informer has had no established list or watch (undefined: it has one). */
  private failingSince: number | undefined;
  /** Events of the current watch, and the ERROR event that ended it. */
  private eventsSeen = 0;
  private errorEvent: WatchErrorEvent | undefined;

  constructor(
    private readonly client: KubeClient,
    /** Collection path, e.g. /apis/mapintel.io/v1alpha1/webhooksubscriptions. */
    private readonly path: string,
    private readonly handlers: InformerHandlers<T>,
    private readonly log: Logger,
    private readonly query: Record<string, string> = {},
    /** What the cache keeps of each object; undefined keeps nothing (handlers still see it). */
    private readonly keep: (obj: T) => T | undefined = (obj) => obj,
    /** Lists and watches PartialObjectMetadata: the apiserver never sends data or spec. */
    private readonly metadataOnly = false,
    private readonly opts: InformerOptions = {},
  ) {
    this.failingSince = Date.now();
  }

  /** How long the informer has gone without an established list or watch (0 while it has one). */
  failingForMs(now = Date.now()): number {
    return this.failingSince === undefined ? 0 : now - this.failingSince;
  }

  /** True once the first list has filled the cache. */
  get hasSynced(): boolean {
    return this.synced;
  }

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  get size(): number {
    return this.cache.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.current?.abort();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const random = this.opts.random ?? Math.random;
    const base = this.opts.watchTimeoutSeconds ?? WATCH_TIMEOUT_S;
    let failures = 0;
    let needList = true;
    while (this.running) {
      let failure: { reason: RestartReason; err: Error } | undefined;
      try {
        if (needList) {
          await this.relist();
          needList = false;
          this.failingSince = undefined;
        }
        this.eventsSeen = 0;
        this.errorEvent = undefined;
        let openedAt = 0;
        const handle = await this.client.watch<T>(
          this.path,
          {
            ...this.query,
            resourceVersion: this.resourceVersion,
            allowWatchBookmarks: 'true',
            timeoutSeconds: String(Math.floor(base * (1 + random()))),
          },
          (e) => this.onEvent(e),
          this.opts.idleMs ?? WATCH_IDLE_MS,
          {
            metadataOnly: this.metadataOnly,
            onOpen: () => {
              openedAt = Date.now();
              this.failingSince = undefined;
            },
          },
        );
        this.current = handle;
        const end = await handle.done;
        if (!this.running) break;
        if (this.errorEvent) {
          failure = { reason: 'error_event', err: this.errorEvent };
        } else if (this.resourceVersion === '') {
          needList = true;
          this.restarted('expired');
          this.log.info({ path: this.path }, 'watch expired (410), listing again');
        } else if (this.eventsSeen === 0 && Date.now() - openedAt < SHORT_WATCH_MS) {
          failure = { reason: 'short', err: new Error(`very short watch: ended ${Date.now() - openedAt} ms after opening with no event`) };
        } else {
          failures = 0;
          this.restarted(end);
        }
      } catch (err) {
        if (!this.running) break;
        if (isGone(err)) {
          // Our resource version is older than etcd keeps: start again from a fresh list.
          needList = true;
          this.restarted('expired');
          this.log.info({ path: this.path }, 'watch expired (410), listing again');
          continue;
        }
        failure = { reason: 'failed', err: err as Error };
      } finally {
        this.current = undefined;
      }
      if (!failure) continue;
      this.failingSince ??= Date.now();
      this.restarted(failure.reason);
      failures++;
      const backoff = Math.min(this.opts.retryMaxMs ?? RETRY_MAX_MS, (this.opts.retryMinMs ?? RETRY_MIN_MS) * 2 ** Math.min(failures - 1, 10));
      // Jitter (up to +100 %, as client-go's backoff manager) spreads replicas that failed together.
      const wait = Math.round(backoff * (1 + random()));
      if (failures === 1 || failures % 10 === 0) {
        const status = failure.err instanceof KubeApiError ? failure.err.status : failure.err instanceof WatchErrorEvent ? failure.err.code : undefined;
        this.log.warn(
          { path: this.path, failures, reason: failure.reason, status, retryInMs: wait, err: { message: failure.err.message } },
          'list or watch failed; retrying',
        );
      }
      // A failed list stays needed; a failed watch goes on from the resource version it had.
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, wait).unref();
      });
    }
  }

  private restarted(reason: RestartReason): void {
    this.opts.onRestart?.(reason);
  }

  private async relist(): Promise<void> {
    const seen = new Set<string>();
    let resourceVersion: string;
    let token = '';
    // Page by page (limit/continue): one page of answers in memory at a time.
    do {
      const query: Record<string, string> = { ...this.query, limit: String(LIST_PAGE_SIZE), ...(token ? { continue: token } : {}) };
      const page = await this.client.get<{ metadata: { resourceVersion: string; continue?: string }; items: T[] }>(
        `${this.path}?${new URLSearchParams(query).toString()}`,
        this.metadataOnly ? METADATA_ONLY : undefined,
      );
      for (const listed of page.items ?? []) {
        const key = objectKey(listed);
        seen.add(key);
        const old = this.cache.get(key);
        const item = this.keep(listed);
        if (item) this.cache.set(key, item);
        else this.cache.delete(key);
        this.handlers.upsert(item ?? listed, old);
      }
      resourceVersion = page.metadata.resourceVersion;
      token = page.metadata.continue ?? '';
    } while (token);
    for (const [key, old] of this.cache) {
      if (!seen.has(key)) {
        this.cache.delete(key);
        this.handlers.delete(old);
      }
    }
    this.resourceVersion = resourceVersion;
    this.synced = true;
  }

  private onEvent(e: WatchEvent<T>): void {
    if (e.type === 'ERROR') {
      const status = e.object as unknown as { code?: number; message?: string };
      // An expired resource version arrives as an ERROR event with code 410: the stream ends, then a relist.
      if (status.code === 410) {
        this.resourceVersion = '';
      } else {
        // Any other ERROR ends the watch too (client-go's watch handler returns it as an error): backed off.
        this.errorEvent = new WatchErrorEvent(status.code, `ERROR event ${status.code ?? ''}: ${status.message ?? ''}`.trim());
      }
      this.current?.abort();
      return;
    }
    this.eventsSeen++;
    const rv = e.object.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (e.type === 'BOOKMARK') return;
    this.log.debug({ type: e.type, name: e.object.metadata?.name, resourceVersion: rv }, 'watch event');
    const key = objectKey(e.object);
    const old = this.cache.get(key);
    if (e.type === 'DELETED') {
      this.cache.delete(key);
      this.handlers.delete(old ?? e.object);
      return;
    }
    const obj = this.keep(e.object);
    if (obj) this.cache.set(key, obj);
    else this.cache.delete(key);
    this.handlers.upsert(obj ?? e.object, old);
  }
}

/**
 * Several informers of one kind (one per watched namespace, or one for the whole cluster) seen as
 * one cache: keys are namespace/name, so they never collide.
 */
export class InformerSet<T extends KubeObject> {
  constructor(readonly informers: Informer<T>[]) {}

  get hasSynced(): boolean {
    return this.informers.every((i) => i.hasSynced);
  }

  /** The longest time one of them has gone without an established list or watch. */
  failingForMs(now = Date.now()): number {
    return Math.max(0, ...this.informers.map((i) => i.failingForMs(now)));
  }

  get(key: string): T | undefined {
    for (const i of this.informers) {
      const found = i.get(key);
      if (found) return found;
    }
    return undefined;
  }

  list(): T[] {
    return this.informers.flatMap((i) => i.list());
  }

  get size(): number {
    return this.informers.reduce((n, i) => n + i.size, 0);
  }

  start(): void {
    for (const i of this.informers) i.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }
}
