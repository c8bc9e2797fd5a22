/**
 * The Node.js versions mapintel runs on. Checked by the command line's entry before anything else
 * loads: on an older Node the commands' modules fail with errors that say nothing about the version.
 */

/** The oldest Node.js that runs mapintel (the Makefile's bound; the project targets Node 24 LTS). */
export const MIN_NODE_VERSION = '22.17';

/** One line saying that this Node.js is too old and what to do, or undefined when it will do. */
export function nodeVersionProblem(version: string, execPath: string): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const [minMajor = 0, minMinor = 0] = MIN_NODE_VERSION.split('.').map(Number);
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return undefined;
  return (
    `error: mapintel needs Node.js ${MIN_NODE_VERSION} or newer (24 recommended), and ${execPath} is Node.js ${version.replace(/^v/, '')}; ` +
    '`make build` provisions Node 24 into .node/ when the system Node is older: run `.node/node_modules/.bin/node dist/cli.js …` or the make targets'
  );
}
