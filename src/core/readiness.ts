import { passesWithin } from '../common/deadline.js';

/** One readiness check of a process: the core's (database, Redis) or a role's. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}

/** How long one check may take before it counts as failed: /readyz must answer within a second. */
export const READINESS_DEADLINE_MS = 800;

/** Runs every check at once, each bounded by the deadline; a check that throws or is late is false. */
export async function runReadiness(checks: readonly ReadinessCheck[], deadlineMs = READINESS_DEADLINE_MS): Promise<Record<string, boolean>> {
  const results = await Promise.all(
    checks.map(
      async (c) =>
        [
          c.name,
          await passesWithin(
            c.check().then((ok) => ok || Promise.reject(new Error('not ready'))),
            deadlineMs,
          ),
        ] as const,
    ),
  );
  return Object.fromEntries(results);
}
