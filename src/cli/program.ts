/** The commands of `mapintel` (`node dist/cli.js`), loaded by src/cli.ts once the Node.js version is known to do. */
import { Command, Option } from 'commander';
import { loadDemoConfig, type Config } from '../common/config.js';
import { exitWithFailure } from './errors.js';
import { buildCore } from '../core/core.js';
import { openDatabase } from '../core/database.js';
import { exitOnCrash, handleSignals, serve } from './serve.js';
import { migrate } from '../db/orm.js';
import { defaultSdeSource, PUBLIC_SDE_URL, SAMPLE_SDE_DIR } from '../static-data/default-source.js';
import { createLogger } from '../common/log.js';
import { createMetrics } from '../common/metrics.js';
import { ROLES, selectRoles } from '../roles/registry.js';
import { ROLE_INFO } from '../core/role-catalog.js';
import { dbOf } from '../db/db.js';
import { addAdminCommands } from './admin.js';
import { commandLogger, config, FIRST_SETTINGS, print, withDatabase } from './support.js';
import { assertPortsFree } from '../common/listen-address.js';

/** The ports a process with these roles listens on: OPS_PORT always, PORT for the public roles. */
function portsOf(cfg: Config, roles: readonly string[]) {
  const ports = [{ name: 'OPS_PORT', host: cfg.opsHost, port: cfg.opsPort }];
  if (roles.includes(ROLE_INFO.api.name) || roles.includes(ROLE_INFO.stream.name)) ports.unshift({ name: 'PORT', host: cfg.host, port: cfg.port });
  return ports;
}

const program = new Command();
program
  .name('mapintel')
  .description('Map Intelligence Service: REST API, static data, administration.\nSettings come from the environment: see docs/configuration.md.')
  .showHelpAfterError();

program
  .command('serve')
  .description(
    'run the roles of this process (default: every role but the operator); migrates first; without DATABASE_URL an embedded PostgreSQL runs under DATA_DIR',
  )
  .option('--roles <roles>', `comma list of roles to run: ${ROLES.map((r) => r.name).join(', ')} (default: all but operator; "all" adds it)`)
  .addHelpText(
    'after',
    `\nRoles:\n${ROLES.map((r) => `  ${r.name.padEnd(8)} ${r.summary}`).join('\n')}\nEvery process serves /healthz, /readyz and /metrics on OPS_PORT.\n${FIRST_SETTINGS}`,
  )
  .action(async (opts: { roles?: string }) => {
    const roles = selectRoles(opts.roles);
    const cfg = config();
    const log = createLogger(cfg.logLevel);
    exitOnCrash(log);
    await assertPortsFree(
      portsOf(
        cfg,
        roles.map((r) => r.name),
      ),
    );
    const serving = serve(cfg, { roles, logger: log });
    handleSignals(serving);
    await serving;
  });

program
  .command('migrate')
  .description('apply pending database migrations and exit')
  .action(async () => {
    const cfg = config();
    const db = await openDatabase(cfg, commandLogger(cfg), createMetrics({ defaultMetrics: false }));
    try {
      const applied = await migrate(db.orm);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    } finally {
      await db.close();
    }
  });

program
  .command('release-finalizers')
  .description(
    'before helm uninstall (the chart runs it as a pre-delete hook): stop the operator reconciling and remove the finalizer of every WebhookSubscription, so deleting them never hangs',
  )
  .action(async () => {
    const { releaseFinalizers } = await import('../operator/release.js');
    const cfg = config();
    await releaseFinalizers({
      kubeconfig: cfg.kubeconfig,
      leaseNamespace: cfg.operatorNamespace,
      leaseName: cfg.operatorLeaseName,
      leaseDurationSeconds: cfg.operatorLeaseDurationSeconds,
      namespaces: cfg.operatorWatchNamespaces,
      out: (line) => process.stdout.write(`${line}\n`),
    });
  });

const sde = program.command('sde').description('static solar system data');
sde
  .command('import')
  .description('import static data from a folder (sde/ and wormholes/) or the public base URL, idempotently, in one transaction')
  .addOption(new Option('--from <dir|url>', 'folder or URL of the static data').default(undefined, 'the public URL, ' + PUBLIC_SDE_URL))
  .action(async (opts: { from?: string }) => {
    const from = opts.from ?? defaultSdeSource();
    const { importStaticData } = await import('../static-data/sde-importer.js');
    await withDatabase(async (core) => {
      const result = await importStaticData(dbOf(core.db.orm), from, { progress: (m) => process.stderr.write(`${m}\n`) });
      print(result);
    });
  });

addAdminCommands(program);

program
  .command('demo')
  .description('import static data when missing, seed the demo map, print its API key, the admin token and the explorer address, and serve')
  .option('--from <dir|url>', 'static data source when none is imported yet (default: the public URL, with the shipped sample offline)')
  .option('--no-serve', 'seed and print, then exit')
  .addHelpText('after', FIRST_SETTINGS)
  .action(async (opts: { from?: string; serve: boolean }) => {
    const cfg = loadDemoConfig();
    const log = createLogger(cfg.logLevel);
    exitOnCrash(log);
    // Before the database starts and a key is issued: a second run while one serves says so at once.
    if (opts.serve) await assertPortsFree(portsOf(cfg, [ROLE_INFO.api.name]));
    const core = await buildCore(cfg, { migrations: 'apply', logger: log });
    try {
      // Loaded by the commands that use them: `serve`, `--help` and the rest start without them.
      const [{ createApiServices }, { importStaticData }, { seedDemo }] = await Promise.all([
        import('../api/services.js'),
        import('../static-data/sde-importer.js'),
        import('./demo.js'),
      ]);
      const services = createApiServices(core);
      if ((await services.staticInfo.count()) === 0) {
        const from = opts.from ?? defaultSdeSource();
        process.stderr.write(`importing static data from ${from}\n`);
        try {
          await importStaticData(dbOf(core.db.orm), from, { progress: (m) => process.stderr.write(`  ${m}\n`) });
        } catch (err) {
          // Offline first run: the demo still starts, on the sample; a source the user named must work.
          if (opts.from) throw err;
          const cause = err instanceof Error ? err.message.split('\n')[0] : String(err);
          process.stderr.write(
            `static data could not be read from ${from} (${cause}); using the small sample shipped with mapintel (54 systems). Import the full set later with: node dist/cli.js sde import --from DIR|URL\n`,
          );
          await importStaticData(dbOf(core.db.orm), SAMPLE_SDE_DIR, {});
        }
      }
      const demo = await seedDemo({ orm: core.db.orm, ...services });
      const base = cfg.publicBaseUrl;
      process.stdout.write(
        [
          '',
          `mapintel demo map ${demo.created ? 'created' : 'already present (new key issued)'}`,
          `  map:            ${demo.slug} (${demo.mapId})`,
          `  map API key:    ${demo.apiKey}`,
          `  ACL id:         ${demo.aclId}`,
          `  ACL API key:    ${demo.aclKey}`,
          `  admin token:    ${core.secrets.adminToken ?? '(SERVICE_ADMIN_TOKEN not set: admin API disabled)'}`,
          `  API explorer:   ${base}/swaggerui`,
          `  try:            curl -H "Authorization: Bearer ${demo.apiKey}" "${base}/api/map/systems?slug=${demo.slug}"`,
          ...(cfg.sseEnabled
            ? [
                `  live events:    curl -sN -H "Authorization: Bearer ${demo.apiKey}" "${base}/api/maps/${demo.slug}/events/stream"`,
                `  event console:  ${base}/console (paste the map API key: the live map and its events)`,
              ]
            : []),
          ...(cfg.webhooksEnabled
            ? [
                `  webhooks:       on; subscribe with POST ${base}/api/maps/${demo.slug}/webhooks, then switch them on with PUT …/webhooks/toggle (README: Webhooks)`,
                ...(cfg.webhooksAllowInsecureUrls
                  ? [
                      '                  http receivers and those on this machine or a private network are accepted (a demo default; SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS=false refuses them)',
                    ]
                  : []),
              ]
            : []),
          '',
        ].join('\n') + '\n',
      );
    } catch (err) {
      await core.close();
      throw err;
    }
    if (!opts.serve) {
      await core.close();
      return;
    }
    const serving = serve(cfg, { core });
    handleSignals(serving);
    await serving;
  });

/**
 * commander checks required options before unknown ones, so `admin list-keys --mpa demo` answered that
 * --map was missing instead of naming --mpa. Required options are checked here instead, once commander
 * has refused unknown options (naming them, with its "Did you mean …?").
 */
function checkRequiredOptionsAfterUnknownOnes(root: Command): void {
  const required = new Map<Command, Option[]>();
  const collect = (cmd: Command) => {
    const options = cmd.options.filter((o) => o.mandatory);
    for (const o of options) o.makeOptionMandatory(false);
    if (options.length) required.set(cmd, options);
    cmd.commands.forEach(collect);
  };
  collect(root);
  root.hook('preAction', (_root, command) => {
    for (const o of required.get(command) ?? []) {
      if (command.getOptionValue(o.attributeName()) === undefined) {
        command.error(`error: required option '${o.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
      }
    }
  });
}
checkRequiredOptionsAfterUnknownOnes(program);

let settled = false;
// A command whose work is left waiting on something that can never happen would otherwise end with
// status 0 and no word when the event loop runs dry.
process.on('beforeExit', () => {
  if (!settled) exitWithFailure(new Error('the command stopped before it finished (a dependency went away without answering)'));
});
program
  .parseAsync(process.argv)
  .then(() => {
    settled = true;
  })
  .catch((err: unknown) => {
    settled = true;
    exitWithFailure(err);
  });
