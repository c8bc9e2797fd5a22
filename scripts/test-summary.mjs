#!/usr/bin/env node
// Adds up the counts the tiers' runs left in .test-results/<tier>.counts.json and prints one line per
// tier, then the total as CI reads it: `N passed, N failed[, N skipped]`.
//
//   node scripts/test-summary.mjs fast cluster
//
// A tier named here without a counts file (its run never got to the tests) counts as one failure.
import { existsSync, readFileSync } from 'node:fs';

const tiers = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
for (const tier of tiers) {
  const file = `.test-results/${tier}.counts.json`;
  if (!existsSync(file)) {
    console.log(`  ${tier.padEnd(8)} did not run (no ${file})`);
    failed += 1;
    continue;
  }
  const c = JSON.parse(readFileSync(file, 'utf8'));
  console.log(`  ${tier.padEnd(8)} ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''} in ${c.seconds} s`);
  passed += c.passed;
  failed += c.failed;
  skipped += c.skipped;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
