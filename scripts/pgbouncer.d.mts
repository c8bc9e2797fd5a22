export const PGBOUNCER: string;
export function pgbouncerInstalled(): boolean;
export interface Pgbouncer {
  url: string;
  port: number;
  log(): string;
  stop(): Promise<void>;
}
export function startPgbouncer(target?: string, extra?: Record<string, string | number>): Promise<Pgbouncer>;
