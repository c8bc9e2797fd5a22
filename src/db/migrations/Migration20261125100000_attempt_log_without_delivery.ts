import { Migration } from '@mikro-orm/migrations';

/**
 * `webhook_attempts.delivery_id` pointed at the queue row of the attempt, `on delete set null`, and
 * nothing read it (the attempt log is read per subscription; an attempt names its event). It cost a
 * foreign-key check on every attempt logged, and, with no index on it, every finished delivery pruned
 * scanned the whole attempt log to clear it: pruning 2,000 deliveries took 2.7 s with 30,000 attempts
 * logged, and grew with the log. Dropping a column is a catalog change; no rows are rewritten.
 */
export class Migration20261125100000_attempt_log_without_delivery extends Migration {
  override up(): void {
    this.addSql(`alter table "webhook_attempts" drop column if exists "delivery_id";`);
  }

  override down(): void {
    this.addSql(`alter table "webhook_attempts" add column if not exists "delivery_id" bigint null references "webhook_deliveries" ("id") on delete set null;`);
  }
}
