/** `mapintel admin …`: operator bootstrap over the database alone, one function per command group. */
import { Option, type Command } from 'commander';
import type { KeyProfile } from '../http/key-profile.js';
import { print, withAdmin } from './support.js';

export function addAdminCommands(program: Command): void {
  const admin = program.command('admin').description('operator bootstrap: users, characters, maps, map keys, tracking (same rules as /api/admin)');
  addUserCommands(admin);
  addCharacterCommands(admin);
  addMapCommands(admin);
  addKeyCommands(admin);
  addTrackingCommands(admin);
}

/** Users: create-user, list-users. */
function addUserCommands(admin: Command): void {
  admin
    .command('create-user')
    .description('create a user; prints it with its id, which upsert-character --user-id and set-main-character --user-id take')
    .requiredOption('--name <name>', 'display name')
    .action(async (o: { name: string }) => withAdmin(async (admin) => print(await admin.createUser(o.name))));
  admin
    .command('list-users')
    .description('list users with their characters')
    .action(async () => withAdmin(async (admin) => print(await admin.listUsers())));
}

/** Characters: upsert-character, set-main-character. */
function addCharacterCommands(admin: Command): void {
  admin
    .command('upsert-character')
    .description("create or update a character by eve_id; --user-id links it to a user (the user's characters and main character)")
    .requiredOption('--eve-id <id>', 'external character id')
    .requiredOption('--name <name>', 'character name')
    .requiredOption('--corporation-id <id>', 'corporation id')
    .requiredOption('--corporation-ticker <ticker>', 'corporation ticker')
    .option('--alliance-id <id>', 'alliance id')
    .option('--alliance-ticker <ticker>', 'alliance ticker')
    .option('--user-id <uuid>', 'link the character to this user (the id create-user printed); without it, an existing link stays')
    .option('--no-user-id', 'unlink the character from its user')
    .action(
      async (o: {
        eveId: string;
        name: string;
        corporationId: string;
        corporationTicker: string;
        allianceId?: string;
        allianceTicker?: string;
        userId?: string | false;
      }) =>
        withAdmin(async (admin) =>
          print(
            await admin.upsertCharacter({
              eve_id: o.eveId,
              name: o.name,
              corporation_id: o.corporationId,
              corporation_ticker: o.corporationTicker,
              alliance_id: o.allianceId ?? null,
              alliance_ticker: o.allianceTicker ?? null,
              // As the admin API's user_id: a uuid links, null (--no-user-id) unlinks, absent keeps the link.
              ...(o.userId === false ? { user_id: null } : o.userId ? { user_id: o.userId } : {}),
            }),
          ),
        ),
    );
  admin
    .command('set-main-character')
    .description("set a user's main character (one of the user's characters)")
    .requiredOption('--user-id <uuid>', 'user id')
    .requiredOption('--eve-id <id>', 'character eve_id')
    .action(async (o: { userId: string; eveId: string }) => withAdmin(async (admin) => print(await admin.setMainCharacter(o.userId, o.eveId))));
}

/** Maps: create-map, list-maps. */
function addMapCommands(admin: Command): void {
  admin
    .command('create-map')
    .description('create a map; prints its first API key (shown once)')
    .requiredOption('--slug <slug>', 'unique slug (a-z, 0-9, -)')
    .requiredOption('--name <name>', 'map name')
    .requiredOption('--owner-eve-id <id>', 'owner character eve_id')
    .option('--description <text>', 'description')
    .action(async (o: { slug: string; name: string; ownerEveId: string; description?: string }) =>
      withAdmin(async (admin) => print(await admin.createMap({ slug: o.slug, name: o.name, owner_eve_id: o.ownerEveId, description: o.description ?? null }))),
    );
  admin
    .command('list-maps')
    .description('list maps')
    .action(async () => withAdmin(async (admin) => print(await admin.listMaps())));
}

/** Map keys: issue-key, list-keys, revoke-key. */
function addKeyCommands(admin: Command): void {
  admin
    .command('issue-key')
    .description('issue another API key for a map, bound to a character (shown once)')
    .requiredOption('--map <id|slug>', 'map')
    .requiredOption('--character-eve-id <id>', 'character the key is bound to')
    .option('--name <name>', 'label of the key')
    .addOption(
      new Option('--profile <profile>', 'compatibility profile of everything the key reads: spec, or reference for clients of the reference server').choices([
        'spec',
        'reference',
      ]),
    )
    .addOption(new Option('--stream-profile <profile>', 'former name of --profile (still accepted)').choices(['spec', 'reference']))
    .action(async (o: { map: string; characterEveId: string; name?: string; profile?: KeyProfile; streamProfile?: KeyProfile }) =>
      withAdmin(async (admin) =>
        print(await admin.issueKey(o.map, { character_eve_id: o.characterEveId, name: o.name ?? null, profile: o.profile, stream_profile: o.streamProfile })),
      ),
    );
  admin
    .command('list-keys')
    .description("list a map's keys (never the keys themselves)")
    .requiredOption('--map <id|slug>', 'map')
    .action(async (o: { map: string }) => withAdmin(async (admin) => print(await admin.listKeys(o.map))));
  admin
    .command('revoke-key')
    .description('revoke a map key')
    .requiredOption('--map <id|slug>', 'map')
    .requiredOption('--key-id <uuid>', 'key id (from list-keys)')
    .action(async (o: { map: string; keyId: string }) => withAdmin(async (admin) => print(await admin.revokeKey(o.map, o.keyId))));
}

/** Tracking: track. */
function addTrackingCommands(admin: Command): void {
  admin
    .command('track')
    .description('track (or --untrack) a character on a map')
    .requiredOption('--map <id|slug>', 'map')
    .requiredOption('--eve-id <id>', 'character eve_id')
    .option('--untrack', 'set tracked=false')
    .action(async (o: { map: string; eveId: string; untrack?: boolean }) =>
      withAdmin(async (admin) => print(await admin.setTracking(o.map, o.eveId, !o.untrack))),
    );
}
