import path from 'node:path';

/** The public static data source (the layout `sde import` reads, over HTTPS). */
export const PUBLIC_SDE_URL = 'https://wanderer-industries.github.io/wanderer-assets/sde-files';

/** The small sample shipped with mapintel (54 systems and their stargates), resolved from the package root, so it works from dist/ too. */
export const SAMPLE_SDE_DIR = path.resolve(import.meta.dirname, '../../assets/eve-static-sample');

/**
 * Where `sde import` and `demo` read static data from when --from is not given: the public source, never
 * a folder that happens to sit near the working directory (a local copy is named with --from, or
 * `make run FROM=DIR`). Offline, the demo falls back to SAMPLE_SDE_DIR and says so.
 */
export function defaultSdeSource(): string {
  return PUBLIC_SDE_URL;
}
