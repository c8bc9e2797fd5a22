import { Migration } from '@mikro-orm/migrations';

/**
 * Tables whose rows belong to one map (`map_id`): any change to them changes what that map's reads return,
 * so every statement changing them bumps the map's version. Inserts into `map_kills` are the exception: a
 * new kill is always written with its `map_kill` event, whose id changes the map's read version, and kills
 * are the one write that arrives in floods (bumping a version row would serialise them per map).
 */
export const MAP_CONTENT_TABLES = [
  'map_systems',
  'map_connections',
  'map_signatures',
  'map_structures',
  'map_characters',
  'character_activity',
  'map_acls',
] as const;

/** Tables shared by every map (names, owners, ACLs, static data): a change to them may change any map's reads. */
export const SHARED_TABLES = ['characters', 'users', 'acls', 'acl_members', 'solar_systems'] as const;

/**
 * Map versions and the single-update write path (docs/decisions/0002-map-read-cache.md).
 *
 * - `map_versions`: per map, a version bumped by every statement that changes the map's content (triggers
 *   on the content tables, so no writer can forget it). With the map's last event id it says whether a
 *   cached read of the map is still current.
 * - `shared_data_version`: one row bumped by every change to the tables all maps read (characters, users,
 *   ACLs, static data).
 * - `map_event_cursors`: per map, the last event id the relay published. It replaces `published_at`: the
 *   relay updates each event row once (its id) instead of twice.
 * - `map_events` loses the indexes that served the second update and the global unique `event_id`: the
 *   partial index of unpublished events goes, the per-map `(map_id, event_id)` index becomes unique.
 */
export class Migration20261123140000_map_versions extends Migration {
  override up(): void {
    this.addSql(`create table "map_versions" (
      "map_id" uuid primary key references "maps" ("id") on delete cascade,
      "version" bigint not null default 1);`);
    this.addSql(`create table "map_event_cursors" (
      "map_id" uuid primary key references "maps" ("id") on delete cascade,
      "published_event_id" varchar(26) not null default '');`);
    this.addSql(`create table "shared_data_version" ("id" boolean primary key default true check ("id"), "version" bigint not null default 1);`);
    this.addSql(`insert into "shared_data_version" ("id", "version") values (true, 1);`);
    this.addSql(`insert into "map_versions" ("map_id") select "id" from "maps";`);
    // Per map the relay published in id order, so the published events are a prefix of the map's ids.
    this.addSql(`insert into "map_event_cursors" ("map_id", "published_event_id")
      select m."id", coalesce((select max(e."event_id") from "map_events" e where e."map_id" = m."id" and e."published_at" is not null), '') from "maps" m;`);

    this.addSql(`drop index if exists "map_events_unpublished_idx";`);
    this.addSql(`alter table "map_events" drop constraint if exists "map_events_event_id_unique";`);
    this.addSql(`drop index if exists "map_events_map_event_id_idx";`);
    this.addSql(`create unique index "map_events_map_event_id_key" on "map_events" ("map_id", "event_id");`);
    this.addSql(`alter table "map_events" drop column "published_at";`);

    // Bumps are upserts in map order: two statements bumping the same maps lock them in the same order.
    this.addSql(`create or replace function mapintel_bump_new_maps() returns trigger language plpgsql as $$
      begin
        insert into map_versions as v (map_id)
          select distinct map_id from new_rows order by map_id
          on conflict (map_id) do update set version = v.version + 1;
        return null;
      end $$;`);
    this.addSql(`create or replace function mapintel_bump_old_maps() returns trigger language plpgsql as $$
      begin
        insert into map_versions as v (map_id)
          select distinct o.map_id from old_rows o where exists (select 1 from maps m where m.id = o.map_id) order by o.map_id
          on conflict (map_id) do update set version = v.version + 1;
        return null;
      end $$;`);
    this.addSql(`create or replace function mapintel_bump_updated_maps() returns trigger language plpgsql as $$
      begin
        update map_versions v set version = v.version + 1 where v.map_id in (select id from new_rows);
        return null;
      end $$;`);
    this.addSql(`create or replace function mapintel_bump_shared() returns trigger language plpgsql as $$
      begin
        update shared_data_version set version = version + 1;
        return null;
      end $$;`);
    for (const table of MAP_CONTENT_TABLES) {
      this.addSql(
        `create trigger "${table}_version_ins" after insert on "${table}" referencing new table as new_rows for each statement execute function mapintel_bump_new_maps();`,
      );
      this.addSql(
        `create trigger "${table}_version_upd" after update on "${table}" referencing new table as new_rows for each statement execute function mapintel_bump_new_maps();`,
      );
      this.addSql(
        `create trigger "${table}_version_del" after delete on "${table}" referencing old table as old_rows for each statement execute function mapintel_bump_old_maps();`,
      );
    }
    // A map's own row (slug, owner) is part of what its reads check; deleting a map deletes its version.
    this.addSql(
      `create trigger "map_kills_version_del" after delete on "map_kills" referencing old table as old_rows for each statement execute function mapintel_bump_old_maps();`,
    );
    this.addSql(
      `create trigger "map_kills_version_upd" after update on "map_kills" referencing new table as new_rows for each statement execute function mapintel_bump_new_maps();`,
    );
    // Pruning a map's events can take its last event id back to none: the version moves on instead.
    this.addSql(
      `create trigger "map_events_version_del" after delete on "map_events" referencing old table as old_rows for each statement execute function mapintel_bump_old_maps();`,
    );
    this.addSql(
      `create trigger "maps_version_upd" after update on "maps" referencing new table as new_rows for each statement execute function mapintel_bump_updated_maps();`,
    );
    for (const table of SHARED_TABLES) {
      this.addSql(
        `create trigger "${table}_shared_version" after insert or update or delete on "${table}" for each statement execute function mapintel_bump_shared();`,
      );
    }
  }

  override down(): void {
    for (const table of SHARED_TABLES) this.addSql(`drop trigger if exists "${table}_shared_version" on "${table}";`);
    this.addSql(`drop trigger if exists "maps_version_upd" on "maps";`);
    this.addSql(`drop trigger if exists "map_events_version_del" on "map_events";`);
    this.addSql(`drop trigger if exists "map_kills_version_del" on "map_kills";`);
    this.addSql(`drop trigger if exists "map_kills_version_upd" on "map_kills";`);
    for (const table of MAP_CONTENT_TABLES) {
      for (const op of ['ins', 'upd', 'del']) this.addSql(`drop trigger if exists "${table}_version_${op}" on "${table}";`);
    }
    for (const fn of ['mapintel_bump_new_maps', 'mapintel_bump_old_maps', 'mapintel_bump_updated_maps', 'mapintel_bump_shared']) {
      this.addSql(`drop function if exists ${fn}();`);
    }
    this.addSql(`alter table "map_events" add column "published_at" timestamptz(6) null;`);
    this.addSql(
      `update "map_events" e set "published_at" = clock_timestamp() from "map_event_cursors" c where c."map_id" = e."map_id" and e."event_id" <= c."published_event_id";`,
    );
    this.addSql(`drop index if exists "map_events_map_event_id_key";`);
    this.addSql(`create index "map_events_map_event_id_idx" on "map_events" ("map_id", "event_id");`);
    this.addSql(`alter table "map_events" add constraint "map_events_event_id_unique" unique ("event_id");`);
    this.addSql(`create index "map_events_unpublished_idx" on "map_events" ("map_id", "event_id") where "event_id" is not null and "published_at" is null;`);
    this.addSql(`drop table if exists "shared_data_version";`);
    this.addSql(`drop table if exists "map_event_cursors";`);
    this.addSql(`drop table if exists "map_versions";`);
  }
}
