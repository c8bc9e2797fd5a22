import { Migration } from '@mikro-orm/migrations';

export class Migration20261122155358_initial extends Migration {
  override name = 'Migration20261122155358_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "solar_systems" ("solar_system_id" int not null, "solar_system_name" varchar(100) not null, "solar_system_name_lc" varchar(100) not null, "region_id" int not null, "region_name" varchar(100) not null, "constellation_id" int not null, "constellation_name" varchar(100) not null, "true_security" double precision not null, "security" varchar(8) not null, "system_class" int not null, "class_title" varchar(32) not null, "type_description" varchar(64) not null, "effect_name" varchar(64) null, "effect_power" int not null default 0, "statics" text[] not null default '{}', "wandering" text[] not null default '{}', "sun_type_id" int not null, "triglavian_invasion_status" varchar(32) not null default 'Normal', "is_shattered" boolean not null default false, primary key ("solar_system_id"));`,
    );
    this.addSql(`create index "solar_systems_solar_system_name_lc_index" on "solar_systems" ("solar_system_name_lc");`);

    this.addSql(
      `create table "users" ("id" uuid not null default gen_random_uuid(), "name" varchar(255) not null, "main_character_id" uuid null, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );

    this.addSql(
      `create table "characters" ("id" uuid not null default gen_random_uuid(), "eve_id" varchar(32) not null, "name" varchar(255) not null, "corporation_id" varchar(32) not null, "corporation_ticker" varchar(16) not null, "alliance_id" varchar(32) null, "alliance_ticker" varchar(16) null, "user_id" uuid null, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`alter table "characters" add constraint "characters_eve_id_unique" unique ("eve_id");`);
    this.addSql(`create index "characters_user_id_index" on "characters" ("user_id");`);

    this.addSql(
      `create table "maps" ("id" uuid not null default gen_random_uuid(), "slug" varchar(100) not null, "name" varchar(255) not null, "description" text null, "owner_character_id" uuid not null, "webhooks_enabled" boolean not null default false, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`alter table "maps" add constraint "maps_slug_unique" unique ("slug");`);
    this.addSql(`create index "maps_owner_character_id_index" on "maps" ("owner_character_id");`);

    this.addSql(
      `create table "map_systems" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "solar_system_id" int not null, "name" varchar(100) not null, "custom_name" varchar(255) null, "description" text null, "tag" varchar(64) null, "labels" text null, "status" smallint not null default 0, "visible" boolean not null default true, "locked" boolean not null default false, "position_x" int not null default 0, "position_y" int not null default 0, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`alter table "map_systems" add constraint "map_systems_map_solar_system_unique" unique ("map_id", "solar_system_id");`);

    this.addSql(
      `create table "map_structures" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "system_id" uuid not null, "solar_system_id" int not null, "solar_system_name" varchar(100) not null, "structure_type_id" varchar(32) not null, "structure_type" varchar(100) not null, "character_eve_id" varchar(32) null, "name" varchar(255) not null, "notes" text null, "owner_name" varchar(255) null, "owner_ticker" varchar(16) null, "owner_id" varchar(32) null, "status" varchar(32) not null, "end_time" timestamptz(6) null, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "map_structures_map_id_index" on "map_structures" ("map_id");`);

    this.addSql(
      `create table "map_signatures" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "system_id" uuid not null, "solar_system_id" int not null, "eve_id" varchar(16) not null, "name" varchar(255) null, "kind" varchar(64) null, "group_name" varchar(64) null, "type" varchar(64) null, "description" text null, "character_eve_id" varchar(32) null, "linked_system_id" int null, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "map_signatures_map_id_index" on "map_signatures" ("map_id");`);
    this.addSql(`alter table "map_signatures" add constraint "map_signatures_system_eve_id_unique" unique ("system_id", "eve_id");`);

    this.addSql(
      `create table "map_kills" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "killmail_id" bigint not null, "kill_time" timestamptz(0) not null, "solar_system_id" int not null, "attacker_count" int not null, "npc" boolean not null, "total_value" double precision not null, "final_blow_alliance_id" bigint null, "final_blow_char_id" bigint null, "final_blow_corp_id" bigint null, "final_blow_ship_type_id" bigint null, "final_blow_alliance_ticker" varchar(16) null, "final_blow_char_name" varchar(255) null, "final_blow_corp_ticker" varchar(16) null, "final_blow_ship_name" varchar(255) null, "victim_alliance_id" bigint null, "victim_char_id" bigint null, "victim_corp_id" bigint null, "victim_ship_type_id" bigint null, "victim_char_name" varchar(255) null, "victim_corp_ticker" varchar(16) null, "victim_ship_name" varchar(255) null, "zkb" jsonb not null, "inserted_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "map_kills_map_system_time_idx" on "map_kills" ("map_id", "solar_system_id", "kill_time");`);
    this.addSql(`alter table "map_kills" add constraint "map_kills_map_killmail_unique" unique ("map_id", "killmail_id");`);

    this.addSql(
      `create table "map_events" ("seq" bigserial primary key, "map_id" uuid not null, "type" varchar(64) not null, "payload" jsonb not null, "event_id" varchar(26) null, "created_at" timestamptz(6) not null default now(), "published_at" timestamptz(6) null);`,
    );
    this.addSql(`alter table "map_events" add constraint "map_events_event_id_unique" unique ("event_id");`);
    this.addSql(`create index "map_events_map_event_id_idx" on "map_events" ("map_id", "event_id");`);
    this.addSql(`create index "map_events_created_at_idx" on "map_events" ("created_at");`);

    this.addSql(
      `create table "map_connections" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "solar_system_source" int not null, "solar_system_target" int not null, "type" smallint not null default 0, "mass_status" smallint not null default 0, "time_status" smallint not null default 0, "ship_size_type" smallint not null default 2, "wormhole_type" varchar(16) null, "locked" boolean not null default false, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "map_connections_map_ends_idx" on "map_connections" ("map_id", "solar_system_source", "solar_system_target");`);

    this.addSql(
      `create table "map_characters" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "character_id" uuid not null, "tracked" boolean not null default true, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "map_characters_character_id_index" on "map_characters" ("character_id");`);
    this.addSql(`alter table "map_characters" add constraint "map_characters_map_character_unique" unique ("map_id", "character_id");`);

    this.addSql(
      `create table "map_api_keys" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "character_id" uuid not null, "key_hash" varchar(64) not null, "prefix" varchar(16) not null, "name" varchar(255) null, "revoked_at" timestamptz(6) null, "last_used_at" timestamptz(6) null, "inserted_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "map_api_keys_map_id_index" on "map_api_keys" ("map_id");`);
    this.addSql(`alter table "map_api_keys" add constraint "map_api_keys_hash_unique" unique ("key_hash");`);

    this.addSql(
      `create table "character_activity" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "character_id" uuid not null, "day" date not null, "passages" int not null default 0, "connections" int not null default 0, "signatures" int not null default 0, "last_activity_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "character_activity_character_id_index" on "character_activity" ("character_id");`);
    this.addSql(`alter table "character_activity" add constraint "character_activity_map_character_day_unique" unique ("map_id", "character_id", "day");`);

    this.addSql(
      `create table "acls" ("id" uuid not null default gen_random_uuid(), "name" varchar(255) not null, "description" text null, "owner_id" uuid not null, "api_key_encrypted" text not null, "api_key_hash" varchar(64) not null, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "acls_owner_id_index" on "acls" ("owner_id");`);
    this.addSql(`alter table "acls" add constraint "acls_api_key_hash_unique" unique ("api_key_hash");`);

    this.addSql(
      `create table "map_acls" ("map_id" uuid not null, "acl_id" uuid not null, "inserted_at" timestamptz(6) not null default now(), primary key ("map_id", "acl_id"));`,
    );
    this.addSql(`create index "map_acls_acl_id_index" on "map_acls" ("acl_id");`);

    this.addSql(
      `create table "acl_members" ("id" uuid not null default gen_random_uuid(), "acl_id" uuid not null, "name" varchar(255) not null, "role" varchar(16) not null, "eve_character_id" varchar(32) null, "eve_corporation_id" varchar(32) null, "eve_alliance_id" varchar(32) null, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`alter table "acl_members" add constraint "acl_members_acl_character_unique" unique ("acl_id", "eve_character_id");`);
    this.addSql(`alter table "acl_members" add constraint "acl_members_acl_corporation_unique" unique ("acl_id", "eve_corporation_id");`);
    this.addSql(`alter table "acl_members" add constraint "acl_members_acl_alliance_unique" unique ("acl_id", "eve_alliance_id");`);

    this.addSql(
      `create table "webhook_subscriptions" ("id" uuid not null default gen_random_uuid(), "map_id" uuid not null, "url" varchar(2000) not null, "events" text[] not null, "active" boolean not null default true, "secret_encrypted" text not null, "last_delivery_at" timestamptz(6) null, "last_error" text null, "last_error_at" timestamptz(6) null, "consecutive_failures" int not null default 0, "managed_by" varchar(255) null, "inserted_at" timestamptz(6) not null default now(), "updated_at" timestamptz(6) not null default now(), primary key ("id"));`,
    );
    this.addSql(`alter table "webhook_subscriptions" add constraint "webhook_subscriptions_map_url_unique" unique ("map_id", "url");`);

    this.addSql(`alter table "characters" add constraint "characters_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete set null;`);

    this.addSql(
      `alter table "maps" add constraint "maps_owner_character_id_foreign" foreign key ("owner_character_id") references "characters" ("id") on delete restrict;`,
    );

    this.addSql(`alter table "map_systems" add constraint "map_systems_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`);

    this.addSql(
      `alter table "map_structures" add constraint "map_structures_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "map_structures" add constraint "map_structures_system_id_foreign" foreign key ("system_id") references "map_systems" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "map_signatures" add constraint "map_signatures_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "map_signatures" add constraint "map_signatures_system_id_foreign" foreign key ("system_id") references "map_systems" ("id") on delete cascade;`,
    );

    this.addSql(`alter table "map_kills" add constraint "map_kills_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`);

    this.addSql(`alter table "map_events" add constraint "map_events_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`);

    this.addSql(
      `alter table "map_connections" add constraint "map_connections_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "map_characters" add constraint "map_characters_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "map_characters" add constraint "map_characters_character_id_foreign" foreign key ("character_id") references "characters" ("id") on delete cascade;`,
    );

    this.addSql(`alter table "map_api_keys" add constraint "map_api_keys_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`);
    this.addSql(
      `alter table "map_api_keys" add constraint "map_api_keys_character_id_foreign" foreign key ("character_id") references "characters" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "character_activity" add constraint "character_activity_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "character_activity" add constraint "character_activity_character_id_foreign" foreign key ("character_id") references "characters" ("id") on delete cascade;`,
    );

    this.addSql(`alter table "acls" add constraint "acls_owner_id_foreign" foreign key ("owner_id") references "characters" ("id") on delete restrict;`);

    this.addSql(
      `alter table "map_acls" add constraint "map_acls_map_id_foreign" foreign key ("map_id") references "maps" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "map_acls" add constraint "map_acls_acl_id_foreign" foreign key ("acl_id") references "acls" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`alter table "acl_members" add constraint "acl_members_acl_id_foreign" foreign key ("acl_id") references "acls" ("id") on delete cascade;`);
    this.addSql(
      `alter table "acl_members" add constraint "acl_members_exactly_one_id" check ((CASE WHEN eve_character_id IS NULL THEN 0 ELSE 1 END + CASE WHEN eve_corporation_id IS NULL THEN 0 ELSE 1 END + CASE WHEN eve_alliance_id IS NULL THEN 0 ELSE 1 END) = 1);`,
    );

    this.addSql(
      `alter table "webhook_subscriptions" add constraint "webhook_subscriptions_map_id_foreign" foreign key ("map_id") references "maps" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "characters" drop constraint "characters_user_id_foreign";`);
    this.addSql(`alter table "maps" drop constraint "maps_owner_character_id_foreign";`);
    this.addSql(`alter table "map_characters" drop constraint "map_characters_character_id_foreign";`);
    this.addSql(`alter table "map_api_keys" drop constraint "map_api_keys_character_id_foreign";`);
    this.addSql(`alter table "character_activity" drop constraint "character_activity_character_id_foreign";`);
    this.addSql(`alter table "acls" drop constraint "acls_owner_id_foreign";`);
    this.addSql(`alter table "map_systems" drop constraint "map_systems_map_id_foreign";`);
    this.addSql(`alter table "map_structures" drop constraint "map_structures_map_id_foreign";`);
    this.addSql(`alter table "map_signatures" drop constraint "map_signatures_map_id_foreign";`);
    this.addSql(`alter table "map_kills" drop constraint "map_kills_map_id_foreign";`);
    this.addSql(`alter table "map_events" drop constraint "map_events_map_id_foreign";`);
    this.addSql(`alter table "map_connections" drop constraint "map_connections_map_id_foreign";`);
    this.addSql(`alter table "map_characters" drop constraint "map_characters_map_id_foreign";`);
    this.addSql(`alter table "map_api_keys" drop constraint "map_api_keys_map_id_foreign";`);
    this.addSql(`alter table "character_activity" drop constraint "character_activity_map_id_foreign";`);
    this.addSql(`alter table "map_acls" drop constraint "map_acls_map_id_foreign";`);
    this.addSql(`alter table "webhook_subscriptions" drop constraint "webhook_subscriptions_map_id_foreign";`);
    this.addSql(`alter table "map_structures" drop constraint "map_structures_system_id_foreign";`);
    this.addSql(`alter table "map_signatures" drop constraint "map_signatures_system_id_foreign";`);
    this.addSql(`alter table "map_acls" drop constraint "map_acls_acl_id_foreign";`);
    this.addSql(`alter table "acl_members" drop constraint "acl_members_acl_id_foreign";`);

    this.addSql(`drop table if exists "solar_systems" cascade;`);
    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "characters" cascade;`);
    this.addSql(`drop table if exists "maps" cascade;`);
    this.addSql(`drop table if exists "map_systems" cascade;`);
    this.addSql(`drop table if exists "map_structures" cascade;`);
    this.addSql(`drop table if exists "map_signatures" cascade;`);
    this.addSql(`drop table if exists "map_kills" cascade;`);
    this.addSql(`drop table if exists "map_events" cascade;`);
    this.addSql(`drop table if exists "map_connections" cascade;`);
    this.addSql(`drop table if exists "map_characters" cascade;`);
    this.addSql(`drop table if exists "map_api_keys" cascade;`);
    this.addSql(`drop table if exists "character_activity" cascade;`);
    this.addSql(`drop table if exists "acls" cascade;`);
    this.addSql(`drop table if exists "map_acls" cascade;`);
    this.addSql(`drop table if exists "acl_members" cascade;`);
    this.addSql(`drop table if exists "webhook_subscriptions" cascade;`);
  }
}
