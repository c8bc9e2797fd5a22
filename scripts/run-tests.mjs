#!/usr/bin/env node
// Runs vitest and ends with the line CI reads: `N passed, N failed[, N skipped]`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const out = '.test-results/vitest.json';
mkdirSync('.test-results', { recursive: true });
rmSync(out, { force: true });
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR } });

let passed = 0;
let failed;
let skipped = 0;
if (existsSync(out)) {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  passed = r.numPassedTests ?? 0;
  failed = (r.numFailedTests ?? 0) + (r.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0).length;
  skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
} else {
  failed = 1;
}
if (run.status !== 0 && failed === 0) failed = 1;
if (skipped && existsSync(out)) {
  // Skipped is never passed: name the files, loudly (the cluster tests skip when the Kubernetes binaries are missing).
  const r = JSON.parse(readFileSync(out, 'utf8'));
  const files = (r.testResults ?? []).filter((f) =>
    (f.assertionResults ?? []).some((a) => a.status === 'pending' || a.status === 'skipped' || a.status === 'todo'),
  );
  console.log(`!!!! ${skipped} tests SKIPPED in: ${files.map((f) => f.name.replace(`${process.cwd()}/`, '')).join(', ')}`);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
