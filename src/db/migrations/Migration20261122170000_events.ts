import { Migration } from '@mikro-orm/migrations';

/**
 * Event pipeline: NOTIFY on every outbox insert (one per statement) wakes the relay; partial indexes
 * keep the relay's two queries cheap however large the event log grows; `created_at` takes the
 * wall-clock time of the insert, not the transaction start, so commit→publish latency is measurable.
 */
export class Migration20261122170000_events extends Migration {
  override up(): void {
    this.addSql(`alter table "map_events" alter column "created_at" set default clock_timestamp();`);
    this.addSql(`create index "map_events_unassigned_idx" on "map_events" ("seq") where "event_id" is null;`);
    this.addSql(`create index "map_events_unpublished_idx" on "map_events" ("map_id", "event_id") where "event_id" is not null and "published_at" is null;`);
    this.addSql(`create or replace function mapintel_notify_events() returns trigger language plpgsql as $$
      begin
        perform pg_notify('mapintel_events', '');
        return null;
      end $$;`);
    this.addSql(`create trigger map_events_notify after insert on "map_events" for each statement execute function mapintel_notify_events();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists map_events_notify on "map_events";`);
    this.addSql(`drop function if exists mapintel_notify_events();`);
    this.addSql(`drop index if exists "map_events_unpublished_idx";`);
    this.addSql(`drop index if exists "map_events_unassigned_idx";`);
    this.addSql(`alter table "map_events" alter column "created_at" set default now();`);
  }
}
