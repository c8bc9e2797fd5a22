import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks for integrators. `webhook_queue_state` holds, per subscription, what planning needs of it
 * beyond its settings: the last `webhook-sequence` number given out (numbers are taken by the planning
 * statement, one per delivery, so a retry carries the number of its first attempt) and `hold_until`,
 * when a receiver's `Retry-After` has asked to be left alone until then. Deliveries and attempts carry
 * their sequence number and whether a recover made them.
 */
export class Migration20261128130000_webhook_sequences extends Migration {
  override up(): void {
    this.addSql(`create table "webhook_queue_state" (
      "subscription_id" uuid primary key references "webhook_subscriptions" ("id") on delete cascade,
      "last_sequence" bigint not null default 0,
      "hold_until" timestamptz(6) null);`);
    this.addSql(`alter table "webhook_deliveries" add column "sequence" bigint null, add column "recovered" boolean not null default false;`);
    this.addSql(`alter table "webhook_attempts" add column "sequence" bigint null, add column "recovered" boolean not null default false;`);
  }

  override down(): void {
    this.addSql(`alter table "webhook_attempts" drop column if exists "sequence", drop column if exists "recovered";`);
    this.addSql(`alter table "webhook_deliveries" drop column if exists "sequence", drop column if exists "recovered";`);
    this.addSql(`drop table if exists "webhook_queue_state";`);
  }
}
