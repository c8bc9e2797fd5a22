/** SQL fragments shared by the hand-written read queries (hot paths skip hydration). */

/** ISO 8601 UTC with microseconds, as the spec's map and ACL timestamps. */
export function tsMicro(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** ISO 8601 UTC with seconds precision (kill_time, activity timestamp). */
export function tsSeconds(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const INT32_MAX = 2_147_483_647;
