import type { Config } from '../common/config.js';
import type { Logger } from '../common/log.js';
import { buildCore, type Core } from '../core/core.js';
import type { Role, RoleHandle } from '../core/role.js';
import { DEFAULT_ROLES } from '../roles/registry.js';
import { startOpsServer, type OpsServer } from '../ops/ops.server.js';
import type { ApiHandle } from '../api/api.role.js';
import { ROLE_INFO } from '../core/role-catalog.js';
import { closeWithin } from '../core/shutdown.js';

/** A running `mapintel serve`: the core, its roles and the ops port. */
export interface Serving {
  core: Core;
  /** Started roles by name, in start order. */
  roles: Map<string, RoleHandle>;
  /** The api role's handle, when it runs. */
  api: ApiHandle | undefined;
  ops: OpsServer | undefined;
  /** Stops accepting, stops the roles (reverse start order), closes the ops port, then the core. */
  shutdown(): Promise<void>;
}

export interface ServeOptions {
  /** Roles to run (default: every role but the operator). */
  roles?: readonly Role[];
  logger?: Logger;
  /** A core built already (the demo seeds through it before serving). */
  core?: Core;
}

/** Builds the core, opens the ops port and starts each role in order. */
export async function serve(config: Config, opts: ServeOptions = {}): Promise<Serving> {
  const core = opts.core ?? (await buildCore(config, { migrations: 'apply', logger: opts.logger }));
  const roles = new Map<string, RoleHandle>();
  let ops: OpsServer | undefined;
  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= (async () => {
      const log = core.log;
      ops?.drain();
      if (config.shutdownDelayMs > 0) {
        // Not ready, still serving: the endpoints drop this process before it stops accepting.
        core.publicHttp.closeConnectionsAfterResponse();
        log.info({ delay_ms: config.shutdownDelayMs }, 'shutting down: serving on while the endpoints drop this process');
        await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
      }
      const closeBy = Date.now() + config.shutdownTimeoutMs;
      const started = [...roles.values()].reverse();
      for (const r of started) await r.stopAccepting().catch((err: Error) => log.warn({ err: { message: err.message } }, 'stop accepting failed'));
      // A database that stopped answering must not hold the exit: what is left of the window bounds the rest.
      await closeWithin(
        {
          log,
          async close() {
            for (const r of started) await r.stop().catch((err: Error) => log.warn({ err: { message: err.message } }, 'role stop failed'));
            await ops?.close();
            await core.close();
          },
        },
        closeBy,
      );
      log.info('stopped');
    })();
    return stopping;
  };
  try {
    ops = await startOpsServer({
      host: config.opsHost,
      port: config.opsPort,
      log: core.log,
      metrics: core.metrics,
      roles: () => [...roles.keys()],
      readiness: () => [...core.readiness, ...[...roles.values()].flatMap((r) => r.readiness)],
    });
    for (const role of opts.roles ?? DEFAULT_ROLES) {
      // Each role logs its own start-up line: what it does with these settings, or what is switched off.
      roles.set(role.name, await role.start(core));
    }
    ops.started();
  } catch (err) {
    await shutdown();
    throw err;
  }
  return { core, roles, api: roles.get(ROLE_INFO.api.name) as ApiHandle | undefined, ops, shutdown };
}

/**
 * SIGTERM/SIGINT: drain and exit. A second signal exits at once. Installed before the roles start (pass
 * serve()'s promise): a signal during start-up waits for it, then drains, instead of killing the process
 * half-started; a start-up that fails is reported and exited by its caller.
 */
export function handleSignals(serving: Serving | Promise<Serving>): void {
  let signalled = false;
  const onSignal = (signal: string) => {
    if (signalled) process.exit(1);
    signalled = true;
    Promise.resolve(serving).then(
      (s) => {
        s.core.log.info({ signal }, 'signal received');
        s.shutdown().then(
          () => process.exit(0),
          (err: unknown) => {
            s.core.log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      },
      () => undefined,
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

/** Unhandled rejections and exceptions: log and exit non-zero (the orchestrator restarts the process). */
export function exitOnCrash(log: Logger): void {
  const crash = (kind: string) => (err: unknown) => {
    log.fatal({ err }, kind);
    process.exit(70);
  };
  process.on('unhandledRejection', crash('unhandled promise rejection'));
  process.on('uncaughtException', crash('uncaught exception'));
}
