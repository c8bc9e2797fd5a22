/**
 * The stream hub over the in-process tail and fake connections: fan-out per map, filters, frames
 * built once, one write per connection per tail read, the backfill/live seam without gap or
 * duplicate, slow consumers and resync.
 */
import { describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { MemoryEventPublisher, MemoryEventStore, MemoryEventTail } from '../../src/events/transport/memory.js';
import { StreamHub, type StreamSink } from '../../src/stream/stream-hub.js';
import type { SharedFrame } from '../../src/stream/sse-frames.js';
import { parseEventFilter } from '../../src/events/event-filter.js';
import type { EventEnvelope } from '../../src/events/envelope.js';
import type { EventType } from '../../src/events/catalog.js';

class FakeSink implements StreamSink {
  frames: string[] = [];
  /** Each send: the frame objects it carried (shared between connections). */
  sends: SharedFrame[][] = [];
  closed: string | undefined;
  buffered = 0;
  readonly systems = null;
  constructor(
    readonly mapId: string,
    readonly filter = parseEventFilter(undefined),
    readonly compat = false,
    private readonly bytesPerFrame = 0,
  ) {}
  write(frame: string): void {
    this.frames.push(frame);
    this.buffered += this.bytesPerFrame;
  }
  send(frames: readonly SharedFrame[]): void {
    this.sends.push([...frames]);
    for (const f of frames) this.write(f.text);
  }
  bufferedBytes(): number {
    return this.buffered;
  }
  close(reason: string): void {
    this.closed = reason;
  }
  ids(): string[] {
    return this.frames.map((f) => /^id: (\S+)/.exec(f)![1]!);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));
let clock = Date.now();
function ev(mapId: string, type: EventType = 'map_kill'): EventEnvelope {
  return { id: ulid(++clock), type, map_id: mapId, ts: new Date(clock).toISOString(), payload: {} };
}

async function setup(opts: Partial<ConstructorParameters<typeof StreamHub>[1]> = {}) {
  const store = new MemoryEventStore();
  const tail = new MemoryEventTail(store);
  await tail.start();
  const resyncs: string[] = [];
  const hub = new StreamHub(tail, { maxBufferedBytes: 1 << 20, onResync: (s, last) => resyncs.push(`${s.mapId}@${last}`), ...opts });
  hub.start();
  const publisher = new MemoryEventPublisher(store);
  return { hub, publish: async (...e: EventEnvelope[]) => void (await publisher.publish(e[0]!.map_id, e)), resyncs };
}

describe('StreamHub', () => {
  it('sends each live event to the connections of its map only, filtered by type', async () => {
    const { hub, publish } = await setup();
    const a1 = new FakeSink('A');
    const a2 = new FakeSink('A', parseEventFilter('add_system'));
    const b = new FakeSink('B');
    for (const s of [a1, a2, b]) {
      hub.join(s, null);
      hub.goLive(s);
    }
    const e1 = ev('A');
    const e2 = ev('A', 'add_system');
    await publish(e1, e2);
    await publish(ev('C'));
    await tick();
    expect(a1.ids()).toEqual([e1.id, e2.id]);
    expect(a2.ids()).toEqual([e2.id]);
    expect(b.frames).toEqual([]);
  });

  it('queues live events during backfill and flushes them after, without duplicating what backfill sent', async () => {
    const { hub, publish } = await setup();
    const sink = new FakeSink('A');
    const old = [ev('A'), ev('A')];
    hub.join(sink, null);
    // Live events arrive while backfill is being read; one of them is also in the backfill.
    const live = [ev('A'), ev('A')];
    await publish(...old, ...live);
    await tick();
    expect(sink.frames).toEqual([]);
    for (const e of [...old, live[0]!]) {
      sink.write(`id: ${e.id}\ndata: {}\n\n`);
      hub.sent(sink, e.id);
    }
    hub.goLive(sink);
    expect(sink.ids()).toEqual([...old, ...live].map((e) => e.id));
    const next = ev('A');
    await publish(next);
    await tick();
    expect(sink.ids().at(-1)).toBe(next.id);
    expect(new Set(sink.ids()).size).toBe(sink.ids().length);
  });

  it('builds each frame once per profile, and gives reference clients the event line', async () => {
    const { hub, publish } = await setup();
    const plain = [new FakeSink('A'), new FakeSink('A')];
    const compat = new FakeSink('A', parseEventFilter(undefined), true);
    for (const s of [...plain, compat]) {
      hub.join(s, null);
      hub.goLive(s);
    }
    const e = ev('A');
    await publish(e);
    await tick();
    // The same frame object (its text and bytes encoded once) went to both plain connections.
    expect(plain[0]!.sends[0]![0]).toBe(plain[1]!.sends[0]![0]);
    expect(compat.sends[0]![0]).not.toBe(plain[0]!.sends[0]![0]);
    expect(plain[0]!.sends[0]![0]!.chunked().toString()).toBe(`${Buffer.byteLength(plain[0]!.frames[0]!).toString(16)}\r\n${plain[0]!.frames[0]}\r\n`);
    expect(plain[0]!.frames[0]).toBe(plain[1]!.frames[0]);
    expect(compat.frames[0]).toContain('event: map_kill\n');
    expect(plain[0]!.frames[0]).not.toContain('event:');
  });

  it('closes a connection whose unsent bytes pass the limit, and only that one', async () => {
    let slow = 0;
    const { hub, publish } = await setup({ maxBufferedBytes: 1000, onSlowConsumer: () => slow++ });
    const stuck = new FakeSink('A', parseEventFilter(undefined), false, 600);
    const fine = new FakeSink('A');
    for (const s of [stuck, fine]) {
      hub.join(s, null);
      hub.goLive(s);
    }
    for (let i = 0; i < 3; i++) {
      await publish(ev('A'));
      await tick();
    }
    expect(stuck.closed).toBe('slow_consumer');
    expect(stuck.frames.length).toBe(2);
    expect(fine.frames.length).toBe(3);
    expect(slow).toBe(1);
    expect(hub.size()).toBe(1);
  });

  it('closes a connection still backfilling once more live events wait for it than the backfill maximum, and only that one', async () => {
    let slow = 0;
    const { hub, publish } = await setup({ maxQueued: 3, onSlowConsumer: () => slow++ });
    const replaying = new FakeSink('A');
    const live = new FakeSink('A');
    hub.join(replaying, null);
    hub.join(live, null);
    hub.goLive(live);
    for (let i = 0; i < 3; i++) await publish(ev('A'));
    await tick();
    expect(replaying.closed).toBeUndefined();
    await publish(ev('A'));
    await tick();
    expect(replaying.closed).toBe('slow_consumer');
    expect(slow).toBe(1);
    expect(live.frames.length).toBe(4);
    expect(hub.size()).toBe(1);
  });

  it('writes the frames of one tail read to each connection in one write, in order', async () => {
    const { hub, publish } = await setup();
    const a = new FakeSink('A');
    const onlySystems = new FakeSink('A', parseEventFilter('add_system'));
    const b = new FakeSink('B');
    for (const s of [a, onlySystems, b]) {
      hub.join(s, null);
      hub.goLive(s);
    }
    const run = [ev('A'), ev('A', 'add_system'), ev('A')];
    await publish(...run);
    await publish(ev('B'));
    await tick();
    expect(a.sends.length).toBe(1);
    expect(a.ids()).toEqual(run.map((e) => e.id));
    expect(onlySystems.sends.length).toBe(1);
    expect(onlySystems.ids()).toEqual([run[1]!.id]);
    expect(b.sends.length).toBe(1);
    // The next read is a write of its own.
    const next = ev('A');
    await publish(next);
    await tick();
    expect(a.sends.length).toBe(2);
    expect(a.ids().at(-1)).toBe(next.id);
  });

  it('closes a connection that a single run of frames takes past the limit', async () => {
    const { hub, publish } = await setup({ maxBufferedBytes: 1000 });
    const stuck = new FakeSink('A', parseEventFilter(undefined), false, 600);
    hub.join(stuck, null);
    hub.goLive(stuck);
    await publish(ev('A'), ev('A'));
    await tick();
    expect(stuck.closed).toBe('slow_consumer');
    expect(hub.size()).toBe(0);
    await publish(ev('A'));
    await tick();
    expect(stuck.frames.length).toBe(2);
  });

  it('sends each connection back to backfill from its last id when the tail resyncs', async () => {
    const { hub, resyncs } = await setup();
    const sink = new FakeSink('A');
    hub.join(sink, '01JD0000000000000000000000');
    hub.goLive(sink);
    (hub as unknown as { resyncAll(): void }).resyncAll();
    expect(resyncs).toEqual(['A@01JD0000000000000000000000']);
  });

  it('backfills a connection again when the tail resyncs while it is still backfilling, then delivers what queued meanwhile once', async () => {
    const { hub, publish, resyncs } = await setup();
    const sink = new FakeSink('A');
    hub.join(sink, '01JD0000000000000000000000');
    const queued = ev('A');
    await publish(queued);
    await tick();
    (hub as unknown as { resyncAll(): void }).resyncAll();
    expect(resyncs).toEqual([]);
    // Its backfill ends: instead of going live it is sent back to backfill from its last id.
    hub.goLive(sink);
    expect(resyncs).toEqual(['A@01JD0000000000000000000000']);
    expect(sink.frames).toEqual([]);
    // The second backfill writes the queued event itself; going live then skips it.
    sink.write(`id: ${queued.id}\ndata: {}\n\n`);
    hub.sent(sink, queued.id);
    hub.goLive(sink);
    expect(resyncs).toHaveLength(1);
    const later = ev('A');
    await publish(later);
    await tick();
    expect(sink.ids()).toEqual([queued.id, later.id]);
  });
});
