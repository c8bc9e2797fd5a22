/**
 * Who NOTIFYs whom after a commit (src/events/outbox.ts): a process whose own relay holds every
 * partition sends no NOTIFY (its relay is woken by the commit itself); otherwise the NOTIFY carries
 * the outbox's origin, a relay of another process wakes on it, and a relay of the same process
 * ignores it (the commit woke it already). Real PostgreSQL; the relays publish to the in-memory
 * transport, and their poll is 30 s, so only a wake-up publishes within the test.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryTransport } from '../support/transports.js';
import { useRelayHarness } from '../support/relay-harness.js';
import { waitFor } from '../support/wait.js';
import { NOTIFY_CHANNEL } from '../../src/events/outbox.js';

const h = useRelayHarness('relaynotify');
const { relayFor, makeMapId, writeEvents } = h;

let listener: pg.Client;
/** Payloads of the NOTIFYs received, in order. */
const heard: string[] = [];

beforeAll(async () => {
  // LISTEN needs a session: the direct connection (or a pooler in session mode) when the tier runs behind one.
  listener = new pg.Client({ connectionString: h.db.sessionUrl ?? h.db.databaseUrl });
  await listener.connect();
  listener.on('notification', (msg) => heard.push(msg.payload ?? ''));
  await listener.query(`LISTEN ${NOTIFY_CHANNEL}`);
});

afterAll(async () => {
  await listener?.end();
});

const ours = () => heard.filter((p) => p === h.outbox.origin).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('NOTIFY after a commit', () => {
  it('is not sent while a relay of this process holds every partition; that relay is woken by the commit', async () => {
    const transport = memoryTransport();
    const mapId = await makeMapId();
    const relay = relayFor(transport, { pollIntervalMs: 30_000, origin: h.outbox.origin });
    const unhook = h.outbox.onCommit(
      () => relay.poke(),
      () => relay.holdsAll(),
    );
    try {
      relay.start();
      await waitFor(async () => relay.holdsAll(), 10_000, 'the relay holding its partition');
      // The NOTIFYs of the map's creation (sent before the relay held its partition) are in by now.
      await sleep(300);
      const before = ours();
      await writeEvents(mapId, 0, 3);
      await waitFor(async () => (await transport.range(mapId, null, 10)).length === 3, 20_000, 'the 3 events published before the next poll');
      await sleep(300);
      expect(ours()).toBe(before);
    } finally {
      unhook();
    }
  });

  it('carries the origin otherwise: a relay elsewhere wakes on it, a relay of the same process ignores it', async () => {
    // No relay of this process: the commit notifies, with this outbox's origin.
    const elsewhere = memoryTransport();
    const mapId = await makeMapId();
    const other = relayFor(elsewhere, { pollIntervalMs: 30_000, origin: 'another process' });
    other.start();
    await waitFor(async () => other.holdsAll(), 10_000, 'the other relay holding its partition');
    const before = ours();
    await writeEvents(mapId, 0, 1);
    await waitFor(async () => ours() > before, 10_000, 'a NOTIFY with the outbox origin');
    await waitFor(async () => (await elsewhere.range(mapId, null, 10)).length === 1, 20_000, 'the event published by the other relay');
    await other.stop();

    // A relay of the same process that the commit did not poke: the NOTIFY alone does not wake it.
    const same = memoryTransport();
    const relay = relayFor(same, { pollIntervalMs: 30_000, origin: h.outbox.origin });
    relay.start();
    await waitFor(async () => relay.holdsAll(), 10_000, 'the relay holding its partition');
    // Its first pass (on taking the partition) finds nothing to publish.
    await sleep(500);
    // Other test files write to other schemas of the same database meanwhile, and their NOTIFYs (of
    // other origins) wake every relay: a try that heard one of them says nothing, and is made again.
    let judged = false;
    for (let attempt = 0; attempt < 10 && !judged; attempt++) {
      const quiet = await makeMapId();
      await sleep(100);
      const heardBefore = heard.length;
      const oursBefore = ours();
      await writeEvents(quiet, 0, 1);
      await waitFor(async () => ours() > oursBefore, 10_000, 'the NOTIFY of the commit');
      await sleep(300);
      const published = (await same.range(quiet, null, 10)).length;
      const foreign = heard.slice(heardBefore).some((p) => p !== h.outbox.origin);
      if (!foreign) {
        expect(published).toBe(0);
        judged = true;
      }
      relay.poke();
      await waitFor(async () => (await same.range(quiet, null, 10)).length === 1, 20_000, 'the event once poked');
    }
    expect(judged, 'ten tries, each with a NOTIFY of another test file in it').toBe(true);
  });
});
