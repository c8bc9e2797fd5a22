/**
 * A small JSON client of the Kubernetes API over node:https, with the credentials of a KubeConfig
 * (@kubernetes/client-node: kubeconfig files, in-cluster ServiceAccount tokens, their rotation).
 * Every request is counted by verb, resource and status code, so the operator's load on the apiserver
 * shows in its metrics. Watches are line-delimited JSON streams read here too.
 */
import https from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Counter } from 'prom-client';

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

export interface WatchHandle {
  /** Resolves when the stream ends (server timeout, error, abort); rejects on a non-200 answer. */
  done: Promise<void>;
  abort(): void;
}

/** How long cached credentials are used before they are read again (in-cluster tokens rotate). */
const CREDENTIALS_TTL_MS = 60_000;
/** A request without an answer after this long fails (watches excepted: they have their own timeout). */
const REQUEST_TIMEOUT_MS = 30_000;

export type PatchType = 'merge' | 'json';

const CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

export class KubeClient {
  private credentials: { at: number; agent: https.Agent; headers: Record<string, string>; server: URL } | undefined;

  constructor(
    private readonly kc: KubeConfig,
    private readonly requests?: Counter<'verb' | 'resource' | 'code'>,
  ) {}

  get server(): string {
    return this.kc.getCurrentCluster()?.server ?? '';
  }

  async get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
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

  async request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const { agent, headers, server } = await this.creds();
    const url = new URL(path, server);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const verb = method === 'GET' && !/\/[^/]+\/[^/?]+$/.test(url.pathname) ? 'LIST' : method;
    return new Promise<T>((resolve, reject) => {
      const req = https.request(
        url,
        {
          method,
          agent,
          timeout: REQUEST_TIMEOUT_MS,
          headers: { ...headers, accept: 'application/json', ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            this.requests?.inc({ verb, resource: resourceOf(url.pathname), code: String(status) });
            const text = Buffer.concat(chunks).toString('utf8');
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
        this.requests?.inc({ verb, resource: resourceOf(url.pathname), code: 'error' });
        reject(err);
      });
      req.end(payload);
    });
  }

  /**
   * Opens a watch on a collection path; each event goes to `onEvent`. The stream ends when the server
   * closes it (`timeoutSeconds`), on any error, or after `idleMs` without a byte (a silent half-dead
   * connection), and `done` settles: the caller decides to watch again.
   */
  async watch<T>(path: string, query: Record<string, string>, onEvent: (e: WatchEvent<T>) => void, idleMs = 90_000): Promise<WatchHandle> {
    const { agent, headers, server } = await this.creds();
    const url = new URL(path, server);
    for (const [k, v] of Object.entries({ ...query, watch: 'true' })) url.searchParams.set(k, v);
    let req: ReturnType<typeof https.request> | undefined;
    const done = new Promise<void>((resolve, reject) => {
      req = https.request(url, { method: 'GET', agent, headers: { ...headers, accept: 'application/json' } }, (res) => {
        const status = res.statusCode ?? 0;
        this.requests?.inc({ verb: 'WATCH', resource: resourceOf(url.pathname), code: String(status) });
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
        res.setTimeout(idleMs, () => res.destroy());
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        // readline re-emits the response's errors (a connection cut mid-stream): the stream just ends.
        lines.on('error', () => resolve());
        lines.on('line', (line) => {
          if (!line) return;
          try {
            onEvent(JSON.parse(line) as WatchEvent<T>);
          } catch {
            // A broken line ends nothing: the next list or watch reconciles the state.
          }
        });
        res.on('error', () => resolve());
        res.on('close', () => resolve());
      });
      req.on('error', (err) => {
        this.requests?.inc({ verb: 'WATCH', resource: resourceOf(url.pathname), code: 'error' });
        reject(err);
      });
      req.end();
    });
    return { done, abort: () => req?.destroy() };
  }

  private async creds(): Promise<{ agent: https.Agent; headers: Record<string, string>; server: URL }> {
    if (this.credentials && Date.now() - this.credentials.at < CREDENTIALS_TTL_MS) return this.credentials;
    const opts: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(opts);
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig names no current cluster');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string') headers[k] = v;
    const previous = this.credentials;
    // One keep-alive agent, rebuilt only when the TLS material changes.
    const sameTls = previous && previous.agent.options.cert === opts.cert && previous.agent.options.key === opts.key && previous.agent.options.ca === opts.ca;
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
    if (previous && previous.agent !== agent) previous.agent.destroy();
    this.credentials = { at: Date.now(), agent, headers, server: new URL(cluster.server) };
    return this.credentials;
  }

  close(): void {
    this.credentials?.agent.destroy();
    this.credentials = undefined;
  }
}

/** `secrets`, `webhooksubscriptions/status`, `leases`… from an API path. */
function resourceOf(pathname: string): string {
  const parts = pathname.split('/').filter(Boolean);
  // /api/v1/namespaces/ns/secrets/name, /apis/group/version/namespaces/ns/plural/name/status
  const start = parts[0] === 'api' ? 2 : 3;
  const rest = parts.slice(start);
  if (rest[0] === 'namespaces' && rest.length >= 3) rest.splice(0, 2);
  const resource = rest[0] ?? 'unknown';
  return rest.length >= 3 ? `${resource}/${rest[2]}` : resource;
}
