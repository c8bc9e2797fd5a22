/**
 * GET /api/maps/{map_id}/events/stream (spec 4.5, decisions §6): checks, in order, the feature switch
 * (403), the key (401, from the Authorization header or `?token=`), the map (404), the filter and the
 * resume id (400) and the connection caps (429 with Retry-After), all before any stream byte; then
 * streams: `retry:`, `event: connected`, the backfill after the client's last id (or a reset), and
 * live events through the process's hub, with keepalives.
 */
import type http from 'node:http';
import type { Config } from '../common/config.js';
import { acceptedRequestId, redactUrl, type Logger } from '../common/log.js';
import type { Metrics } from '../common/metrics.js';
import { randomUUID } from 'node:crypto';
import { AppError, BadRequestError, errorBody, ForbiddenError, toAppError } from '../common/errors.js';
import { TokenService } from '../auth/token.service.js';
import { tokenRefused } from '../auth/token-refusal.js';
import { forgetRequestToken } from '../auth/request-token.js';
import type { MapKeyPrincipal } from '../http/principal.js';
import type { MapAccess } from '../maps/map-access.js';
import { parseEventId } from '../events/envelope.js';
import { matchesFilter, parseEventFilter, type EventFilter } from '../events/event-filter.js';
import type { EventHistory } from '../events/transport/types.js';
import { matchesSystems, parseSystemFilter, type SystemFilter } from '../events/system-filter.js';
import { backfill, type BackfillBudget, type EventLogReader } from './backfill.js';
import { connectedFrame, eventFrame, KEEPALIVE_FRAME, resetFrame, retryFrame, SharedFrame } from './sse-frames.js';
import type { StreamHub, StreamSink } from './stream-hub.js';
import { openSink, type OpenStream } from './stream-sink.js';
import { presenceFrame } from './presence-feed.js';
import type { StreamCaps } from './stream-caps.js';
import type { StreamMetrics } from './stream.metrics.js';

export const STREAM_PATH = /^\/api\/maps\/([^/]+)\/events\/stream\/?$/;

export interface StreamDeps {
  config: Config;
  log: Logger;
  tokens: TokenService;
  access: MapAccess;
  history: EventHistory;
  eventLog: EventLogReader;
  /** The bytes of replay pages the process may hold at once (STREAM_BACKFILL_BUDGET_BYTES). */
  backfillBudget?: BackfillBudget;
  hub: StreamHub;
  caps: StreamCaps;
  metrics: StreamMetrics;
  /** The process's HTTP request metrics (stream requests count there too). */
  http: Pick<Metrics, 'httpRequests' | 'httpDuration'>;
  /** A connection of the map was admitted or released (the presence feed: src/stream/presence-feed.ts). */
  onPresence?: (mapId: string) => void;
  /** The presence a new connection is greeted with as it opens, when known (PresenceFeed.greeting). */
  presenceGreeting?: (mapId: string, keyId: string) => string | undefined;
}

/** The connection ended while its replay was written: the replay stops, nothing to report. */
class ConnectionGone extends Error {}

/** Waits between the attempts of a resync's backfill (about 6 s in all). */
const RESYNC_RETRY_MS = [250, 1_000, 2_000, 3_000];

/** The headers of a stream's answer (a GET's adds `connection: keep-alive`). */
const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** The keepalive comment, encoded once for every connection and every tick (no bytes made per write). */
const KEEPALIVE = [new SharedFrame(KEEPALIVE_FRAME)];

export class StreamService {
  private accepting = true;
  readonly open = new Set<OpenStream>();
  /** One timer for every connection's keepalive (thousands of timers would cost more than the frames). */
  private readonly keepalive: NodeJS.Timeout;

  constructor(private readonly d: StreamDeps) {
    this.keepalive = setInterval(
      () => {
        const idleSince = Date.now() - d.config.streamKeepaliveMs;
        for (const s of this.open) if (s.lastWrite <= idleSince) s.send(KEEPALIVE);
      },
      Math.max(100, Math.floor(d.config.streamKeepaliveMs / 3)),
    );
    this.keepalive.unref();
  }

  /** Stops the keepalive timer (the role's stop). */
  stop(): void {
    clearInterval(this.keepalive);
  }

  /** From now on new streams are refused with 503 (the process is shutting down). */
  stopAccepting(): void {
    this.accepting = false;
  }

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const id = acceptedRequestId(req.headers['x-request-id'], this.d.config.adminToken) ?? randomUUID();
    res.setHeader('x-request-id', id);
    const started = process.hrtime.bigint();
    // The access log line and HTTP metrics, as the api app writes them; a stream's line comes when it ends.
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { method: req.method ?? 'GET', route: '/api/maps/:map_id/events/stream', status: String(res.statusCode) };
      this.d.http.httpRequests.inc(labels);
      this.d.http.httpDuration.observe(labels, seconds);
      const level = res.statusCode >= 500 && res.statusCode !== 503 ? 'error' : res.statusCode === 503 ? 'warn' : 'info';
      this.d.log[level](
        { requestId: id, method: req.method, url: redactUrl(req.url ?? ''), status: res.statusCode, durationMs: Math.round(seconds * 1000) },
        'request',
      );
    });
    // The client may leave while the checks below wait (key, map, admission): their results must then
    // hold nothing, so whether it is gone is known from the first moment, not from when a stream opens.
    let gone = false;
    res.once('close', () => (gone = true));
    this.serve(req, res, id, () => gone || req.socket.destroyed).catch((err: unknown) => this.fail(res, err));
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse, requestId: string, gone: () => boolean): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stream.invalid');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      throw new AppError(405, 'method_not_allowed', `Method ${req.method} is not allowed on this path`);
    }
    if (!this.d.config.sseEnabled) throw new ForbiddenError('sse_disabled', 'Server-Sent Events are disabled on this server');
    if (!this.accepting) throw new AppError(503, 'shutting_down', 'This server is shutting down; reconnect', undefined, { 'Retry-After': '1' });
    // The map id is decoded before anything is looked up, as the api role's router does: a malformed
    // percent-encoding is the client's error (400), not the server's.
    const rawRef = STREAM_PATH.exec(url.pathname)?.[1];
    if (rawRef === undefined) throw new AppError(404, 'not_found', 'Not found');
    let mapRef: string;
    try {
      mapRef = decodeURIComponent(rawRef);
    } catch {
      throw new BadRequestError('bad_request', 'The map id in the path is not valid percent-encoding');
    }
    const header = TokenService.bearerOf(req.headers.authorization);
    const query = url.searchParams.get('token') ?? undefined;
    const token = header ?? (query && TokenService.isWellFormed(query) ? query : undefined);
    // The same 401s as the API's map endpoints (src/auth/token-refusal.ts), the token parameter included.
    if (!token) {
      const where = req.headers.authorization?.trim() ? 'header' : query ? 'query' : undefined;
      throw tokenRefused(['map_key'], where ? { as: 'malformed', where } : { as: 'none' });
    }
    const identity = await this.d.tokens.identify(token);
    if (identity.principal?.kind !== 'map_key') throw tokenRefused(['map_key'], { as: 'token', token, identity });
    const principal = identity.principal;
    const map = await this.d.access.byPath(principal, mapRef);
    const filter = parseEventFilter(url.searchParams.getAll('events'));
    const systems = parseSystemFilter(url.searchParams.getAll('systems'));
    const lastRaw = url.searchParams.get('last_event_id') ?? headerValue(req.headers['last-event-id']);
    let lastId: string | null = null;
    // `0` (a map read's Map-Event-Id of a map without events): before the map's first event, so every
    // event of the map's log is sent.
    const fromStart = lastRaw?.trim() === '0';
    if (lastRaw !== undefined && lastRaw !== '' && !fromStart) {
      lastId = parseEventId(lastRaw) ?? null;
      if (!lastId)
        throw new BadRequestError('invalid_event_id', '`last_event_id` must be an event id (ULID) or 0', [
          { field: 'last_event_id', message: 'must be a ULID, or 0 for before the first event' },
        ]);
    }
    if (gone()) return;
    const admission = await this.d.caps.admit(map.id, principal.keyId);
    this.d.metrics.admissions.inc({ result: admission.admitted ? 'admitted' : admission.code });
    if (admission.admitted && gone()) {
      // Nobody to stream to: the slot is given back at once.
      await admission.lease.release().catch(() => undefined);
      return;
    }
    if (!admission.admitted) {
      if (admission.code === 'caps_recovering')
        throw new AppError(503, 'dependency_unavailable', 'Redis lost the stream connection counts; they are being rebuilt, retry later', undefined, {
          'Retry-After': String(admission.retryAfterS),
        });
      const messages = {
        map_stream_limit: 'Too many stream connections to this map',
        key_stream_limit: 'Too many stream connections for this API key',
        server_stream_limit: 'This server holds as many stream connections as it can',
      } as const;
      throw new AppError(429, admission.code, messages[admission.code], undefined, { 'Retry-After': String(admission.retryAfterS) });
    }
    if (req.method === 'HEAD') {
      // The headers a GET would get, and the end of the answer: nothing is streamed, so no slot is held.
      await admission.lease.release().catch(() => undefined);
      res.writeHead(200, STREAM_HEADERS);
      res.end();
      return;
    }
    this.d.onPresence?.(map.id);
    const compat = principal.profile === 'reference';
    // With the access log line at its end, says which connections were open when (and of which key).
    this.d.log.info({ requestId, mapId: map.id, keyId: principal.keyId }, 'stream opened');
    this.stream(req, res, { principal, token, mapId: map.id, filter, systems, lastId, fromStart, compat, release: () => admission.lease.release(), gone });
  }

  private stream(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    s: {
      principal: MapKeyPrincipal;
      token: string;
      mapId: string;
      filter: EventFilter;
      systems: SystemFilter;
      lastId: string | null;
      fromStart: boolean;
      compat: boolean;
      release: () => Promise<void>;
      gone: () => boolean;
    },
  ): void {
    const { hub, metrics, config } = this.d;
    // A replay waits for the client to take what it was sent; one taking nothing for this long is a slow consumer.
    const stallMs = 2 * config.streamKeepaliveMs;
    res.writeHead(200, { ...STREAM_HEADERS, connection: 'keep-alive' });
    req.socket.setNoDelay(true);
    // The headers, `retry:` and `connected` leave in one write (corked until `connected` is written):
    // one segment for the client to read, one write for the kernel. The headers are written on their
    // own (then joined in that write): node:http keeps its header string for the life of the response,
    // and a header string written alone is flattened in place, where one sent with the first frame stays
    // the tree of pieces it was built from (about 1.4 KB a connection).
    const socket = res.socket;
    socket?.cork();
    res.flushHeaders();
    const { sink, end } = openSink(res, s, { stallMs, metrics });
    const finish = () => {
      if (!end()) return;
      hub.leave(sink);
      this.open.delete(sink);
      metrics.clients.dec();
      void s
        .release()
        .catch(() => undefined)
        .then(() => this.d.onPresence?.(s.mapId));
    };
    res.on('close', finish);
    shed(req);
    this.open.add(sink);
    metrics.clients.inc();
    // Gone between the admission and here: 'close' has been emitted already and will not come again.
    if (s.gone()) {
      finish();
      return;
    }
    hub.join(sink, s.lastId);
    void (async () => {
      let latest: string | null;
      try {
        sink.write(retryFrame(config.streamRetryMs));
        await hub.watching(sink);
        // Known to the hub once one connection of the map has read it, else read: the hot history may hold
        // nothing of a map that has events (a process or Redis restarted since): then the event log says.
        latest = await hub.newestOf(s.mapId, async () => (await this.d.history.lastId(s.mapId)) ?? (await this.d.eventLog.newestId(s.mapId)));
        sink.write(connectedFrame(s.mapId, latest));
        // The map's presence in the same write, when this process knows it (else the next round greets it).
        const greeting = s.compat || sink.presence !== undefined ? undefined : this.d.presenceGreeting?.(s.mapId, s.principal.keyId);
        if (greeting !== undefined) {
          sink.presence = greeting;
          sink.write(presenceFrame(greeting));
        }
      } finally {
        socket?.uncork();
      }
      if (s.lastId || s.fromStart) await this.replay(sink, s.lastId);
      // A new client's position is the last id it was told of: a resync replays from there.
      else if (latest) hub.sent(sink, latest);
      hub.goLive(sink);
    })().catch((err: unknown) => {
      if (err instanceof ConnectionGone) return;
      this.d.log.warn({ err: { message: (err as Error).message }, mapId: s.mapId }, 'stream backfill failed; closing (the client resumes)');
      sink.close('resync_failed');
    });
  }

  /**
   * After a tail resync: backfills the connection from its last id, then live again. The history
   * may answer a moment after the tail does (each has its own Redis connection, reconnecting on its
   * own): a failed backfill is tried again after RESYNC_RETRY_MS, and only then is the connection
   * closed (the client resumes with its last id). `fromLog`: after a hole in the live events, read
   * from the PostgreSQL event log (the hot history may lack the same events).
   */
  async resync(sink: StreamSink, fromLog = false): Promise<void> {
    const { hub } = this.d;
    for (let attempt = 0; ; attempt++) {
      if (!this.open.has(sink as OpenStream)) return;
      try {
        await this.replay(sink as OpenStream, hub.lastId(sink), fromLog);
        hub.goLive(sink);
        return;
      } catch (err) {
        if (err instanceof ConnectionGone) return;
        if (attempt >= RESYNC_RETRY_MS.length) {
          this.d.log.warn({ err: { message: (err as Error).message }, mapId: sink.mapId }, 'stream resync failed; closing (the client resumes)');
          sink.close('resync_failed');
          return;
        }
        await new Promise((r) => setTimeout(r, RESYNC_RETRY_MS[attempt]));
      }
    }
  }

  /**
   * Backfills a connection from `after` (also after a tail resync); the hub queues live events
   * meanwhile. The replay is read a page (about 256 KB) at a time and written as the socket takes it: a
   * resume holds at most a page of events and a socket's buffer, whatever the gap, and the process's
   * pages together stay within STREAM_BACKFILL_BUDGET_BYTES.
   */
  async replay(sink: OpenStream, after: string | null, fromLog = false): Promise<void> {
    const { hub, metrics } = this.d;
    const sources = { history: this.d.history, log: this.d.eventLog, budget: this.d.backfillBudget, logOnly: fromLog };
    const result = await backfill(sources, sink.mapId, after, this.d.config.streamBackfillMax, async (e) => {
      let bytes = 0;
      if (matchesFilter(sink.filter, e.type) && matchesSystems(sink.systems, e)) {
        const frame = eventFrame(e, sink.compat);
        sink.write(frame);
        bytes = frame.length;
        metrics.backfilled.inc();
      }
      hub.sent(sink, e.id);
      if (!(await sink.room())) throw new ConnectionGone();
      // An event filtered out is sized by the backfill's own guess.
      return bytes || undefined;
    });
    if (result.kind === 'reset') {
      metrics.resets.inc({ reason: result.reason });
      // An id after the map's newest is no position: the client goes on from the newest the map has.
      if (result.reason === 'unknown_event_id') hub.reposition(sink, result.newestEventId);
      sink.write(resetFrame(result.reason, result.earliestEventId));
    }
  }

  private fail(res: http.ServerResponse, err: unknown): void {
    const appErr = err instanceof AppError ? err : toAppError(err);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const e = appErr ?? new AppError(500, 'internal_error', 'Internal server error');
    if (!appErr) this.d.log.error({ err }, 'stream request failed');
    for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
    res.writeHead(e.status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(errorBody(e)));
  }
}

/**
 * Lets go of what the request's way in left on it (the router's state, the parsed URL and query, the rate
 * limit's figures, the remembered token and its hash): a stream keeps its request for as long as it is
 * open, thousands of them at once, and needs none of it.
 */
function shed(req: http.IncomingMessage): void {
  forgetRequestToken(req as never);
  const r = req as unknown as Record<string, unknown>;
  for (const k of SHED) if (Object.hasOwn(r, k)) r[k] = undefined;
}

const SHED = ['next', 'params', 'query', 'route', '_parsedUrl', '_parsedOriginalUrl', 'rateLimit', 'baseUrl', 'originalUrl'] as const;

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}
