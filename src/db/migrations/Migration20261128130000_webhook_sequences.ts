import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks for integrators. `webhook_queue_state` holds, per subscription, what planning needs of it
 * beyond its settings: the last `webhook-sequence` number given out (numbers are taken by the planning
 * statement, one per delivery, so a retry carries the number of its first attempt) and `hold_until`,
 * when a receiver's `Retry-After` has asked to be left alone until then. Deliveries and attempts carry
 * their sequence number and whether a recover made them. On a subscription: the failure warning last
 * given (`warned_level`, per cent of the disable threshold), and for one disabled after failures the
 * reason, when, from which event time it missed deliveries (`resume_since`), and its probes.
 * `webhook_notices` carries what the owner is told on the map's streams (warnings, disable, recovery).
 */
export class Migration20261128130000_webhook_sequences extends Migration {
  override up(): void {
    this.addSql(`create table "webhook_queue_state" (
      "subscription_id" uuid primary key references "webhook_subscriptions" ("id") on delete cascade,
      "last_sequence" bigint not null default 0,
      "hold_until" timestamptz(6) null);`);
    this.addSql(`alter table "webhook_deliveries" add column "sequence" bigint null, add column "recovered" boolean not null default false;`);
    this.addSql(`alter table "webhook_attempts" add column "sequence" bigint null, add column "recovered" boolean not null default false;`);
    this.addSql(`alter table "webhook_subscriptions" add column "warned_level" smallint not null default 0, add column "disabled_reason" text null,
      add column "disabled_at" timestamptz(6) null, add column "resume_since" timestamptz(6) null, add column "probe_at" timestamptz(6) null,
      add column "probe_step" int not null default 0;`);
    this.addSql(`create index "webhook_subscriptions_probe_index" on "webhook_subscriptions" ("probe_at") where "probe_at" is not null;`);
    this.addSql(`create table "webhook_notices" (
      "id" bigint generated always as identity primary key,
      "map_id" uuid not null references "maps" ("id") on delete cascade,
      "kind" text not null check ("kind" in ('webhook_failing', 'webhook_disabled', 'webhook_recovered')),
      "payload" jsonb not null,
      "at" timestamptz(6) not null default now());`);
  }

  override down(): void {
    this.addSql(`drop table if exists "webhook_notices";`);
    this.addSql(`drop index if exists "webhook_subscriptions_probe_index";`);
    this.addSql(`alter table "webhook_subscriptions" drop column if exists "warned_level", drop column if exists "disabled_reason",
      drop column if exists "disabled_at", drop column if exists "resume_since", drop column if exists "probe_at", drop column if exists "probe_step";`);
    this.addSql(`alter table "webhook_attempts" drop column if exists "sequence", drop column if exists "recovered";`);
    this.addSql(`alter table "webhook_deliveries" drop column if exists "sequence", drop column if exists "recovered";`);
    this.addSql(`drop table if exists "webhook_queue_state";`);
  }
}
