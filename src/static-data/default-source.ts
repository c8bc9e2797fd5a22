import { existsSync } from 'node:fs';
import path from 'node:path';

/** The public static data source (the layout `sde import` reads, over HTTPS). */
export const PUBLIC_SDE_URL = 'https://wanderer-industries.github.io/wanderer-assets/sde-files';

/** The small sample shipped with mapintel (20 systems), resolved from the package root, so it works from dist/ too. */
export const SAMPLE_SDE_DIR = path.resolve(import.meta.dirname, '../../assets/eve-static-sample');

/** Where `sde import` and `demo` read static data from when --from is not given. */
export function defaultSdeSource(cwd = process.cwd()): string {
  const local = path.resolve(cwd, '../shared/data/eve-static');
  return existsSync(local) ? local : PUBLIC_SDE_URL;
}
