/**
 * A minimal SSE reader over fetch for tests: frames as they arrive, parsed field by field. Event frames
 * (an `id:` and no `event:` line) are checked against the event catalog (event-catalog.ts).
 */
import { checkEnvelopeText } from './event-catalog.js';

export interface Frame {
  event?: string;
  id?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

export interface SseConnection {
  status: number;
  headers: Headers;
  frames: Frame[];
  /** Raw chunks as the server wrote them. */
  raw: string[];
  ended: Promise<void>;
  /** Waits until `count` frames matching `pred` arrived. */
  waitFor(pred: (f: Frame) => boolean, count?: number, timeoutMs?: number): Promise<Frame[]>;
  close(): void;
}

export async function openStream(url: string, init: RequestInit = {}): Promise<SseConnection> {
  const abort = new AbortController();
  const res = await fetch(url, { ...init, signal: abort.signal });
  const frames: Frame[] = [];
  const raw: string[] = [];
  let buffer = '';
  const ended = (async () => {
    if (!res.body || res.status !== 200) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        raw.push(text);
        buffer += text;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const f: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) f.comment = line.slice(1).trim();
            else {
              const i = line.indexOf(': ');
              const [k, v] = i < 0 ? [line, ''] : [line.slice(0, i), line.slice(i + 2)];
              (f as Record<string, string>)[k] = v;
            }
          }
          if (f.id !== undefined && f.event === undefined) checkEnvelopeText(f.data, `stream frame ${f.id}`);
          frames.push(f);
        }
      }
    } catch {
      // aborted or cut by the server
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    frames,
    raw,
    ended,
    async waitFor(pred, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = frames.filter(pred);
        if (got.length >= count) return got;
        if (Date.now() > deadline) throw new Error(`waited for ${count} frames, got ${got.length}: ${JSON.stringify(frames)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => abort.abort(),
  };
}

let moves = 0;

/**
 * One change of a map through the editing API (it adds Thera, or moves it): one add_system or
 * system_metadata_changed event each time, for tests that watch a stream.
 */
export async function moveSystem(
  server: { fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response> },
  slug: string,
  key: string,
  solarSystemId = 31000005,
): Promise<void> {
  const res = await server.fetch(`/api/maps/${slug}/systems`, {
    method: 'POST',
    token: key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ solar_system_id: solarSystemId, position_x: ++moves, position_y: 1 }),
  });
  if (res.status >= 300) throw new Error(`POST /api/maps/${slug}/systems answered ${res.status}: ${await res.text()}`);
}
