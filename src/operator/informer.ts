/**
 * A list-then-watch cache of one kind of object that never gives up: a 410 (resource version too
 * old) lists again; a server timeout, a dropped connection or an apiserver restart watches again from
 * the last resource version seen (bookmarks keep it fresh), with a growing pause while the apiserver
 * does not answer. Handlers run for every change, and for every object after each relist, so the
 * work queue sees the level, not only the edges.
 */
import type { Logger } from '../common/log.js';
import { isGone, METADATA_ONLY, type KubeClient, type WatchEvent } from './kube-client.js';

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
/** The apiserver ends each watch after about this long (it picks a random time up to twice it). */
const WATCH_TIMEOUT_S = 300;
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
  ) {}

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
    let failures = 0;
    let needList = true;
    while (this.running) {
      try {
        if (needList) {
          await this.relist();
          needList = false;
        }
        const handle = await this.client.watch<T>(
          this.path,
          { ...this.query, resourceVersion: this.resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: String(WATCH_TIMEOUT_S) },
          (e) => this.onEvent(e),
          undefined,
          { metadataOnly: this.metadataOnly },
        );
        this.current = handle;
        await handle.done;
        failures = 0;
        if (this.resourceVersion === '') {
          needList = true;
          this.log.info({ path: this.path }, 'watch expired (410), listing again');
        }
      } catch (err) {
        if (!this.running) break;
        if (isGone(err)) {
          // Our resource version is older than etcd keeps: start again from a fresh list.
          needList = true;
          this.log.info({ path: this.path }, 'watch expired (410), listing again');
          continue;
        }
        failures++;
        const wait = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(failures, 10));
        if (failures === 1 || failures % 10 === 0) {
          this.log.warn({ path: this.path, failures, err: { message: (err as Error).message } }, 'list or watch failed; retrying');
        }
        // A failed list stays needed; a failed watch goes on from the resource version it had.
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, wait).unref();
        });
      } finally {
        this.current = undefined;
      }
    }
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
        this.current?.abort();
      }
      return;
    }
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
