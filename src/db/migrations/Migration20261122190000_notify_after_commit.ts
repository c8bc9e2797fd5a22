import { Migration } from '@mikro-orm/migrations';

/**
 * The relay is now woken by a NOTIFY sent after the writing transaction commits (src/events/notifier.ts).
 * A NOTIFY inside the writing transaction holds PostgreSQL's notify lock until the commit record is
 * flushed, which serialised all writers.
 */
export class Migration20261122190000_notify_after_commit extends Migration {
  override up(): void {
    this.addSql(`drop trigger if exists map_events_notify on "map_events";`);
    this.addSql(`drop function if exists mapintel_notify_events();`);
  }

  override down(): void {
    this.addSql(`create or replace function mapintel_notify_events() returns trigger language plpgsql as $$
      begin
        perform pg_notify('mapintel_events', '');
        return null;
      end $$;`);
    this.addSql(`create trigger map_events_notify after insert on "map_events" for each statement execute function mapintel_notify_events();`);
  }
}
