import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { OutboxEvent } from './catalog.js';

export { EVENT_TYPES, type EventType, type OutboxEvent } from './catalog.js';

/** The channel the outbox NOTIFYs after a commit that wrote events; relays LISTEN on it. */
export const NOTIFY_CHANNEL = 'mapintel_events';

/**
 * The transactional outbox of one process, built once by the core. `append` writes events inside
 * the caller's transaction, so they commit or roll back with the change that caused them (the relay
 * assigns their ids on publish). After a commit that appended events, every `onCommit` listener runs
 * (a relay in this process wakes at once) and relays in every process are woken through `NOTIFY`.
 *
 * The NOTIFY is sent after the commit in a statement of its own, coalesced to at most one in flight:
 * a NOTIFY inside the writing transaction holds PostgreSQL's notify lock until that transaction's
 * commit record is flushed, which serialises every writer. A lost NOTIFY only delays publication
 * until the relay's safety poll.
 *
 * The NOTIFY's payload is this outbox's `origin`: a relay in this process, woken by `onCommit` already,
 * ignores it (else every commit would cost its relay a second, empty pass). And while the relays of
 * this process hold every partition (`onCommit`'s `holdsAll`), there is no other relay to wake and no
 * NOTIFY is sent: at one relay partition, the default, a process running the relay beside its API
 * sends none.
 */
export class Outbox {
  /** The payload of this process's NOTIFYs. */
  readonly origin = randomUUID();
  /** Transactions that appended events and have not committed yet. */
  private readonly pending = new WeakSet<object>();
  private readonly listeners = new Set<() => void>();
  /** Whether this process's relays hold every partition now (one check per relay). */
  private readonly holders = new Set<() => boolean>();
  private readonly notifier: CoalescingNotifier;

  constructor(orm: MikroORM) {
    this.notifier = new CoalescingNotifier(() => orm.em.getConnection().execute(`select pg_notify('${NOTIFY_CHANNEL}', '${this.origin}')`));
    const subscriber: EventSubscriber = {
      afterTransactionCommit: (args: TransactionEventArgs): void => {
        const tx = args.transaction as object | undefined;
        if (tx && this.pending.has(tx)) {
          this.pending.delete(tx);
          this.committed();
        }
      },
    };
    orm.em.getEventManager().registerSubscriber(subscriber);
  }

  /** Appends events in the caller's transaction (`tx` must be a transactional EntityManager). */
  async append(tx: EntityManager, events: readonly OutboxEvent[]): Promise<void> {
    if (events.length === 0) return;
    const ctx = tx.getTransactionContext() as object | undefined;
    if (!ctx) throw new Error('Outbox.append needs a transaction: events must commit with their change');
    const values = events.map(() => '(?, ?, ?::jsonb)').join(', ');
    const params = events.flatMap((e) => [e.mapId, e.type, JSON.stringify(e.payload)]);
    await tx.getConnection().execute(`insert into map_events (map_id, type, payload) values ${values}`, params, 'run', ctx);
    this.pending.add(ctx);
  }

  /**
   * The statement that appends the rows of `select` (columns map_id, type, payload, in the select's
   * order) to the outbox, for a writer that derives its events in the same statement as its change (one
   * round trip instead of three). The writer reports the statement with `appended`.
   */
  static insertFrom(select: string): string {
    return `insert into map_events (map_id, type, payload) ${select}`;
  }

  /**
   * Records that a statement built with `insertFrom` appended events through `db`: relays wake after its
   * transaction commits, or at once when it ran on its own (a single statement commits by itself).
   */
  appended(db: { readonly em: EntityManager; readonly inTransaction: boolean }): void {
    const ctx = db.inTransaction ? (db.em.getTransactionContext() as object | undefined) : undefined;
    if (ctx) this.pending.add(ctx);
    else this.committed();
  }

  /**
   * Runs `listener` after every commit that appended events; returns its removal. A relay in this
   * process gives `holdsAll`: while it says true, other processes are not notified.
   */
  onCommit(listener: () => void, holdsAll?: () => boolean): () => void {
    this.listeners.add(listener);
    if (holdsAll) this.holders.add(holdsAll);
    return () => {
      this.listeners.delete(listener);
      if (holdsAll) this.holders.delete(holdsAll);
    };
  }

  private committed(): void {
    for (const listener of this.listeners) listener();
    for (const holdsAll of this.holders) if (holdsAll()) return;
    this.notifier.notify();
  }
}

/**
 * Sends at most one notification at a time: calls while one is in flight collapse into one more
 * send after it, so a burst of commits costs two NOTIFYs, not one per commit, and none is lost
 * (the last commit of a burst is always followed by a send that starts after it). A failed send is
 * dropped: relays poll as a safety net.
 */
export class CoalescingNotifier {
  private inFlight = false;
  private again = false;

  constructor(private readonly send: () => Promise<unknown>) {}

  notify(): void {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = true;
    void this.flush();
  }

  private async flush(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.send().catch(() => undefined);
      } while (this.again);
    } finally {
      this.inFlight = false;
    }
  }
}
