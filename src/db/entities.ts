/**
 * Every table of mapintel as MikroORM `defineEntity` schemas. API models are DTOs (see *.dto.ts);
 * these types never leave the service layer.
 *
 * Timestamps are `timestamptz` (microsecond precision in PostgreSQL) defaulting to now() in the
 * database, so rows written by SQL and by the ORM agree.
 */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

const created = () => p.datetime(6).fieldName('inserted_at').defaultRaw('now()').onCreate(() => new Date());
const updated = () =>
  p
    .datetime(6)
    .fieldName('updated_at')
    .defaultRaw('now()')
    .onCreate(() => new Date())
    .onUpdate(() => new Date());

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    name: p.string().length(255),
    /** The user's main character (characters.id); null when none is set. */
    mainCharacterId: p.uuid().nullable().fieldName('main_character_id'),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type User = InferEntity<typeof User>;

export const Character = defineEntity({
  name: 'Character',
  tableName: 'characters',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    eveId: p.string().length(32).fieldName('eve_id').unique('characters_eve_id_unique'),
    name: p.string().length(255),
    corporationId: p.string().length(32).fieldName('corporation_id'),
    corporationTicker: p.string().length(16).fieldName('corporation_ticker'),
    allianceId: p.string().length(32).nullable().fieldName('alliance_id'),
    allianceTicker: p.string().length(16).nullable().fieldName('alliance_ticker'),
    user: p.manyToOne(User).nullable().fieldName('user_id').deleteRule('set null').index(),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type Character = InferEntity<typeof Character>;

export const MapEntity = defineEntity({
  name: 'Map',
  tableName: 'maps',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    slug: p.string().length(100).unique('maps_slug_unique'),
    name: p.string().length(255),
    description: p.text().nullable(),
    owner: p.manyToOne(Character).fieldName('owner_character_id').deleteRule('restrict').index(),
    webhooksEnabled: p.boolean().fieldName('webhooks_enabled').default(false),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type MapEntity = InferEntity<typeof MapEntity>;

export const MapApiKey = defineEntity({
  name: 'MapApiKey',
  tableName: 'map_api_keys',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade').index(),
    character: p.manyToOne(Character).fieldName('character_id').deleteRule('cascade'),
    /** sha256 of the key, hex; the key itself is never stored. */
    keyHash: p.string().length(64).fieldName('key_hash').unique('map_api_keys_hash_unique'),
    /** First characters of the key, to tell keys apart in listings. */
    prefix: p.string().length(16),
    name: p.string().length(255).nullable(),
    revokedAt: p.datetime(6).nullable().fieldName('revoked_at'),
    lastUsedAt: p.datetime(6).nullable().fieldName('last_used_at'),
    insertedAt: created(),
  },
});
export type MapApiKey = InferEntity<typeof MapApiKey>;

export const MapCharacter = defineEntity({
  name: 'MapCharacter',
  tableName: 'map_characters',
  uniques: [{ properties: ['map', 'character'], name: 'map_characters_map_character_unique' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade'),
    character: p.manyToOne(Character).fieldName('character_id').deleteRule('cascade').index(),
    tracked: p.boolean().default(true),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type MapCharacter = InferEntity<typeof MapCharacter>;

/** Static solar system data (SDE), loaded by `mapintel sde import`. */
export const SolarSystem = defineEntity({
  name: 'SolarSystem',
  tableName: 'solar_systems',
  properties: {
    solarSystemId: p.integer().primary().autoincrement(false).fieldName('solar_system_id'),
    solarSystemName: p.string().length(100).fieldName('solar_system_name'),
    solarSystemNameLc: p.string().length(100).fieldName('solar_system_name_lc').index(),
    regionId: p.integer().fieldName('region_id'),
    regionName: p.string().length(100).fieldName('region_name'),
    constellationId: p.integer().fieldName('constellation_id'),
    constellationName: p.string().length(100).fieldName('constellation_name'),
    /** True security, unrounded. */
    trueSecurity: p.double().fieldName('true_security'),
    /** Security rounded to one decimal, as text (spec 2.2). */
    security: p.string().length(8),
    systemClass: p.integer().fieldName('system_class'),
    classTitle: p.string().length(32).fieldName('class_title'),
    typeDescription: p.string().length(64).fieldName('type_description'),
    effectName: p.string().length(64).nullable().fieldName('effect_name'),
    effectPower: p.integer().fieldName('effect_power').default(0),
    statics: p.type('text[]').defaultRaw("'{}'"),
    wandering: p.type('text[]').defaultRaw("'{}'"),
    sunTypeId: p.integer().fieldName('sun_type_id'),
    triglavianInvasionStatus: p.string().length(32).fieldName('triglavian_invasion_status').default('Normal'),
    isShattered: p.boolean().fieldName('is_shattered').default(false),
  },
});
export type SolarSystem = InferEntity<typeof SolarSystem>;

export const MapSystem = defineEntity({
  name: 'MapSystem',
  tableName: 'map_systems',
  uniques: [{ properties: ['map', 'solarSystemId'], name: 'map_systems_map_solar_system_unique' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade'),
    solarSystemId: p.integer().fieldName('solar_system_id'),
    name: p.string().length(100),
    customName: p.string().length(255).nullable().fieldName('custom_name'),
    description: p.text().nullable(),
    tag: p.string().length(64).nullable(),
    /** JSON-encoded labels value, kept as the text clients sent (spec 2.1). */
    labels: p.text().nullable(),
    status: p.smallint().default(0),
    visible: p.boolean().default(true),
    locked: p.boolean().default(false),
    positionX: p.integer().fieldName('position_x').default(0),
    positionY: p.integer().fieldName('position_y').default(0),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type MapSystem = InferEntity<typeof MapSystem>;

export const MapConnection = defineEntity({
  name: 'MapConnection',
  tableName: 'map_connections',
  indexes: [{ properties: ['map', 'solarSystemSource', 'solarSystemTarget'], name: 'map_connections_map_ends_idx' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade'),
    solarSystemSource: p.integer().fieldName('solar_system_source'),
    solarSystemTarget: p.integer().fieldName('solar_system_target'),
    type: p.smallint().default(0),
    massStatus: p.smallint().fieldName('mass_status').default(0),
    timeStatus: p.smallint().fieldName('time_status').default(0),
    shipSizeType: p.smallint().fieldName('ship_size_type').default(2),
    wormholeType: p.string().length(16).nullable().fieldName('wormhole_type'),
    locked: p.boolean().default(false),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type MapConnection = InferEntity<typeof MapConnection>;

export const MapSignature = defineEntity({
  name: 'MapSignature',
  tableName: 'map_signatures',
  uniques: [{ properties: ['system', 'eveId'], name: 'map_signatures_system_eve_id_unique' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade').index(),
    system: p.manyToOne(MapSystem).fieldName('system_id').deleteRule('cascade'),
    solarSystemId: p.integer().fieldName('solar_system_id'),
    /** In-game signature id, e.g. ABC-123. */
    eveId: p.string().length(16).fieldName('eve_id'),
    name: p.string().length(255).nullable(),
    kind: p.string().length(64).nullable(),
    group: p.string().length(64).nullable().fieldName('group_name'),
    type: p.string().length(64).nullable(),
    description: p.text().nullable(),
    characterEveId: p.string().length(32).nullable().fieldName('character_eve_id'),
    linkedSystemId: p.integer().nullable().fieldName('linked_system_id'),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type MapSignature = InferEntity<typeof MapSignature>;

export const STRUCTURE_STATUSES = ['Powered', 'Anchoring', 'Unanchoring', 'Low Power', 'Abandoned', 'Reinforced'] as const;

export const MapStructure = defineEntity({
  name: 'MapStructure',
  tableName: 'map_structures',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade').index(),
    system: p.manyToOne(MapSystem).fieldName('system_id').deleteRule('cascade'),
    solarSystemId: p.integer().fieldName('solar_system_id'),
    solarSystemName: p.string().length(100).fieldName('solar_system_name'),
    structureTypeId: p.string().length(32).fieldName('structure_type_id'),
    structureType: p.string().length(100).fieldName('structure_type'),
    characterEveId: p.string().length(32).nullable().fieldName('character_eve_id'),
    name: p.string().length(255),
    notes: p.text().nullable(),
    ownerName: p.string().length(255).nullable().fieldName('owner_name'),
    ownerTicker: p.string().length(16).nullable().fieldName('owner_ticker'),
    ownerId: p.string().length(32).nullable().fieldName('owner_id'),
    status: p.string().length(32),
    endTime: p.datetime(6).nullable().fieldName('end_time'),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type MapStructure = InferEntity<typeof MapStructure>;

export interface Zkb {
  awox: boolean;
  destroyedValue: number;
  droppedValue: number;
  fittedValue: number;
  hash: string;
  labels: string[];
  locationID: number;
  npc: boolean;
  points: number;
  solo: boolean;
  totalValue: number;
}

export const MapKill = defineEntity({
  name: 'MapKill',
  tableName: 'map_kills',
  uniques: [{ properties: ['map', 'killmailId'], name: 'map_kills_map_killmail_unique' }],
  indexes: [{ properties: ['map', 'solarSystemId', 'killTime'], name: 'map_kills_map_system_time_idx' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade'),
    killmailId: p.bigint('number').fieldName('killmail_id'),
    killTime: p.datetime(0).fieldName('kill_time'),
    solarSystemId: p.integer().fieldName('solar_system_id'),
    attackerCount: p.integer().fieldName('attacker_count'),
    npc: p.boolean(),
    totalValue: p.double().fieldName('total_value'),
    finalBlowAllianceId: p.bigint('number').nullable().fieldName('final_blow_alliance_id'),
    finalBlowCharId: p.bigint('number').nullable().fieldName('final_blow_char_id'),
    finalBlowCorpId: p.bigint('number').nullable().fieldName('final_blow_corp_id'),
    finalBlowShipTypeId: p.bigint('number').nullable().fieldName('final_blow_ship_type_id'),
    finalBlowAllianceTicker: p.string().length(16).nullable().fieldName('final_blow_alliance_ticker'),
    finalBlowCharName: p.string().length(255).nullable().fieldName('final_blow_char_name'),
    finalBlowCorpTicker: p.string().length(16).nullable().fieldName('final_blow_corp_ticker'),
    finalBlowShipName: p.string().length(255).nullable().fieldName('final_blow_ship_name'),
    victimAllianceId: p.bigint('number').nullable().fieldName('victim_alliance_id'),
    victimCharId: p.bigint('number').nullable().fieldName('victim_char_id'),
    victimCorpId: p.bigint('number').nullable().fieldName('victim_corp_id'),
    victimShipTypeId: p.bigint('number').nullable().fieldName('victim_ship_type_id'),
    victimCharName: p.string().length(255).nullable().fieldName('victim_char_name'),
    victimCorpTicker: p.string().length(16).nullable().fieldName('victim_corp_ticker'),
    victimShipName: p.string().length(255).nullable().fieldName('victim_ship_name'),
    zkb: p.json<Zkb>(),
    insertedAt: created(),
  },
});
export type MapKill = InferEntity<typeof MapKill>;

/** Activity counters of a character on a map, one row per UTC day. */
export const CharacterActivity = defineEntity({
  name: 'CharacterActivity',
  tableName: 'character_activity',
  uniques: [{ properties: ['map', 'character', 'day'], name: 'character_activity_map_character_day_unique' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade'),
    character: p.manyToOne(Character).fieldName('character_id').deleteRule('cascade').index(),
    day: p.date(),
    passages: p.integer().default(0),
    connections: p.integer().default(0),
    signatures: p.integer().default(0),
    /** Time of the latest counted activity in this row. */
    lastActivityAt: p.datetime(6).fieldName('last_activity_at').defaultRaw('now()').onCreate(() => new Date()),
  },
});
export type CharacterActivity = InferEntity<typeof CharacterActivity>;

export const Acl = defineEntity({
  name: 'Acl',
  tableName: 'acls',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    name: p.string().length(255),
    description: p.text().nullable(),
    owner: p.manyToOne(Character).fieldName('owner_id').deleteRule('restrict').index(),
    /** The API key, AES-256-GCM encrypted (it is shown again on every read, so it cannot be hashed). */
    apiKeyEncrypted: p.text().fieldName('api_key_encrypted'),
    /** sha256 of the API key, hex, for lookup. */
    apiKeyHash: p.string().length(64).fieldName('api_key_hash').unique('acls_api_key_hash_unique'),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type Acl = InferEntity<typeof Acl>;

export const ACL_ROLES = ['admin', 'manager', 'member', 'viewer', 'blocked'] as const;

export const AclMember = defineEntity({
  name: 'AclMember',
  tableName: 'acl_members',
  uniques: [
    { properties: ['acl', 'eveCharacterId'], name: 'acl_members_acl_character_unique' },
    { properties: ['acl', 'eveCorporationId'], name: 'acl_members_acl_corporation_unique' },
    { properties: ['acl', 'eveAllianceId'], name: 'acl_members_acl_alliance_unique' },
  ],
  checks: [
    {
      name: 'acl_members_exactly_one_id',
      expression:
        '(CASE WHEN eve_character_id IS NULL THEN 0 ELSE 1 END + CASE WHEN eve_corporation_id IS NULL THEN 0 ELSE 1 END + CASE WHEN eve_alliance_id IS NULL THEN 0 ELSE 1 END) = 1',
    },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    acl: p.manyToOne(Acl).fieldName('acl_id').deleteRule('cascade'),
    name: p.string().length(255),
    role: p.string().length(16),
    eveCharacterId: p.string().length(32).nullable().fieldName('eve_character_id'),
    eveCorporationId: p.string().length(32).nullable().fieldName('eve_corporation_id'),
    eveAllianceId: p.string().length(32).nullable().fieldName('eve_alliance_id'),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type AclMember = InferEntity<typeof AclMember>;

export const MapAcl = defineEntity({
  name: 'MapAcl',
  tableName: 'map_acls',
  properties: {
    map: p.manyToOne(MapEntity).primary().fieldName('map_id').deleteRule('cascade'),
    acl: p.manyToOne(Acl).primary().fieldName('acl_id').deleteRule('cascade').index(),
    insertedAt: created(),
  },
});
export type MapAcl = InferEntity<typeof MapAcl>;

export const WebhookSubscription = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhook_subscriptions',
  uniques: [{ properties: ['map', 'url'], name: 'webhook_subscriptions_map_url_unique' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade'),
    url: p.string().length(2000),
    events: p.type('text[]'),
    active: p.boolean().default(true),
    /** Signing secret, AES-256-GCM encrypted. */
    secretEncrypted: p.text().fieldName('secret_encrypted'),
    lastDeliveryAt: p.datetime(6).nullable().fieldName('last_delivery_at'),
    lastError: p.text().nullable().fieldName('last_error'),
    lastErrorAt: p.datetime(6).nullable().fieldName('last_error_at'),
    consecutiveFailures: p.integer().fieldName('consecutive_failures').default(0),
    /** null, or `kubernetes:<namespace>/<name>` for subscriptions owned by a custom resource. */
    managedBy: p.string().length(255).nullable().fieldName('managed_by'),
    insertedAt: created(),
    updatedAt: updated(),
  },
});
export type WebhookSubscription = InferEntity<typeof WebhookSubscription>;

/**
 * The event outbox and event log. A change writes its rows and its events in one transaction; the
 * relay assigns `event_id` (ULID, increasing per map) in commit order when it publishes.
 */
export const MapEvent = defineEntity({
  name: 'MapEvent',
  tableName: 'map_events',
  indexes: [
    { properties: ['map', 'eventId'], name: 'map_events_map_event_id_idx' },
    { properties: ['createdAt'], name: 'map_events_created_at_idx' },
  ],
  properties: {
    seq: p.bigint('number').primary().autoincrement(),
    map: p.manyToOne(MapEntity).fieldName('map_id').deleteRule('cascade'),
    type: p.string().length(64),
    payload: p.json<Record<string, unknown>>(),
    eventId: p.string().length(26).nullable().fieldName('event_id').unique('map_events_event_id_unique'),
    createdAt: p.datetime(6).fieldName('created_at').defaultRaw('now()').onCreate(() => new Date()),
    publishedAt: p.datetime(6).nullable().fieldName('published_at'),
  },
});
export type MapEvent = InferEntity<typeof MapEvent>;

export const ALL_ENTITIES = [
  User,
  Character,
  MapEntity,
  MapApiKey,
  MapCharacter,
  SolarSystem,
  MapSystem,
  MapConnection,
  MapSignature,
  MapStructure,
  MapKill,
  CharacterActivity,
  Acl,
  AclMember,
  MapAcl,
  WebhookSubscription,
  MapEvent,
];
