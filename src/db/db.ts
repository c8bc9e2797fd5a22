import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kysely } from '@mikro-orm/postgresql';
import { CompiledQuery, type QueryResult } from 'kysely';
import type { Orm } from './orm.js';
import { prepared } from './prepared.js';

/**
 * The one way to run SQL: a handle that carries its transaction. Repositories take a `Db`; inside
 * `db.transaction(tx => …)` only `tx` may run SQL: a query through the outer handle while that
 * transaction is open throws instead of silently running outside it on another connection.
 * Parameters are positional `?`; arrays are expanded into lists by the SQL layer, so pass JSON
 * (`?::jsonb`) for set-valued parameters.
 */
export interface Db {
  /** Every row. */
  all<T extends object>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** The first row, or undefined. */
  one<T extends object>(text: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** A statement without rows; returns the number of rows it affected. */
  run(text: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Like `all`, with `$1, $2, …` placeholders whose values travel as bind parameters beside the text
   * instead of being quoted into it. For large values (a JSON batch of webhook bodies): quoting copies
   * and escapes them character by character, and doubles their backslashes on the wire. Values are sent
   * as node-postgres sends them: an array is one PostgreSQL array, not a list. The text is registered as a
   * prepared statement (src/db/prepared.ts), so it must not carry values of its own.
   */
  allBound<T extends object>(text: string, params: readonly unknown[]): Promise<T[]>;
  /** Like `run`, with bind parameters as in `allBound`. */
  runBound(text: string, params: readonly unknown[]): Promise<number>;
  /**
   * Runs `fn` in a transaction (committed when it resolves, rolled back when it throws). Called on a
   * handle that is already in a transaction, it joins that transaction.
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * A typed query builder (Kysely, over the same connection and transaction) for code whose table
   * types are declared, such as the static data.
   */
  kysely<Schema>(): Kysely<Schema>;
  /** True on the handle of a transaction. */
  readonly inTransaction: boolean;
  /** The EntityManager under this handle (the outbox appends through it). */
  readonly em: EntityManager;
}

/** The transaction (its context object) that the code running now belongs to. */
const current = new AsyncLocalStorage<object>();

/** Thrown when SQL runs through a handle other than the transaction open around it. */
export class EscapedTransactionError extends Error {
  constructor() {
    super('SQL ran outside the transaction open around it: inside db.transaction(tx => …) use `tx`');
  }
}

class Handle implements Db {
  constructor(
    readonly em: EntityManager,
    private readonly ctx: object | undefined,
  ) {}

  get inTransaction(): boolean {
    return this.ctx !== undefined;
  }

  private guard(): void {
    const open = current.getStore();
    if (open !== undefined && open !== this.ctx) throw new EscapedTransactionError();
  }

  async all<T extends object>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    this.guard();
    return this.em.getConnection().execute<T[]>(text, [...params], 'all', this.ctx);
  }

  async one<T extends object>(text: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  kysely<Schema>(): Kysely<Schema> {
    this.guard();
    return this.em.getKysely<Schema>() as unknown as Kysely<Schema>;
  }

  async run(text: string, params: readonly unknown[] = []): Promise<number> {
    this.guard();
    const res = await this.em.getConnection().execute<{ affectedRows?: number }>(text, [...params], 'run', this.ctx);
    return res.affectedRows ?? 0;
  }

  async allBound<T extends object>(text: string, params: readonly unknown[]): Promise<T[]> {
    return (await this.bound<T>(text, params)).rows;
  }

  async runBound(text: string, params: readonly unknown[]): Promise<number> {
    return Number((await this.bound(text, params)).numAffectedRows ?? 0);
  }

  /** Runs a query with bind parameters on this handle's connection (its transaction's, if any). */
  private async bound<T>(text: string, params: readonly unknown[]): Promise<QueryResult<T>> {
    this.guard();
    const conn = this.em.getConnection();
    await conn.ensureConnection();
    const executor = (this.ctx as Kysely<unknown> | undefined) ?? conn.getClient();
    return executor.executeQuery<T>(CompiledQuery.raw(prepared(text), [...params]));
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    if (this.ctx) {
      this.guard();
      return fn(this);
    }
    this.guard();
    return this.em.fork().transactional(async (txEm) => {
      const ctx = txEm.getTransactionContext() as object;
      return current.run(ctx, () => fn(new Handle(txEm, ctx)));
    });
  }
}

/** A handle over the ORM's pool (each call forks a fresh EntityManager: no identity map is shared). */
export function dbOf(orm: Orm): Db {
  return new Handle(orm.em.fork(), undefined);
}

/** The read snapshot the code running now belongs to (inReadSnapshot), seen by snapshot-aware handles. */
const snapshot = new AsyncLocalStorage<Db>();

/**
 * Runs `fn` in a read-only REPEATABLE READ transaction: every statement of it sees one snapshot of the
 * database. Code that `fn` runs under `withSnapshot` and that queries through a `snapshotAware` handle
 * reads the same snapshot; other handles go on running outside it (no EscapedTransactionError: the
 * snapshot is a read, nothing written elsewhere can be lost to it).
 */
export async function inReadSnapshot<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.em.fork().transactional(
    async (txEm) => {
      const ctx = txEm.getTransactionContext() as object;
      return fn(new Handle(txEm, ctx));
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/** Runs `fn` so that snapshot-aware handles query through `tx` (a handle of inReadSnapshot). */
export function withSnapshot<T>(tx: Db, fn: () => T): T {
  return snapshot.run(tx, fn);
}

/** A handle that queries through the read snapshot open around the caller (withSnapshot), else through `db`. */
export function snapshotAware(db: Db): Db {
  const via = () => snapshot.getStore() ?? db;
  return {
    all: (text, params) => via().all(text, params),
    one: (text, params) => via().one(text, params),
    run: (text, params) => via().run(text, params),
    allBound: (text, params) => via().allBound(text, params),
    runBound: (text, params) => via().runBound(text, params),
    transaction: (fn) => via().transaction(fn),
    kysely: () => via().kysely(),
    get inTransaction() {
      return via().inTransaction;
    },
    get em() {
      return via().em;
    },
  };
}
