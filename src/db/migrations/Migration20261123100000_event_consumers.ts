import { Migration } from '@mikro-orm/migrations';

/**
 * Durable positions of event consumers (the webhook workers): per consumer and map, the id of the
 * last event handled. A consumer starts with the events committed after it was first registered.
 */
export class Migration20261123100000_event_consumers extends Migration {
  override up(): void {
    this.addSql(`create table "event_consumers" ("name" text primary key, "started_at" timestamptz not null default clock_timestamp());`);
    this.addSql(`create table "event_consumer_positions" (
      "consumer" text not null references "event_consumers" ("name") on delete cascade,
      "map_id" uuid not null references "maps" ("id") on delete cascade,
      "last_event_id" text not null,
      "updated_at" timestamptz not null default clock_timestamp(),
      primary key ("consumer", "map_id"));`);
  }

  override down(): void {
    this.addSql(`drop table if exists "event_consumer_positions";`);
    this.addSql(`drop table if exists "event_consumers";`);
  }
}
