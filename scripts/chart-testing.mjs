#!/usr/bin/env node
// Provides chart-testing's `ct` for the cluster tier's `ct lint` of charts/mapintel
// (test/cluster/chart-lint.test.ts): built from the Go module proxy with the pinned module under
// tools/kube/chart-testing/, into a folder named by version beside kube-tools' (~/.cache/mapintel), once.
// `ct lint` also runs yamllint (Debian's package `yamllint`; .ci/run installs it) and helm (kube-tools').
// Its configuration (yamllint's rules, the Chart.yaml schema) is ct's own, copied into
// tools/kube/chart-testing/ and found there through CT_CONFIG_DIR.
//
//   node scripts/chart-testing.mjs            build ct if missing, print its path
//   node scripts/chart-testing.mjs --check    print its path, build nothing (exit 1 if missing)
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGoBinary, projectCacheDir } from './kube-tools.mjs';

export const CT_VERSION = 'v3.14.0';
export const ctBinary = join(projectCacheDir, `chart-testing-${CT_VERSION}`, 'ct');
/** CT_CONFIG_DIR: lintconf.yaml and chart_schema.yaml as ct ships them. */
export const ctConfigDir = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'tools', 'kube', 'chart-testing');

export function ensureChartTesting() {
  mkdirSync(dirname(ctBinary), { recursive: true });
  buildGoBinary({
    name: 'ct',
    out: ctBinary,
    moduleDir: 'chart-testing',
    pkg: 'github.com/helm/chart-testing/v3/ct',
    ldflags: `-X github.com/helm/chart-testing/v3/ct/cmd.Version=${CT_VERSION}`,
    note: `${CT_VERSION} from the Go module proxy into ${dirname(ctBinary)} (once per version: about 2 min on two cores)`,
    log: (message) => process.stderr.write(`chart-testing: ${message}\n`),
  });
  return ctBinary;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    console.log(ctBinary);
    if (!existsSync(ctBinary)) process.exit(1);
  } else {
    try {
      console.log(ensureChartTesting());
    } catch (err) {
      console.error(`chart-testing: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    }
  }
}
