import { Migration } from '@mikro-orm/migrations';

/**
 * Stargate jumps of the static data (`sde/mapSolarSystemJumps.csv`, one row per direction), the graph
 * the route finder walks, and the stamp of the last static data import, which tells a running process
 * that its copy of the graph is out of date. Both written by the static data importer.
 */
export class Migration20261128160000_stargate_jumps extends Migration {
  override up(): void {
    this.addSql(
      `create table "solar_system_jumps" ("from_solar_system_id" int not null, "to_solar_system_id" int not null, primary key ("from_solar_system_id", "to_solar_system_id"));`,
    );
    this.addSql(
      `create table "static_data_imports" ("id" smallint not null default 1, "imported_at" timestamptz(6) not null default now(), "systems" int not null, "jumps" int not null, primary key ("id"), constraint "static_data_imports_one_row" check ("id" = 1));`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists "static_data_imports";`);
    this.addSql(`drop table if exists "solar_system_jumps";`);
  }
}
