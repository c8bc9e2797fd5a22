import type { Core } from '../core/core.js';
import type { Role, RoleHandle } from '../roles/role.js';

/**
 * The worker role: webhook delivery. This build has no deliveries to make yet; the role runs with
 * its probes and metrics on the ops port so deployments and their probes can be set up now.
 */
export const workerRole: Role = {
  name: 'worker',
  summary: 'webhook delivery workers (probes and metrics on OPS_PORT)',
  async start(core: Core): Promise<RoleHandle> {
    core.log.info({ role: 'worker' }, 'worker role started');
    return {
      readiness: [],
      async stopAccepting() {},
      async stop() {},
    };
  },
};
