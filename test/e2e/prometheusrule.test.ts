/**
 * The chart's PrometheusRule, rendered by helm and checked with promtool (Debian's prometheus
 * package): valid rules, and the unit tests of fixtures/prometheusrule.promtool.yaml (each alert fires
 * on the series that should raise it, none on a healthy release).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { check } from './support/check.js';
import { NAMESPACE, RELEASE, helm } from './support/cluster.js';

check("5c. the chart's PrometheusRule passes promtool check rules and promtool test rules", async () => {
  const text = await helm([
    'template',
    RELEASE,
    'charts/mapintel',
    '-n',
    NAMESPACE,
    '--set',
    'prometheusRule.enabled=true',
    '--show-only',
    'templates/prometheusrule.yaml',
  ]);
  const rule = parseAllDocuments(text)[0]!.toJSON() as {
    kind: string;
    spec: { groups: { rules: { alert: string; annotations: { runbook_url?: string } }[] }[] };
  };
  expect(rule.kind).toBe('PrometheusRule');
  const alerts = rule.spec.groups.flatMap((g) => g.rules.map((r) => r.alert));
  // What an operator of mapintel needs to hear about (the list).
  for (const a of [
    'MapintelWebhookDeliveriesFailing',
    'MapintelWebhookSubscriptionsDisabled',
    'MapintelStreamCapsSaturated',
    'MapintelEventRelayLagging',
    'MapintelReplicasUnavailable',
    'MapintelTargetDown',
    'MapintelOperatorReconcileErrors',
    'MapintelOperatorQueueBacklog',
    'MapintelOperatorSubscriptionsNotReady',
    'MapintelOperatorWatchRestarts',
  ]) {
    expect(alerts).toContain(a);
  }
  // Every operator alert links its runbook: a section of docs/runbooks.md (GitHub's anchor of its heading).
  const anchors = new Set(
    [...readFileSync('docs/runbooks.md', 'utf8').matchAll(/^## (.+)$/gm)].map((m) =>
      m[1]!
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-'),
    ),
  );
  for (const r of rule.spec.groups.flatMap((g) => g.rules).filter((r) => r.alert.startsWith('MapintelOperator'))) {
    expect(r.annotations.runbook_url, r.alert).toMatch(/\/docs\/runbooks\.md#/);
    expect(anchors.has(r.annotations.runbook_url!.split('#')[1]!), r.alert).toBe(true);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'mapintel-promtool-'));
  try {
    writeFileSync(path.join(dir, 'rules.yaml'), JSON.stringify(rule.spec));
    copyFileSync('test/e2e/fixtures/prometheusrule.promtool.yaml', path.join(dir, 'tests.yaml'));
    execFileSync('promtool', ['check', 'rules', path.join(dir, 'rules.yaml')], { stdio: 'pipe' });
    const out = execFileSync('promtool', ['test', 'rules', path.join(dir, 'tests.yaml')], { encoding: 'utf8', stdio: 'pipe' });
    expect(out).toContain('SUCCESS');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
