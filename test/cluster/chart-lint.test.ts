/**
 * chart-testing's `ct lint` on charts/mapintel, as a chart repository's CI runs it: yamllint with ct's
 * rules on Chart.yaml, values.yaml and ci/*-values.yaml, `helm lint` with each ci/ values file, the
 * version and the templates. Offline, so three of its checks are off or done here instead:
 *   --validate-chart-schema=false  ct runs yamale (Python) for it; the same schema (ct's chart_schema.yaml,
 *                                  copied to tools/kube/chart-testing/) is checked below by test/support/yamale.ts;
 *   --validate-maintainers=false   Chart.yaml lists no maintainers, and ct would check each name as a
 *                                  GitHub account over the network;
 *   --check-version-increment=false  no git remote to compare with (ct also turns it off for --charts).
 * ct comes from `node scripts/chart-testing.mjs` (make test-cluster builds it once), yamllint from
 * Debian's package, helm from scripts/kube-tools.mjs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ctBinary, ctConfigDir } from '../../scripts/chart-testing.mjs';
import { KUBE_BIN, kubeUnavailable } from '../support/kube.js';
import { loadSchema, validate } from '../support/yamale.js';

const CHART = 'charts/mapintel';
const schema = loadSchema(readFileSync(path.join(ctConfigDir, 'chart_schema.yaml'), 'utf8'));
// PyYAML, which yamale reads with, speaks YAML 1.1 (`yes` and `on` are booleans there).
const chartYaml = () => parseYaml(readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8'), { version: '1.1' }) as Record<string, unknown>;

describe("Chart.yaml against chart-testing's schema (yamale, strict)", () => {
  it('fits: every field of the type the schema names, no field it does not know', () => {
    expect(validate(schema, chartYaml())).toEqual([]);
  });

  it('the check refuses what yamale refuses: a missing version, an unknown field, a non-string annotation, a maintainer without a name', () => {
    const { version: _version, ...noVersion } = chartYaml();
    expect(validate(schema, noVersion)).toEqual(['version: Required field missing']);
    expect(validate(schema, { ...chartYaml(), maintainer: 'x' })).toEqual(['maintainer: Unexpected element']);
    const annotations = { ...(chartYaml().annotations as object), 'artifacthub.io/prerelease': true };
    expect(validate(schema, { ...chartYaml(), annotations })).toEqual(["annotations.artifacthub.io/prerelease: 'true' is not a str"]);
    expect(validate(schema, { ...chartYaml(), maintainers: [{ email: 'a@example.com' }] })).toEqual(['maintainers.0.name: Required field missing']);
    expect(validate(schema, { ...chartYaml(), appVersion: 1.2 })).toEqual([]);
  });
});

const helmMissing = kubeUnavailable(['helm']);
describe.skipIf(helmMissing)('ct lint', () => {
  it('passes on charts/mapintel with its ci/ values', () => {
    // Not a skip: a missing ct or yamllint must fail the tier, naming what to install.
    expect(existsSync(ctBinary), `${ctBinary} missing: run \`node scripts/chart-testing.mjs\``).toBe(true);
    expect(spawnSync('yamllint', ['--version']).status, 'yamllint missing: apt-get install -y yamllint').toBe(0);
    const args = ['lint', '--charts', CHART, '--validate-chart-schema=false', '--validate-maintainers=false', '--check-version-increment=false'];
    const r = spawnSync(ctBinary, args, {
      encoding: 'utf8',
      env: { ...process.env, CT_CONFIG_DIR: ctConfigDir, PATH: `${KUBE_BIN}:${process.env.PATH}` },
      timeout: 120_000,
    });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toContain(`Linting chart with values file "${CHART}/ci/full-values.yaml"`);
    expect(out).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    expect(out).toContain('All charts linted successfully');
  }, 180_000);
});
