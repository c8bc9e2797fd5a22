// Loaded with `node --import` (through NODE_OPTIONS): appends the name of every npm package the process
// loads (ESM or CommonJS), once each, to the file named by RECORD_PACKAGES_TO.
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.RECORD_PACKAGES_TO;
const seen = new Set();
if (file) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const result = nextResolve(specifier, context);
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(result.url);
      if (m && !seen.has(m[1])) {
        seen.add(m[1]);
        appendFileSync(file, `${m[1]}\n`);
      }
      return result;
    },
  });
}
