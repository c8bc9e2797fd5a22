import { Migration } from '@mikro-orm/migrations';

/**
 * The wire profile of a map key's event streams: `spec` (decisions §6) or `reference` (the `event:`
 * line and `timestamp` field that clients written against the reference server need).
 */
export class Migration20261123120000_key_stream_profile extends Migration {
  override up(): void {
    this.addSql(`alter table "map_api_keys" add column "stream_profile" text not null default 'spec' check ("stream_profile" in ('spec', 'reference'));`);
  }

  override down(): void {
    this.addSql(`alter table "map_api_keys" drop column if exists "stream_profile";`);
  }
}
