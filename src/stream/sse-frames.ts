/**
 * Server-Sent Events frames of the stream (decisions §6): `field: value` lines with one space, `\n`
 * line ends, a blank line after each frame; every frame goes out in one write.
 */
import type { EventEnvelope } from '../events/envelope.js';
import { referenceShape } from '../http/key-profile.js';

/** How long EventSource waits before reconnecting (ms). */
export function retryFrame(ms: number): string {
  return `retry: ${Math.max(0, Math.round(ms))}\n\n`;
}

/** The first frame: no `id:` line, so it does not move the client's Last-Event-ID. */
export function connectedFrame(mapId: string, lastEventId: string | null, now = new Date()): string {
  return `event: connected\ndata: ${JSON.stringify({ map_id: mapId, server_time: now.toISOString(), last_event_id: lastEventId })}\n\n`;
}

/**
 * An event: `id:` and `data:` only, so `EventSource.onmessage` receives every event (the type is in
 * the envelope). With `compat` (clients written against the reference server), an `event: <type>`
 * line and a `timestamp` field are added, and character objects take the reference shapes (src/http/key-profile.ts).
 */
export function eventFrame(e: EventEnvelope, compat = false): string {
  if (compat) return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(referenceShape({ ...e, timestamp: e.ts }))}\n\n`;
  return `id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`;
}

/** Retained history cannot cover the gap: the client resyncs (e.g. from the REST API) and goes on live. */
export function resetFrame(reason: string, earliestEventId: string | null): string {
  return `event: reset\ndata: ${JSON.stringify({ reason, earliest_event_id: earliestEventId })}\n\n`;
}

export const KEEPALIVE_FRAME = ': keepalive\n\n';

/**
 * A live event's frame, built once and written to every connection of its map: the text, and the
 * bytes as they go on the wire, encoded once (not once per connection), with or without the HTTP/1.1
 * chunk framing around them.
 */
export class SharedFrame {
  private rawBytes: Buffer | undefined;
  private chunkBytes: Buffer | undefined;

  constructor(readonly text: string) {}

  /** The frame's bytes (a response without chunked transfer coding, e.g. to an HTTP/1.0 client). */
  raw(): Buffer {
    return (this.rawBytes ??= Buffer.from(this.text, 'utf8'));
  }

  /** One HTTP/1.1 chunk holding the frame: its size in hex, CRLF, the bytes, CRLF. */
  chunked(): Buffer {
    return (this.chunkBytes ??= Buffer.from(`${Buffer.byteLength(this.text, 'utf8').toString(16)}\r\n${this.text}\r\n`, 'utf8'));
  }
}
