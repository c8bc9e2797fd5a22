/**
 * Event streams through the stream Service: connects that stay open while held, and the pods' own
 * count of open streams from their ops ports.
 */
import { FULLNAME, clusterIP, pods, samples } from './cluster.js';

export interface Held {
  key: string;
  abort: AbortController;
  res: Response;
}

let streamBase = '';
export async function streamUrl(): Promise<string> {
  streamBase ||= `http://${await clusterIP(`${FULLNAME}-stream`)}`;
  return streamBase;
}

/** One connect to a map's stream; an admitted (200) one stays open in `held`. Returns status and error code. */
export async function connectStream(slug: string, key: string, held: Held[], headers: Record<string, string> = {}): Promise<{ status: number; code?: string }> {
  const abort = new AbortController();
  try {
    const res = await fetch(`${await streamUrl()}/api/maps/${slug}/events/stream`, {
      headers: { authorization: `Bearer ${key}`, ...headers },
      signal: abort.signal,
    });
    if (res.status === 200) {
      held.push({ key, abort, res });
      return { status: 200 };
    }
    const text = await res.text();
    const code = /"code"\s*:\s*"([a-z_]+)"/.exec(text)?.[1];
    return { status: res.status, ...(code ? { code } : {}) };
  } catch (err) {
    return { status: 0, code: err instanceof Error ? err.message : String(err) };
  }
}

export function release(held: Held[]): void {
  for (const h of held.splice(0)) h.abort.abort();
}

/** Open streams per stream pod (its `mapintel_stream_clients` gauge), by pod name. */
export async function clientsPerPod(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const p of await pods('stream')) {
    if (!p.ready || p.deleting) continue;
    const text = await (await fetch(`http://${p.ip}:8081/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    out.set(
      p.name,
      samples(text, 'mapintel_stream_clients').reduce((n, s) => n + s.value, 0),
    );
  }
  return out;
}

/** Reads SSE frames from a held stream until `stop` says enough; returns the frames' ids and events. */
export async function readFrames(
  h: Held,
  stop: (frames: { id?: string; event?: string; data: string }[]) => boolean,
  ms: number,
): Promise<{ id?: string; event?: string; data: string }[]> {
  const frames: { id?: string; event?: string; data: string }[] = [];
  const reader = h.res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  const deadline = Date.now() + ms;
  try {
    while (Date.now() < deadline && !stop(frames)) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), Math.max(1, deadline - Date.now())))]);
      if (chunk === null || chunk.done) break;
      buf += decoder.decode(chunk.value, { stream: true });
      let at: number;
      while ((at = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, at);
        buf = buf.slice(at + 2);
        const f: { id?: string; event?: string; data: string } = { data: '' };
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) f.id = line.slice(3).trim();
          else if (line.startsWith('event:')) f.event = line.slice(6).trim();
          else if (line.startsWith('data:')) f.data += line.slice(5).trim();
        }
        if (f.id !== undefined || f.event !== undefined || f.data) frames.push(f);
      }
    }
  } finally {
    reader.releaseLock();
  }
  return frames;
}
