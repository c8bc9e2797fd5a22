import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { MIN_NODE_VERSION, nodeVersionProblem } from '../../src/cli/node-version.js';

describe('nodeVersionProblem', () => {
  it('accepts Node.js 22.17 and newer', () => {
    for (const v of ['22.17.0', '22.21.1', '23.0.0', '24.0.0', '24.21.0', 'v24.5.0', '25.1.0']) expect(nodeVersionProblem(v, '/x/node'), v).toBeUndefined();
  });

  it('refuses older ones in one line naming the version needed, the one found and that make provisions Node 24', () => {
    for (const v of ['22.16.0', '22.0.0', '20.19.2', '18.20.4', 'v16.0.0']) {
      const line = nodeVersionProblem(v, '/usr/bin/node');
      expect(line, v).toContain('needs Node.js 22.17 or newer');
      expect(line).toContain(`/usr/bin/node is Node.js ${v.replace(/^v/, '')}`);
      expect(line).toContain('`make build` provisions Node 24 into .node/');
      expect(line).not.toContain('\n');
    }
  });

  it('checks the bound package.json declares in engines, and the Makefile provisions Node 24 below it', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${MIN_NODE_VERSION}.0`);
    const [major, minor] = MIN_NODE_VERSION.split('.');
    expect(readFileSync('Makefile', 'utf8')).toContain(`a>${major}||(a===${major}&&b>=${minor})`);
  });
});
