import type { MikroORM } from '@mikro-orm/postgresql';
import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import { NOTIFY_CHANNEL } from './relay.js';

/** Transactions that appended outbox events; they wake the relay once they commit. */
const pending = new WeakSet<object>();

/** Marks the current transaction as one that wrote events (called by appendEvents). */
export function markEventsWritten(transaction: unknown): void {
  if (transaction && typeof transaction === 'object') pending.add(transaction);
}

/**
 * Wakes relays after a commit that wrote events: the local relay at once, every process's relay through
 * `NOTIFY`, sent after the commit in a statement of its own and coalesced (at most one in flight per
 * process). A NOTIFY inside the writing transaction would hold PostgreSQL's notify lock until that
 * transaction's commit record is flushed and so serialise every writer; this way writers never wait.
 */
export class EventNotifier {
  /** In-process wake-up of a relay running in this process. */
  local: (() => void) | undefined;
  private inFlight = false;
  private again = false;

  constructor(private readonly send: () => Promise<unknown>) {}

  notify(): void {
    this.local?.();
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
        // A lost NOTIFY only delays publication until the relay's safety poll.
        await this.send().catch(() => undefined);
      } while (this.again);
    } finally {
      this.inFlight = false;
    }
  }
}

const notifiers = new WeakMap<object, EventNotifier>();

/** Installs the after-commit notifier on an ORM (initOrm does this for every ORM). */
export function installCommitNotifier(orm: MikroORM): EventNotifier {
  const notifier = new EventNotifier(() => orm.em.getConnection().execute(`select pg_notify('${NOTIFY_CHANNEL}', '')`));
  const subscriber: EventSubscriber = {
    afterTransactionCommit(args: TransactionEventArgs): void {
      const tx = args.transaction;
      if (tx && pending.has(tx)) {
        pending.delete(tx);
        notifier.notify();
      }
    },
  };
  orm.em.getEventManager().registerSubscriber(subscriber);
  notifiers.set(orm, notifier);
  return notifier;
}

export function notifierOf(orm: MikroORM): EventNotifier | undefined {
  return notifiers.get(orm);
}
