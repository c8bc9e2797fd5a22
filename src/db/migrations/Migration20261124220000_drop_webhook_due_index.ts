import { Migration } from '@mikro-orm/migrations';

/**
 * `webhook_deliveries_due_index` (next_attempt_at of pending deliveries) served no query: claims probe
 * `webhook_deliveries_subscription_due_index` per subscription, and the backlog gauge counts pending rows
 * by their event time. It only cost an index entry on every planned delivery and every finished attempt.
 */
export class Migration20261124220000_drop_webhook_due_index extends Migration {
  override up(): void {
    this.addSql(`drop index if exists "webhook_deliveries_due_index";`);
  }

  override down(): void {
    this.addSql(`create index if not exists "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "state" = 'pending';`);
  }
}
