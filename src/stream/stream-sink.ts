/**
 * The sink of one open stream (what the hub and the replay write to), over its node:http response.
 */
import type http from 'node:http';
import type { MapKeyPrincipal } from '../http/principal.js';
import type { EventFilter } from '../events/event-filter.js';
import type { SystemFilter } from '../events/system-filter.js';
import type { StreamSink } from './stream-hub.js';
import type { StreamMetrics } from './stream.metrics.js';

/** An open stream: the sink the hub writes to, with what the role needs to manage it. */
export interface OpenStream extends StreamSink {
  readonly principal: MapKeyPrincipal;
  readonly token: string;
  /** When a frame was last written (keepalives fill the silences). */
  readonly lastWrite: number;
  /** The presence last sent to it (src/stream/presence-feed.ts keeps it here); undefined until it has had one. */
  presence: string | undefined;
  /**
   * Resolves true when more may be written: at once while the socket takes what it is given, else when
   * it has drained. False when the connection is gone, or closed for taking nothing for the stall time.
   */
  room(): Promise<boolean>;
}

/**
 * The sink of a response whose headers are written. `end()` marks it ended (nothing more is written);
 * it answers false when it already was.
 */
export function openSink(
  res: http.ServerResponse,
  s: { principal: MapKeyPrincipal; token: string; mapId: string; filter: EventFilter; systems: SystemFilter; compat: boolean },
  o: { stallMs: number; metrics: StreamMetrics },
): { sink: OpenStream & { lastWrite: number }; end(): boolean } {
  const { stallMs, metrics } = o;
  // Live frames go straight to the socket, already framed: their bytes are encoded once for every
  // connection (with the chunk framing node:http would add, or none on a response without chunked
  // transfer coding), instead of node:http encoding and framing each write anew. The headers are
  // sent, and nothing else writes to this socket, so the bytes stay in order with res.write's.
  const socket = res.socket;
  const chunked = (res as unknown as { chunkedEncoding?: boolean }).chunkedEncoding === true;
  let ended = false;
  const sink: OpenStream & { lastWrite: number } = {
    mapId: s.mapId,
    filter: s.filter,
    systems: s.systems,
    compat: s.compat,
    principal: s.principal,
    token: s.token,
    lastWrite: Date.now(),
    presence: undefined,
    write(frame) {
      if (ended) return;
      sink.lastWrite = Date.now();
      res.write(frame);
    },
    send(frames) {
      if (ended) return;
      sink.lastWrite = Date.now();
      if (!socket || socket.destroyed) {
        for (const f of frames) res.write(f.text);
      } else if (frames.length === 1) {
        socket.write(chunked ? frames[0]!.chunked() : frames[0]!.raw());
      } else {
        socket.write(Buffer.concat(frames.map((f) => (chunked ? f.chunked() : f.raw()))));
      }
    },
    // node:http counts the socket's unsent bytes in the response's.
    bufferedBytes: () => res.writableLength,
    room: () => {
      if (ended) return Promise.resolve(false);
      if (!res.writableNeedDrain) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const done = (ok: boolean) => {
          clearTimeout(timer);
          res.off('drain', drained);
          res.off('close', closed);
          resolve(ok);
        };
        const drained = () => done(true);
        const closed = () => done(false);
        const timer = setTimeout(() => {
          done(false);
          metrics.slowConsumers.inc();
          sink.close('slow_consumer');
        }, stallMs);
        res.once('drain', drained);
        res.once('close', closed);
      });
    },
    close: (reason) => {
      if (ended) return;
      metrics.closed.inc({ reason });
      res.destroy();
    },
  };
  return {
    sink,
    end: () => {
      if (ended) return false;
      ended = true;
      return true;
    },
  };
}
