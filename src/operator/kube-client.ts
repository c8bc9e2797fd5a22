/**
 * A small JSON client of the Kubernetes API over node:https, with the credentials of a KubeConfig
 * (@kubernetes/client-node: kubeconfig files, in-cluster ServiceAccount tokens, their rotation).
 * Every request is counted by verb, resource and status code (and the bytes of every answer by
 * resource), so the operator's load on the apiserver shows in its metrics. Every request carries the
 * User-Agent `mapintel-operator/<version>` and every write the field manager `mapintel-operator`, so
 * audit logs and managedFields name who wrote what, and `fieldValidation=Strict`. Requests keep to a
 * client-side rate (a token bucket, as client-go's) and are cancelled with the reconcile they serve. Watches are line-delimited JSON streams read here too.
 */
import https from 'node:https';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Counter, Histogram } from 'prom-client';
import { readFileSync } from 'node:fs';
import { TokenBucket } from './token-bucket.js';

/** The field manager of every write (managedFields, server-side apply). */
export const FIELD_MANAGER = 'mapintel-operator';
const VERSION = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '0';
  } catch {
    return '0';
  }
})();
export const USER_AGENT = `${FIELD_MANAGER}/${VERSION} (node ${process.version})`;

/** Accept header of a metadata-only list or watch (PartialObjectMetadata: no data, no spec). */
export const METADATA_ONLY = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const METADATA_ONLY_WATCH = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof KubeApiError && err.status === 404;
export const isConflict = (err: unknown): boolean => err instanceof KubeApiError && err.status === 409;
export const isGone = (err: unknown): boolean => err instanceof KubeApiError && err.status === 410;

export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** How a watch stream ended: the server closed it (its timeout, a restart), it went silent, or it broke. */
export type WatchEnd = 'closed' | 'idle' | 'broken';

export interface WatchHandle {
  /** Resolves when the stream ends (server timeout, error, abort); rejects on a non-200 answer. */
  done: Promise<WatchEnd>;
  abort(): void;
}

/** How long cached credentials are used before they are read again (in-cluster tokens rotate). */
const CREDENTIALS_TTL_MS = 60_000;

/**
 * The client-side limit on apiserver calls: a guard against a runaway loop, not a pace. controller-runtime's
 * 20 and 30 predate the apiserver's own priority and fairness and would take 7 minutes over the 9,000
 * requests of 1,000 resources applied at once (make bench-operator); 300 a second keeps that under 60 s.
 */
export const DEFAULT_KUBE_QPS = 300;
export const DEFAULT_KUBE_BURST = 600;

export interface KubeClientOptions {
  requests?: Counter<'verb' | 'resource' | 'code'>;
  /** Bytes of the apiserver's answers (watch streams included), by resource. */
  responseBytes?: Counter<'resource'>;
  /** client-go's series: rest_client_requests_total, rest_client_request_duration_seconds, rest_client_rate_limiter_duration_seconds. */
  rest?: {
    requests: Counter<'code' | 'method' | 'host'>;
    duration: Histogram<'verb' | 'host'>;
    rateLimiterDuration: Histogram<'verb' | 'host'>;
  };
  /** Requests a second to the apiserver (watches included, as client-go counts them), and the burst above it. */
  qps?: number;
  burst?: number;
  credentialsTtlMs?: number;
}

/** The signal of the reconcile (or other bounded piece of work) a request is made for: see withSignal. */
const scope = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `fn` so that every apiserver request it makes (and every wait for the client-side rate limit)
 * is cancelled when `signal` aborts: the per-reconcile deadline reaches calls deep in the reconciler
 * without a signal parameter on each of them.
 */
export function withSignal<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  return scope.run(signal, fn);
}
/** A request without an answer after this long fails (watches excepted: they have their own timeout). */
const REQUEST_TIMEOUT_MS = 30_000;

export type PatchType = 'merge' | 'json' | 'apply';

const CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  // Server-side apply (JSON is YAML); always with force: the operator owns what it applies.
  apply: 'application/apply-patch+yaml',
};

export class KubeClient {
  private credentials: { at: number; agent: https.Agent; headers: Record<string, string>; server: URL } | undefined;
  private readonly requests: Counter<'verb' | 'resource' | 'code'> | undefined;
  private readonly responseBytes: Counter<'resource'> | undefined;
  private readonly credentialsTtlMs: number;
  private readonly limiter: TokenBucket;
  private readonly rest: KubeClientOptions['rest'];
  /** HTTPS agents made so far (one while the TLS material stays the same). */
  agentsMade = 0;

  constructor(
    private readonly kc: KubeConfig,
    opts: KubeClientOptions = {},
  ) {
    this.requests = opts.requests;
    this.responseBytes = opts.responseBytes;
    this.rest = opts.rest;
    this.credentialsTtlMs = opts.credentialsTtlMs ?? CREDENTIALS_TTL_MS;
    this.limiter = new TokenBucket(opts.qps ?? DEFAULT_KUBE_QPS, opts.burst ?? DEFAULT_KUBE_BURST);
  }

  /** Waits for the client-side rate limit (as client-go's tryThrottle), timed by verb and host. */
  private async throttle(verb: string, host: string, signal: AbortSignal | undefined): Promise<void> {
    const started = performance.now();
    await this.limiter.take(signal);
    this.rest?.rateLimiterDuration.observe({ verb, host }, (performance.now() - started) / 1000);
  }

  get server(): string {
    return this.kc.getCurrentCluster()?.server ?? '';
  }

  async get<T>(path: string, accept?: string): Promise<T> {
    return this.request<T>('GET', path, undefined, undefined, accept);
  }

  async create<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  async replace<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, body);
  }

  async patch<T>(path: string, body: unknown, type: PatchType = 'merge'): Promise<T> {
    return this.request<T>('PATCH', path, body, CONTENT_TYPES[type]);
  }

  async delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  async request<T>(method: string, path: string, body?: unknown, contentType = 'application/json', accept = 'application/json'): Promise<T> {
    const { agent, headers, server } = await this.creds();
    const url = new URL(path, server);
    if (method !== 'GET') {
      url.searchParams.set('fieldManager', FIELD_MANAGER);
      if (contentType === CONTENT_TYPES.apply) url.searchParams.set('force', 'true');
      // An unknown or duplicate field is an error, not a warning dropped on the floor (a typo in what
      // the operator writes would otherwise vanish silently).
      if (method !== 'DELETE') url.searchParams.set('fieldValidation', 'Strict');
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const target = targetOf(url.pathname);
    const verb = method === 'GET' && !target.named ? 'LIST' : method;
    const signal = scope.getStore();
    await this.throttle(method, url.host, signal);
    const started = performance.now();
    const observed = (code: string): void => {
      this.rest?.requests.inc({ code, method, host: url.host });
      this.rest?.duration.observe({ verb: method, host: url.host }, (performance.now() - started) / 1000);
    };
    return new Promise<T>((resolve, reject) => {
      const req = https.request(
        url,
        {
          method,
          agent,
          signal,
          timeout: REQUEST_TIMEOUT_MS,
          headers: { ...headers, accept, 'user-agent': USER_AGENT, ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            this.requests?.inc({ verb, resource: target.resource, code: String(status) });
            observed(String(status));
            const body = Buffer.concat(chunks);
            this.responseBytes?.inc({ resource: target.resource }, body.length);
            const text = body.toString('utf8');
            let parsed: unknown;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = undefined;
            }
            if (status >= 200 && status < 300) return resolve(parsed as T);
            const s = (parsed ?? {}) as { reason?: string; message?: string };
            reject(new KubeApiError(status, s.reason ?? 'Unknown', `${method} ${url.pathname}: ${status} ${s.message ?? text.slice(0, 300)}`));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${url.pathname}: no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', (err) => {
        this.requests?.inc({ verb, resource: target.resource, code: 'error' });
        // client-go counts a request without an answer as code "<error>".
        observed('<error>');
        reject(signal?.aborted ? (signal.reason as Error) : err);
      });
      req.end(payload);
    });
  }

  /**
   * Opens a watch on a collection path; each event goes to `onEvent`. The stream ends when the server
   * closes it (`timeoutSeconds`), on any error, or after `idleMs` without a byte (a silent half-dead
   * connection), and `done` settles: the caller decides to watch again.
   */
  async watch<T>(
    path: string,
    query: Record<string, string>,
    onEvent: (e: WatchEvent<T>) => void,
    idleMs = 90_000,
    opts: { metadataOnly?: boolean; onOpen?: () => void } = {},
  ): Promise<WatchHandle> {
    const { agent, headers, server } = await this.creds();
    const url = new URL(path, server);
    for (const [k, v] of Object.entries({ ...query, watch: 'true' })) url.searchParams.set(k, v);
    const resource = targetOf(url.pathname).resource;
    const accept = opts.metadataOnly ? METADATA_ONLY_WATCH : 'application/json';
    await this.throttle('WATCH', url.host, undefined);
    let req: ReturnType<typeof https.request> | undefined;
    const done = new Promise<WatchEnd>((resolve, reject) => {
      req = https.request(url, { method: 'GET', agent, headers: { ...headers, accept, 'user-agent': USER_AGENT } }, (res) => {
        const status = res.statusCode ?? 0;
        this.requests?.inc({ verb: 'WATCH', resource, code: String(status) });
        this.rest?.requests.inc({ code: String(status), method: 'GET', host: url.host });
        if (status !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let reason = 'Unknown';
            try {
              reason = (JSON.parse(text) as { reason?: string }).reason ?? reason;
            } catch {
              // not JSON: keep Unknown
            }
            reject(new KubeApiError(status, reason, `watch ${url.pathname}: ${status} ${text.slice(0, 300)}`));
          });
          res.on('error', reject);
          return;
        }
        opts.onOpen?.();
        res.setTimeout(idleMs, () => {
          resolve('idle');
          res.destroy();
        });
        res.on('data', (c: Buffer) => this.responseBytes?.inc({ resource }, c.length));
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        // readline re-emits the response's errors (a connection cut mid-stream): the stream just ends.
        lines.on('error', () => resolve('broken'));
        lines.on('line', (line) => {
          if (!line) return;
          try {
            onEvent(JSON.parse(line) as WatchEvent<T>);
          } catch {
            // A broken line ends nothing: the next list or watch reconciles the state.
          }
        });
        res.on('error', () => resolve('broken'));
        res.on('close', () => resolve(res.complete ? 'closed' : 'broken'));
      });
      req.on('error', (err) => {
        this.requests?.inc({ verb: 'WATCH', resource, code: 'error' });
        this.rest?.requests.inc({ code: '<error>', method: 'GET', host: url.host });
        reject(err);
      });
      req.end();
    });
    return { done, abort: () => req?.destroy() };
  }

  private async creds(): Promise<{ agent: https.Agent; headers: Record<string, string>; server: URL }> {
    if (this.credentials && Date.now() - this.credentials.at < this.credentialsTtlMs) return this.credentials;
    const opts: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(opts);
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig names no current cluster');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string') headers[k] = v;
    const previous = this.credentials;
    // One keep-alive agent, rebuilt only when the TLS material changes. The material is read anew on
    // every refresh (new Buffers of the same bytes), so it is compared by content: a new agent would
    // destroy the old one and cut every request and watch in flight.
    const sameTls =
      previous &&
      sameBytes(previous.agent.options.cert, opts.cert) &&
      sameBytes(previous.agent.options.key, opts.key) &&
      sameBytes(previous.agent.options.ca, opts.ca);
    const agent =
      sameTls && previous
        ? previous.agent
        : new https.Agent({
            keepAlive: true,
            maxSockets: 16,
            ca: opts.ca,
            cert: opts.cert,
            key: opts.key,
            ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
          });
    if (!sameTls) this.agentsMade++;
    if (previous && previous.agent !== agent) previous.agent.destroy();
    this.credentials = { at: Date.now(), agent, headers, server: new URL(cluster.server) };
    return this.credentials;
  }

  close(): void {
    this.credentials?.agent.destroy();
    this.credentials = undefined;
  }
}

type TlsMaterial = string | Buffer | (string | Buffer | { pem: string | Buffer })[] | undefined;

/** Equal TLS material (certificate, key, CA), whether given as strings or Buffers. */
function sameBytes(a: TlsMaterial, b: TlsMaterial): boolean {
  const flat = (v: TlsMaterial): string =>
    v === undefined
      ? ''
      : Array.isArray(v)
        ? v.map((x) => flat(typeof x === 'object' && 'pem' in x ? x.pem : x)).join('\0')
        : Buffer.from(v).toString('base64');
  return flat(a) === flat(b);
}

/** `secrets`, `webhooksubscriptions/status`, `leases`… from an API path, and whether it names one object. */
export function targetOf(pathname: string): { resource: string; named: boolean } {
  const parts = pathname.split('/').filter(Boolean);
  // /api/v1/namespaces/ns/secrets/name, /apis/group/version/namespaces/ns/plural/name/status
  const start = parts[0] === 'api' ? 2 : 3;
  const rest = parts.slice(start);
  // A namespace's collection (namespaces/ns/plural…), not the namespace object itself.
  if (rest[0] === 'namespaces' && rest.length >= 3) rest.splice(0, 2);
  const resource = rest[0] ?? 'unknown';
  return { resource: rest.length >= 3 ? `${resource}/${rest[2]}` : resource, named: rest.length >= 2 };
}
