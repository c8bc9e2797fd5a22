#!/usr/bin/env node
// Runs vitest and ends with the line CI reads: `N passed, N failed[, N skipped]`.
//
//   node scripts/run-tests.mjs [--tier NAME] [vitest arguments...]
//
// The counts also go to .test-results/<tier>.counts.json, which scripts/test-summary.mjs adds up
// when several tiers run one after the other (.ci/run).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const argv = process.argv.slice(2);
let tier = 'all';
const at = argv.indexOf('--tier');
if (at >= 0) {
  tier = argv[at + 1] ?? tier;
  argv.splice(at, 2);
}

const out = `.test-results/${tier}.json`;
const countsFile = `.test-results/${tier}.counts.json`;
mkdirSync('.test-results', { recursive: true });
rmSync(out, { force: true });
rmSync(countsFile, { force: true });
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...argv];
// CI logs are read as text: no colour codes there.
const colour = process.env.CI ? { FORCE_COLOR: '0', NO_COLOR: '1' } : {};
const started = Date.now();
const run = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, ...colour } });

let passed = 0;
let failed;
let skipped = 0;
let skippedFiles = [];
if (existsSync(out)) {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  passed = r.numPassedTests ?? 0;
  failed = (r.numFailedTests ?? 0) + (r.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0).length;
  skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  skippedFiles = (r.testResults ?? [])
    .filter((f) => (f.assertionResults ?? []).some((a) => a.status === 'pending' || a.status === 'skipped' || a.status === 'todo'))
    .map((f) => f.name.replace(`${process.cwd()}/`, ''));
} else {
  failed = 1;
}
if (run.status !== 0 && failed === 0) failed = 1;
writeFileSync(countsFile, JSON.stringify({ tier, passed, failed, skipped, seconds: Math.round((Date.now() - started) / 1000) }) + '\n');
if (skipped) {
  // Skipped is never passed: name the files, loudly (the cluster tests skip when the Kubernetes binaries are missing).
  console.log(`!!!! ${skipped} tests SKIPPED in: ${skippedFiles.join(', ')}`);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
