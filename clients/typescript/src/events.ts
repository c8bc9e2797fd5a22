/**
 * The map's event stream (`GET /api/maps/{map_id}/events/stream`, Server-Sent Events) as an async
 * iterator, over fetch: frames are parsed by eventsource-parser; after a disconnect (the server
 * restarting, the network) it reconnects with backoff and `Last-Event-ID` set to the last event it
 * yielded, so the server replays what was missed and nothing is lost or repeated. `event: reset` (the
 * missed events are older than the server keeps) is yielded to the caller, who resyncs from the REST
 * API; the stream goes on live.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { components } from './generated/openapi.js';

export type EventEnvelope = components['schemas']['EventEnvelope'];

export type StreamItem =
  /** The stream is open; `last_event_id` is the map's newest event id (or null). Sent on every (re)connection. */
  | { type: 'connected'; map_id: string; server_time: string; last_event_id: string | null }
  /** A map event. */
  | { type: 'event'; id: string; event: EventEnvelope }
  /** The events after the id asked for are no longer kept: resync (e.g. from the REST API); live events follow. */
  | { type: 'reset'; reason: string; earliest_event_id: string | null };

export interface StreamOptions {
  /** The service's base URL (no `/api`). */
  baseUrl: string;
  /** A map API key of the map. */
  token: string;
  /** The map's UUID or slug. */
  map: string;
  /** Only these event types (the `events` parameter); default all. */
  events?: string[];
  /** Resume after this event id (e.g. one persisted by an earlier run). */
  lastEventId?: string;
  /** Ends the iteration. */
  signal?: AbortSignal;
  /** First reconnection delay (ms, default 1000); doubles per failed attempt up to `maxBackoffMs`, with jitter. */
  minBackoffMs?: number;
  /** Longest reconnection delay (ms, default 30000). */
  maxBackoffMs?: number;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Told before each reconnection: why, after how long, and from which event id. */
  onReconnect?: (info: { attempt: number; delayMs: number; lastEventId: string | undefined; reason: string }) => void;
}

/** A refusal the stream cannot get past by reconnecting (bad token, unknown map, bad parameters, stream switched off). */
export class StreamError extends Error {
  override name = 'StreamError';
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Statuses worth trying again: the server is busy, restarting or briefly unreachable. */
const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function item(m: EventSourceMessage): StreamItem | undefined {
  if (m.event === 'connected') return { type: 'connected', ...(JSON.parse(m.data) as Omit<Extract<StreamItem, { type: 'connected' }>, 'type'>) };
  if (m.event === 'reset') return { type: 'reset', ...(JSON.parse(m.data) as Omit<Extract<StreamItem, { type: 'reset' }>, 'type'>) };
  // An event has an id (with a reference-profile key it also has an `event: <type>` line).
  if (m.id) return { type: 'event', id: m.id, event: JSON.parse(m.data) as EventEnvelope };
  return undefined;
}

/** The map's events, resumed across disconnects, until `signal` aborts or the caller stops iterating. */
export async function* streamEvents(options: StreamOptions): AsyncGenerator<StreamItem, void, undefined> {
  const { token, map, events, minBackoffMs = 1000, maxBackoffMs = 30_000, onReconnect } = options;
  const doFetch = options.fetch ?? globalThis.fetch;
  const stop = new AbortController();
  const outer = options.signal;
  const onAbort = () => stop.abort(outer?.reason);
  if (outer?.aborted) return;
  outer?.addEventListener('abort', onAbort, { once: true });
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/api/maps/${encodeURIComponent(map)}/events/stream`);
  if (events?.length) url.searchParams.set('events', events.join(','));

  let lastEventId = options.lastEventId;
  let attempt = 0;
  /** The server's `retry:` advice (it sends one before closing for a restart). */
  let retryMs: number | undefined;
  const backoff = (floorMs = 0) => {
    const base = attempt === 0 && retryMs !== undefined ? retryMs : Math.min(maxBackoffMs, minBackoffMs * 2 ** attempt);
    const jittered = base / 2 + Math.random() * (base / 2);
    return Math.max(floorMs, Math.round(jittered));
  };
  const reconnect = async (reason: string, floorMs = 0) => {
    const delayMs = backoff(floorMs);
    attempt++;
    onReconnect?.({ attempt, delayMs, lastEventId, reason });
    await sleep(delayMs, stop.signal);
  };

  try {
    while (!stop.signal.aborted) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      let res: Response;
      try {
        res = await doFetch(url, { headers, signal: stop.signal });
      } catch (err) {
        if (stop.signal.aborted) return;
        await reconnect(`request failed: ${(err as Error).message}`);
        continue;
      }
      if (res.status !== 200 || !res.body) {
        const text = await res.text().catch(() => '');
        if (RETRYABLE.has(res.status)) {
          const after = Number(res.headers.get('retry-after'));
          await reconnect(`status ${res.status}`, Number.isFinite(after) && after > 0 ? after * 1000 : 0);
          continue;
        }
        let code: string | undefined;
        let message = text || `status ${res.status}`;
        try {
          const body = JSON.parse(text) as { code?: string; error?: string };
          code = body.code;
          message = body.error ?? message;
        } catch {
          // not JSON: the text is the message
        }
        throw new StreamError(res.status, code, `The event stream was refused (${res.status}${code ? ` ${code}` : ''}): ${message}`);
      }

      const pending: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (m) => pending.push(m), onRetry: (ms) => (retryMs = ms) });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let reason = 'the server closed the stream';
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(value);
          while (pending.length) {
            const next = item(pending.shift()!);
            if (!next) continue;
            if (next.type === 'connected') attempt = 0;
            if (next.type === 'event') lastEventId = next.id;
            yield next;
          }
        }
      } catch (err) {
        if (stop.signal.aborted) return;
        reason = `the connection broke: ${(err as Error).message}`;
      } finally {
        reader.cancel().catch(() => undefined);
      }
      if (stop.signal.aborted) return;
      await reconnect(reason);
    }
  } finally {
    outer?.removeEventListener('abort', onAbort);
    stop.abort();
  }
}
