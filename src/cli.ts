#!/usr/bin/env node
/**
 * The command line's entry (`node dist/cli.js`, `mapintel` in the image). It checks the Node.js version
 * before anything else loads, then loads the commands (cli/program.ts): on an older Node their modules
 * would fail first, with an error that says nothing about the version.
 */
import { nodeVersionProblem } from './cli/node-version.js';

const problem = nodeVersionProblem(process.versions.node, process.execPath);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
await import('./cli/program.js');
