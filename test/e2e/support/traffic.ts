/**
 * Steady traffic for the rolling-update check: a writer editing the map through the api Service, and
 * stream readers that follow the map through the stream Service and resume with Last-Event-ID
 * whenever their connection ends.
 */
import { api } from './release.js';
import { streamUrl } from './streams.js';

export interface Writer {
  statuses: Map<string, number>;
  requests: number;
  stop: () => Promise<void>;
}

/** PATCHes one system's position every `everyMs`; tallies the answers (`0 <error>` for no answer). */
export function startWriter(slug: string, key: string, solarSystemId: number, everyMs = 250): Writer {
  const statuses = new Map<string, number>();
  let stopped = false;
  let i = 0;
  const w: Writer = { statuses, requests: 0, stop: async () => {} };
  const loop = (async () => {
    while (!stopped) {
      const t0 = Date.now();
      let outcome: string;
      try {
        const r = await api('PATCH', `/api/maps/${slug}/systems/${solarSystemId}`, key, { position_x: ++i });
        outcome = String(r.status);
      } catch (err) {
        outcome = `0 ${(err as { cause?: { code?: string } }).cause?.code ?? (err instanceof Error ? err.message : String(err))}`;
      }
      w.requests++;
      statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (Date.now() - t0))));
    }
  })();
  w.stop = async () => {
    stopped = true;
    await loop;
  };
  return w;
}

export interface Reader {
  ids: string[];
  connects: number;
  statuses: Map<string, number>;
  stop: () => Promise<void>;
}

/** Follows a map's stream from `afterId`; reconnects with Last-Event-ID after every end of a connection. */
export function startReader(slug: string, key: string, afterId: string): Reader {
  const r: Reader = { ids: [], connects: 0, statuses: new Map(), stop: async () => {} };
  let stopped = false;
  let abort = new AbortController();
  const loop = (async () => {
    while (!stopped) {
      abort = new AbortController();
      const last = r.ids.at(-1) ?? afterId;
      try {
        r.connects++;
        const res = await fetch(`${await streamUrl()}/api/maps/${slug}/events/stream`, {
          headers: { authorization: `Bearer ${key}`, 'last-event-id': last },
          signal: abort.signal,
        });
        r.statuses.set(String(res.status), (r.statuses.get(String(res.status)) ?? 0) + 1);
        if (res.status === 200 && res.body) {
          const decoder = new TextDecoder();
          let buf = '';
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            buf += decoder.decode(chunk, { stream: true });
            let at: number;
            while ((at = buf.indexOf('\n\n')) >= 0) {
              const block = buf.slice(0, at);
              buf = buf.slice(at + 2);
              const id = /^id:\s*(\S+)/m.exec(block)?.[1];
              const isEvent = /^data:/m.test(block);
              if (id && isEvent && id !== r.ids.at(-1)) r.ids.push(id);
            }
          }
        } else {
          await res.body?.cancel();
        }
      } catch (err) {
        const code = `0 ${(err as { cause?: { code?: string } }).cause?.code ?? (err instanceof Error ? err.name : 'error')}`;
        if (!stopped) r.statuses.set(code, (r.statuses.get(code) ?? 0) + 1);
      }
      if (!stopped) await new Promise((res) => setTimeout(res, 300));
    }
  })();
  r.stop = async () => {
    stopped = true;
    abort.abort();
    await loop;
  };
  return r;
}
