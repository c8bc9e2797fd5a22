/**
 * Server-Sent Events frames of the stream (decisions §6): `field: value` lines with one space, `\n`
 * line ends, a blank line after each frame; every frame goes out in one write.
 */
import type { EventEnvelope } from '../events/envelope.js';

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
 * line and a `timestamp` field are added.
 */
export function eventFrame(e: EventEnvelope, compat = false): string {
  if (compat) return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify({ ...e, timestamp: e.ts })}\n\n`;
  return `id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`;
}

/** Retained history cannot cover the gap: the client resyncs (e.g. from the REST API) and goes on live. */
export function resetFrame(reason: string, earliestEventId: string | null): string {
  return `event: reset\ndata: ${JSON.stringify({ reason, earliest_event_id: earliestEventId })}\n\n`;
}

export const KEEPALIVE_FRAME = ': keepalive\n\n';
