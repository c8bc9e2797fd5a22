import { Migration } from '@mikro-orm/migrations';

/**
 * Rally points: a character's call to gather in a system of a map (the reference server's rally
 * pings), with a message. A row goes with its map system (deleted with the map); like the other map
 * content tables, every change bumps the map's read version (Migration20261123140000_map_versions).
 */
export class Migration20261128140000_rally_points extends Migration {
  override up(): void {
    this.addSql(
      `create table "map_rally_points" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "system_id" uuid not null, "solar_system_id" int not null, "character_id" uuid not null, "message" text null, "inserted_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "map_rally_points_map_id_index" on "map_rally_points" ("map_id", "inserted_at");`);
    this.addSql(
      `alter table "map_rally_points" add constraint "map_rally_points_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "map_rally_points" add constraint "map_rally_points_system_id_foreign" foreign key ("system_id") references "map_systems" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "map_rally_points" add constraint "map_rally_points_character_id_foreign" foreign key ("character_id") references "characters" ("id") on delete cascade;`,
    );
    for (const [op, fn, ref] of [
      ['ins', 'mapintel_bump_new_maps', 'after insert on "map_rally_points" referencing new table as new_rows'],
      ['upd', 'mapintel_bump_new_maps', 'after update on "map_rally_points" referencing new table as new_rows'],
      ['del', 'mapintel_bump_old_maps', 'after delete on "map_rally_points" referencing old table as old_rows'],
    ] as const) {
      this.addSql(`create trigger "map_rally_points_version_${op}" ${ref} for each statement execute function ${fn}();`);
    }
  }

  override down(): void {
    this.addSql(`drop table if exists "map_rally_points" cascade;`);
  }
}
