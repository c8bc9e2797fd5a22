/**
 * `syncMap()`: a map's systems and connections kept current. It reads the map (`GET /api/map/systems`
 * and `GET /api/map/connections`, each answered with `Map-Event-Id`, the newest event whose effect the
 * answer includes), then follows the event stream from the earliest of those ids: every later event,
 * each applied once, so an edit made between the read and the subscribe is neither lost nor applied
 * twice. A dropped stream is resumed from the last applied event (`streamEvents` reconnects with
 * `Last-Event-ID`); `event: reset` (the server no longer has the events after that id) reads the map
 * again and follows from the new id. Each change is told to the change callbacks.
 */
import type { components } from './generated/openapi.js';
import { streamEvents, type EventEnvelope, type StreamOptions } from './events.js';

export type MapSystem = components['schemas']['SystemDto'];
export type MapConnection = components['schemas']['ConnectionDto'];

/** The map as far as the events applied so far tell. */
export interface MapState {
  /** The map's visible systems by solar system id. */
  systems: Map<number, MapSystem>;
  /** The map's connections by id. */
  connections: Map<string, MapConnection>;
  /** The newest event whose effect the state includes (`0`: before the map's first event). */
  lastEventId: string;
}

export type MapChange =
  /** The map was read (`reason` `start`, or `reset` after the stream could not resume). */
  | { type: 'load'; reason: 'start' | 'reset'; eventId: string }
  /** An event was applied (every event type, including those that change no system or connection). */
  | { type: 'event'; id: string; event: EventEnvelope };

export type SyncMapOptions = Pick<StreamOptions, 'baseUrl' | 'token' | 'map' | 'fetch' | 'minBackoffMs' | 'maxBackoffMs' | 'onReconnect' | 'signal'> & {
  /** Told of each change, after it is applied to `state`. */
  onChange?: (state: MapState, change: MapChange) => void;
  /** Told when following stopped for good (a refusal reconnecting cannot fix, or a failed reload). */
  onError?: (err: unknown) => void;
};

export interface SyncedMap {
  /** The current state (the same object throughout: read it when told of a change). */
  readonly state: MapState;
  /** Adds a change callback; returns its removal. */
  onChange(cb: (state: MapState, change: MapChange) => void): () => void;
  /** How many times the map was read (1, plus one per reset). */
  readonly loads: number;
  /** Resolves once no read the state is waiting for is under way (a system added is read in full). */
  settled(): Promise<void>;
  /** Stops following. */
  close(): void;
}

/** A read of the map with Map-Event-Id failed. */
export class SyncMapError extends Error {
  override name = 'SyncMapError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** ULIDs compare as strings; `0` is before every one. */
const after = (a: string, b: string) => a > b;

/** Reads the map, then follows it until `close()` (or `signal`); resolves once the first read is applied. */
export async function syncMap(options: SyncMapOptions): Promise<SyncedMap> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const selector = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(options.map) ? 'map_id' : 'slug';
  const stop = new AbortController();
  const outer = options.signal;
  outer?.addEventListener('abort', () => stop.abort(outer.reason), { once: true });
  const listeners = new Set<(state: MapState, change: MapChange) => void>();
  if (options.onChange) listeners.add(options.onChange);
  const state: MapState = { systems: new Map(), connections: new Map(), lastEventId: '0' };
  const pending = new Set<Promise<unknown>>();
  let loads = 0;

  const tell = (change: MapChange) => {
    for (const cb of listeners) cb(state, change);
  };

  async function read<T>(path: string, query: Record<string, string | number> = {}): Promise<{ data: T; eventId: string }> {
    const url = new URL(`${base}${path}`);
    url.searchParams.set(selector, options.map);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    const res = await doFetch(url, { headers: { authorization: `Bearer ${options.token}`, accept: 'application/json' }, signal: stop.signal });
    const text = await res.text();
    if (res.status !== 200) {
      let message = text;
      try {
        message = (JSON.parse(text) as { error?: string }).error ?? text;
      } catch {
        // not JSON
      }
      throw new SyncMapError(res.status, `GET ${path} answered ${res.status}: ${message}`);
    }
    const eventId = res.headers.get('map-event-id');
    if (!eventId) throw new SyncMapError(res.status, `GET ${path} has no Map-Event-Id header: the server predates syncMap`);
    return { data: (JSON.parse(text) as { data: T }).data, eventId };
  }

  /** Reads systems, then connections; the state is the earliest read's, the events after it go on top. */
  async function load(reason: 'start' | 'reset'): Promise<void> {
    const systems = await read<MapSystem[]>('/api/map/systems');
    const connections = await read<MapConnection[]>('/api/map/connections');
    state.systems = new Map(systems.data.map((s) => [s.solar_system_id, s]));
    state.connections = new Map(connections.data.map((c) => [c.id, c]));
    state.lastEventId = after(connections.eventId, systems.eventId) ? systems.eventId : connections.eventId;
    loads++;
    tell({ type: 'load', reason, eventId: state.lastEventId });
  }

  /** A system added: its other fields (status, tag…) are read, and taken if that read includes every event applied so far. */
  function readSystem(ssid: number): void {
    const p = read<MapSystem>('/api/map/system', { id: ssid }).then(
      ({ data, eventId }) => {
        if (!state.systems.has(ssid) || after(state.lastEventId, eventId) || !data.visible) return;
        state.systems.set(ssid, data);
      },
      () => undefined,
    );
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }

  function apply(id: string, e: EventEnvelope): void {
    const p = e.payload as Record<string, unknown>;
    switch (e.type) {
      case 'add_system': {
        const ssid = p.solar_system_id as number;
        const prior = state.systems.get(ssid);
        state.systems.set(ssid, {
          ...(prior ?? {
            status: 0,
            tag: null,
            custom_name: null,
            description: null,
            labels: null,
            locked: false,
            map_id: e.map_id,
            inserted_at: e.ts,
            updated_at: e.ts,
          }),
          id: p.system_id as string,
          solar_system_id: ssid,
          name: p.name as string,
          position_x: p.position_x as number,
          position_y: p.position_y as number,
          visible: true,
        } as MapSystem);
        readSystem(ssid);
        break;
      }
      case 'deleted_system':
        state.systems.delete(p.solar_system_id as number);
        break;
      case 'system_metadata_changed': {
        const { changed: _changed, system_id, ...fields } = p;
        const ssid = p.solar_system_id as number;
        if (!p.visible) state.systems.delete(ssid);
        else state.systems.set(ssid, { ...state.systems.get(ssid), ...fields, id: system_id, updated_at: e.ts } as MapSystem);
        break;
      }
      case 'connection_added':
      case 'connection_updated': {
        const { connection_id, changed: _changed, from_name: _from, to_name: _to, ...fields } = p;
        const prior = state.connections.get(connection_id as string);
        state.connections.set(
          connection_id as string,
          { map_id: e.map_id, inserted_at: e.ts, ...prior, ...fields, id: connection_id, updated_at: e.ts } as MapConnection,
        );
        break;
      }
      case 'connection_removed':
        state.connections.delete(p.connection_id as string);
        break;
      default:
        break; // signatures, kills, characters, ACLs, rally points: not part of this state
    }
    state.lastEventId = id;
  }

  /** Follows the stream from the state's id; on a reset reads again and follows from the new id. */
  async function follow(): Promise<void> {
    while (!stop.signal.aborted) {
      let reset = false;
      const round = new AbortController();
      const onStop = () => round.abort();
      stop.signal.addEventListener('abort', onStop, { once: true });
      try {
        for await (const item of streamEvents({ ...options, lastEventId: state.lastEventId, signal: round.signal })) {
          if (item.type === 'reset') {
            reset = true;
            break;
          }
          if (item.type !== 'event' || !after(item.id, state.lastEventId)) continue; // already applied
          apply(item.id, item.event);
          tell({ type: 'event', id: item.id, event: item.event });
        }
      } finally {
        stop.signal.removeEventListener('abort', onStop);
        round.abort();
      }
      if (!reset || stop.signal.aborted) return;
      await load('reset');
    }
  }

  await load('start');
  void follow().catch((err: unknown) => {
    if (!stop.signal.aborted) options.onError?.(err);
  });

  return {
    state,
    onChange(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    get loads() {
      return loads;
    },
    async settled() {
      while (pending.size) await Promise.all([...pending]);
    },
    close() {
      stop.abort();
    },
  };
}
