import { Migration } from '@mikro-orm/migrations';

/**
 * Wormhole types of the static data (`wormholes/wormholes.json`): where each type leads (since the
 * reference data of v1.100 a list of classes) and its mass and lifetime, for the `static_details` of
 * the static system information. Written by the static data importer with the solar systems.
 */
export class Migration20261128150000_wormhole_types extends Migration {
  override up(): void {
    this.addSql(
      `create table "wormhole_types" ("name" varchar(16) not null, "destinations" jsonb not null, "lifetime" varchar(16) null, "total_mass" bigint null, "max_mass_per_jump" bigint null, "mass_regen" bigint null, primary key ("name"));`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists "wormhole_types";`);
  }
}
