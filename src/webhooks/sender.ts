/**
 * One delivery attempt (decisions §7): the URL is checked again (every resolved address public unless
 * insecure URLs are allowed), the connection is pinned to the checked address, the body is the
 * envelope's exact bytes, signed afresh, POSTed with axios (keep-alive, timeout, no redirects).
 */
import http from 'node:http';
import https from 'node:https';
import { Axios, AxiosError, type AxiosRequestConfig } from 'axios';
import { checkUrl, pinnedLookup, UnsafeUrlError, type CheckedUrl, type Resolve } from './url-guard.js';
import { signingHeaders } from './signer.js';
import { parseRetryAfter } from './retry-after.js';

export const USER_AGENT = 'mapintel-webhooks/0.1';
/** Response bodies are read (so the connection can be reused) up to this size, then dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_AGENTS = 2000;

export type ErrorClass = 'timeout' | 'connect' | 'tls' | 'dns' | 'refused_url' | 'http_4xx' | 'http_5xx' | 'http_410' | 'http_other';

export interface AttemptResult {
  ok: boolean;
  /** The receiver's status, or null when none came. */
  status: number | null;
  durationMs: number;
  errorClass: ErrorClass | null;
  /** A short description for last_error and the attempt log (never a secret, never the body). */
  error: string | null;
  /** The receiver's Retry-After on 429/503, in ms. */
  retryAfterMs?: number | undefined;
  /** 410 Gone: the subscription is to be disabled. */
  gone: boolean;
}

export interface DeliveryRequest {
  url: string;
  secret: string;
  body: string;
  eventId: string;
  eventType: string;
  attempt: number;
  /** The delivery's `webhook-sequence` (absent for a ping, and for deliveries planned before numbers existed). */
  sequence?: number | null | undefined;
}

export interface SenderOptions {
  timeoutMs: number;
  allowInsecure: boolean;
  /** Sockets per receiver address (open and idle); the worker passes its concurrency. */
  maxSockets?: number;
  resolve?: Resolve;
}

/**
 * Whether this runtime's http.Agent takes a `proxyEnv` option (Node 22.21+, 24.5+, the versions from
 * which axios leaves proxying to an agent that has one).
 */
const AGENT_PROXY_ENV = ((): boolean => {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
})();

/**
 * The options of the sender's axios client: only what a POST of bytes with a streamed answer needs, not
 * axios.create's global defaults. Each request merges the client's options into its own, and the
 * defaults (per-method headers, body and response transforms, form-data classes, XSRF names) are work
 * for every request that the sender never uses (docs/benchmarks.md, 2026-11-25 19:15-20:00). Without
 * them there is no transform to switch off: the body goes out as given and the answer comes back a
 * stream. Exported for the benchmark's baseline loop, which must use the same client.
 *
 * Never through a proxy, whatever HTTP_PROXY, HTTPS_PROXY or NODE_USE_ENV_PROXY say: the connection
 * goes to the address the URL check saw. Where the runtime's agents take a `proxyEnv`, the agents carry
 * an empty one (`senderAgentOptions`), so neither Node nor axios proxies anything. axios's own
 * `proxy: false`, which does the same, is used only on older runtimes: with it axios keeps, on every
 * request's options, a closure over the whole request (its config, request, response and streams),
 * which V8's young-generation collector kept alive until a full collection: about 7 KB per request
 * moved to the old generation, and at 2,000 deliveries/s a full collection (20-40 ms of marking and
 * pause in the worker) every few seconds (docs/benchmarks.md, 2026-11-26).
 */
export function senderClientOptions(timeoutMs: number): AxiosRequestConfig {
  return {
    adapter: 'http',
    maxRedirects: 0,
    timeout: timeoutMs,
    validateStatus: () => true,
    responseType: 'stream',
    decompress: false,
    ...(AGENT_PROXY_ENV ? {} : { proxy: false as const }),
    transitional: { clarifyTimeoutError: true },
  };
}

/** The options of the sender's keep-alive agents (one per receiver address), `maxSockets` open and idle. */
export function senderAgentOptions(maxSockets: number): http.AgentOptions {
  return {
    keepAlive: true,
    // axios sets TCP keep-alive to 60 s on every request's socket; the same value here keeps Node from
    // switching it back and forth (two setsockopt calls per request) when the socket returns to the pool.
    keepAliveMsecs: 60_000,
    maxSockets,
    maxFreeSockets: maxSockets,
    timeout: 60_000,
    // No proxy from the environment (see senderClientOptions).
    ...(AGENT_PROXY_ENV ? { proxyEnv: {} } : {}),
  };
}

export class WebhookSender {
  private readonly client: Axios;
  /** Keep-alive agents per scheme, host, port and checked address (insertion order = age). */
  private readonly agents = new Map<string, http.Agent>();

  constructor(private readonly opts: SenderOptions) {
    this.client = new Axios(senderClientOptions(opts.timeoutMs));
  }

  async send(req: DeliveryRequest): Promise<AttemptResult> {
    const started = performance.now();
    const done = (r: Omit<AttemptResult, 'durationMs' | 'gone'> & { gone?: boolean }): AttemptResult => ({
      gone: false,
      ...r,
      durationMs: Math.round(performance.now() - started),
    });
    let checked: CheckedUrl;
    try {
      checked = await checkUrl(req.url, { allowInsecure: this.opts.allowInsecure, ...(this.opts.resolve ? { resolve: this.opts.resolve } : {}) });
    } catch (err) {
      const message = err instanceof UnsafeUrlError ? err.message : String(err);
      // One class and message whether the host does not resolve or resolves to a non-public address (url-guard.ts).
      return done({ ok: false, status: null, errorClass: 'refused_url', error: `URL refused: ${message}` });
    }
    const body = Buffer.from(req.body, 'utf8');
    // A deadline for the whole attempt (connect, answer and body), cleared when it ends: a timer that
    // fired for every finished attempt later on would cost an abort event and a DOMException each.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.opts.timeoutMs).unref();
    const signal = deadline.signal;
    try {
      // request() rather than post(): post() merges its arguments into a config first, one more merge.
      const res = await this.client.request({
        method: 'post',
        url: checked.url.href,
        data: body,
        signal,
        ...(checked.url.protocol === 'https:' ? { httpsAgent: this.agentFor(checked) } : { httpAgent: this.agentFor(checked) }),
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          // The answer's body is read only to free the connection, never decompressed (decompress: false):
          // asking for it uncompressed spares the receiver compressing what nobody reads. axios keeps a value
          // given here instead of its own list of encodings.
          'accept-encoding': 'identity',
          ...signingHeaders(req.secret, req.eventId, body),
          'x-service-event-id': req.eventId,
          'x-service-event-type': req.eventType,
          'x-service-delivery-attempt': String(req.attempt),
          ...(req.sequence != null ? { 'webhook-sequence': String(req.sequence) } : {}),
        },
      });
      const read = await drain(res.data as NodeJS.ReadableStream & { destroy(): void; complete?: boolean }, signal);
      const status = res.status;
      // An answer the receiver cut short (a reset, or a close before its Content-Length) is no answer:
      // whatever its status said, the receiver may not have taken the event.
      if (read.cut) {
        const expected = res.headers['content-length'];
        const of = typeof expected === 'string' && /^\d+$/.test(expected) ? ` of ${expected}` : '';
        return done({
          ok: false,
          status,
          errorClass: 'connect',
          error: `receiver answered ${status}, then the connection ended after ${read.bytes}${of} bytes of the body`,
        });
      }
      if (status >= 200 && status < 300) return done({ ok: true, status, errorClass: null, error: null });
      const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(res.headers['retry-after'] as string | undefined) : undefined;
      if (status === 410) return done({ ok: false, status, errorClass: 'http_410', error: 'receiver answered 410 Gone', gone: true });
      const errorClass: ErrorClass = status >= 500 ? 'http_5xx' : status >= 400 ? 'http_4xx' : 'http_other';
      return done({ ok: false, status, errorClass, error: `receiver answered ${status}`, retryAfterMs });
    } catch (err) {
      return done({ ok: false, status: null, ...classify(err, this.opts.timeoutMs) });
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  private agentFor(checked: CheckedUrl): http.Agent {
    const key = `${checked.url.protocol}//${checked.url.host}@${checked.address}`;
    let agent = this.agents.get(key);
    if (agent) return agent;
    // No cap per host below the worker's own concurrency: subscriptions on one host must not queue
    // behind each other's slow requests, and idle sockets are kept for the next attempts.
    const options = { ...senderAgentOptions(this.opts.maxSockets ?? 1024), lookup: pinnedLookup(checked) };
    agent = checked.url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    this.agents.set(key, agent);
    if (this.agents.size > MAX_AGENTS) {
      const [oldestKey, oldest] = this.agents.entries().next().value!;
      this.agents.delete(oldestKey);
      oldest.destroy();
    }
    return agent;
  }
}

/**
 * Reads the response body to its end (bounded), so the keep-alive connection can carry the next request.
 * `cut` when the receiver ended it early: the connection reset or closed before the body's end (Node's
 * `complete` stays false). A body the sender stops reading itself (past 64 KB, or still coming at the
 * attempt's deadline) is not cut: the status came, and the rest only costs the connection.
 */
async function drain(stream: NodeJS.ReadableStream & { destroy(): void; complete?: boolean }, signal: AbortSignal): Promise<{ cut: boolean; bytes: number }> {
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > MAX_RESPONSE_BYTES || signal.aborted) {
        stream.destroy();
        return { cut: false, bytes: size };
      }
    }
  } catch {
    return { cut: !signal.aborted, bytes: size };
  }
  return { cut: stream.complete === false && !signal.aborted, bytes: size };
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)|ERR_OSSL|HOSTNAME_MISMATCH|ERR_TLS_CERT)/;

function classify(err: unknown, timeoutMs: number): { errorClass: ErrorClass; error: string } {
  const code = (err as { code?: string }).code ?? (err instanceof AxiosError ? (err.cause as { code?: string } | undefined)?.code : undefined) ?? '';
  if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || code === 'ERR_CANCELED' || (err as Error).name === 'TimeoutError') {
    return { errorClass: 'timeout', error: `no answer within ${timeoutMs} ms` };
  }
  if (TLS_CODES.test(code)) return { errorClass: 'tls', error: `TLS failed (${code})` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { errorClass: 'dns', error: `DNS failed (${code})` };
  return { errorClass: 'connect', error: code ? `connection failed (${code})` : `request failed (${(err as Error).message})` };
}
