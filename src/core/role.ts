import type { Core } from './core.js';
import type { ReadinessCheck } from './readiness.js';

/** What a started role hands back to the process. */
export interface RoleHandle {
  /** Checks that /readyz of the ops port runs for this role (besides the core's). */
  readiness: ReadinessCheck[];
  /** Stops taking new work (closes listeners); in-flight work goes on. */
  stopAccepting(): Promise<void>;
  /** Finishes or abandons in-flight work within the shutdown window and releases what the role started. */
  stop(): Promise<void>;
}

/**
 * A role: a module that starts what it needs from the core. Once started, it logs one line that says
 * what it does with this process's settings (`stream role started: serving …`), or which setting leaves
 * it with nothing to do and what answers instead, so a role switched off never looks like it works.
 */
export interface Role<H extends RoleHandle = RoleHandle> {
  name: string;
  /** One line for `serve --help`. */
  summary: string;
  start(core: Core): Promise<H>;
}
