#!/usr/bin/env node
// Rewrites relative imports that name a module at its old path to its new one, after modules moved:
//
//   node scripts/rewrite-moved-imports.mjs [scripts/module-moves.txt] [files or folders…]
//
// The list has one move a line, `old/path.ts new/path.ts` (lines starting with # are comments). Every
// quoted relative path in the given .ts/.mjs/.js files (default: src, test, bench, scripts) that
// resolves to an old path (`.js` naming the `.ts` source) is rewritten relative to the file; nothing
// else changes. Useful on a branch written before the moves, once it is merged with them.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [listFile = 'scripts/module-moves.txt', ...roots] = process.argv.slice(2);
const moves = new Map(
  readFileSync(listFile, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(/\s+/)),
);

function files(p) {
  if (statSync(p).isDirectory()) {
    return readdirSync(p, { withFileTypes: true })
      .filter((e) => e.name !== 'node_modules' && e.name !== 'generated')
      .flatMap((e) => files(path.join(p, e.name)));
  }
  return /\.(ts|mts|mjs|js)$/.test(p) ? [p] : [];
}

let changed = 0;
for (const file of (roots.length ? roots : ['src', 'test', 'bench', 'scripts']).flatMap(files)) {
  const text = readFileSync(file, 'utf8');
  const out = text.replace(/(['"])(\.\.?\/[^'"\n]*)\1/g, (whole, quote, spec) => {
    const target = path.normalize(path.join(path.dirname(file), spec));
    const asTs = target.replace(/\.js$/, '.ts');
    const moved = moves.get(asTs) ?? moves.get(target);
    if (!moved) return whole;
    let rel = path.relative(path.dirname(file), moved);
    if (!rel.startsWith('.')) rel = `./${rel}`;
    if (moves.has(asTs) && target !== asTs) rel = rel.replace(/\.ts$/, '.js');
    return `${quote}${rel}${quote}`;
  });
  if (out !== text) {
    writeFileSync(file, out);
    changed++;
    console.log(file);
  }
}
console.log(`${changed} files rewritten`);
