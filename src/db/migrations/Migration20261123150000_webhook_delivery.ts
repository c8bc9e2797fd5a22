import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook delivery. `webhook_map_state` carries, per map, a version bumped by every change to its
 * subscriptions or its toggle (workers cache subscriptions and compare versions) and the time the
 * toggle was last switched on; `active_since` on a subscription is when it last became active, so an
 * event committed before then is never sent to it. `webhook_deliveries` is the durable queue (one row
 * per event and subscription, leased by one worker at a time); `webhook_attempts` is the attempt log.
 */
export class Migration20261123150000_webhook_delivery extends Migration {
  override up(): void {
    this.addSql(`create table "webhook_map_state" (
      "map_id" uuid primary key references "maps" ("id") on delete cascade,
      "version" bigint not null default 0,
      "enabled_at" timestamptz(6) null);`);
    this.addSql(`insert into "webhook_map_state" ("map_id", "version", "enabled_at") select "id", 1, case when "webhooks_enabled" then now() end from "maps" m
      where "webhooks_enabled" or exists (select 1 from "webhook_subscriptions" s where s."map_id" = m."id");`);
    this.addSql(`alter table "webhook_subscriptions" add column "active_since" timestamptz(6) not null default now();`);
    this.addSql(`create unique index "webhook_subscriptions_managed_by_unique" on "webhook_subscriptions" ("managed_by") where "managed_by" is not null;`);
    this.addSql(`create table "webhook_deliveries" (
      "id" bigint generated always as identity primary key,
      "subscription_id" uuid not null references "webhook_subscriptions" ("id") on delete cascade,
      "map_id" uuid not null,
      "event_id" text not null,
      "event_type" text not null,
      "event_at" timestamptz(6) not null,
      "body" text not null,
      "state" text not null default 'pending' check ("state" in ('pending', 'delivered', 'failed', 'dropped')),
      "attempts" int not null default 0,
      "next_attempt_at" timestamptz(6) not null default now(),
      "lease_owner" text null,
      "lease_until" timestamptz(6) null,
      "last_status" int null,
      "last_error" text null,
      "finished_at" timestamptz(6) null,
      "inserted_at" timestamptz(6) not null default now(),
      constraint "webhook_deliveries_subscription_event_unique" unique ("subscription_id", "event_id"));`);
    this.addSql(`create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "state" = 'pending';`);
    this.addSql(
      `create index "webhook_deliveries_subscription_due_index" on "webhook_deliveries" ("subscription_id", "next_attempt_at") where "state" = 'pending';`,
    );
    this.addSql(`create index "webhook_deliveries_finished_index" on "webhook_deliveries" ("finished_at") where "state" <> 'pending';`);
    this.addSql(`create table "webhook_attempts" (
      "id" bigint generated always as identity primary key,
      "delivery_id" bigint null references "webhook_deliveries" ("id") on delete set null,
      "subscription_id" uuid not null references "webhook_subscriptions" ("id") on delete cascade,
      "event_id" text not null,
      "event_type" text not null,
      "attempt" int not null,
      "attempted_at" timestamptz(6) not null,
      "duration_ms" int not null,
      "status" int null,
      "outcome" text not null check ("outcome" in ('success', 'failure')),
      "error_class" text null,
      "error" text null,
      "next_attempt_at" timestamptz(6) null);`);
    this.addSql(`create index "webhook_attempts_subscription_index" on "webhook_attempts" ("subscription_id", "id" desc);`);
    this.addSql(`create index "webhook_attempts_attempted_at_index" on "webhook_attempts" ("attempted_at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "webhook_attempts";`);
    this.addSql(`drop table if exists "webhook_deliveries";`);
    this.addSql(`drop index if exists "webhook_subscriptions_managed_by_unique";`);
    this.addSql(`alter table "webhook_subscriptions" drop column if exists "active_since";`);
    this.addSql(`drop table if exists "webhook_map_state";`);
  }
}
