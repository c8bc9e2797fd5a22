#!/usr/bin/env node
// Provides the binaries a real node needs beyond scripts/kube-tools.mjs's control plane: kubelet,
// kube-scheduler and kube-proxy (built from the Go module proxy with the pinned module under
// tools/kube/node/) and the pod sandbox program (tools/kube/pause/). They land in a folder named
// by version outside the clone, like kube-tools' folder, so every clone and CI's fresh one reuse it.
//
//   node scripts/e2e/node-tools.mjs            build whatever is missing, print the folder
//   node scripts/e2e/node-tools.mjs --check    print what is present, build nothing (exit 1 if incomplete)
//   node scripts/e2e/node-tools.mjs --path X   print the cached path of binary X (kube-tools' too)
//
// Builds run one at a time (each peaks near 2 GB of RAM). The control-plane binaries are not built
// here: they come from scripts/kube-tools.mjs (`make kube-tools`), whose folder this one sits beside.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KUBE_VERSION, binaries as controlPlaneBinaries, buildGoBinary, projectCacheDir, versionFlags } from '../kube-tools.mjs';

export const nodeCacheDir = join(projectCacheDir, `node-${KUBE_VERSION}`);

/** Each binary: its path in the cache, the module folder under tools/kube/ and the package built. */
export const nodeBinaries = {
  kubelet: { module: 'node', pkg: 'k8s.io/kubernetes/cmd/kubelet', versioned: true },
  'kube-scheduler': { module: 'node', pkg: 'k8s.io/kubernetes/cmd/kube-scheduler', versioned: true },
  'kube-proxy': { module: 'node', pkg: 'k8s.io/kubernetes/cmd/kube-proxy', versioned: true },
  pause: { module: 'pause', pkg: '.', versioned: false },
};
export const nodeBinary = (name) => join(nodeCacheDir, name);

/** What each build took on this project's loaded two-core machine with warm module caches. */
const BUILD_MINUTES = {
  kubelet: 'about 30 min',
  'kube-scheduler': 'under a minute after the kubelet',
  'kube-proxy': 'about a minute after the kubelet',
  pause: 'seconds',
};

function log(message) {
  process.stderr.write(`node-tools: ${message}\n`);
}

function goBuild(name) {
  const { module, pkg, versioned } = nodeBinaries[name];
  buildGoBinary({
    name,
    out: nodeBinary(name),
    moduleDir: module,
    pkg,
    ldflags: versioned ? `-s -w ${versionFlags()}` : '-s -w',
    log,
    note: `into ${nodeCacheDir} (once per version: ${BUILD_MINUTES[name]})`,
  });
}

/** Builds every missing node binary, the small ones first; returns the cache folder. */
export function ensureNodeTools() {
  mkdirSync(nodeCacheDir, { recursive: true });
  for (const name of ['pause', 'kubelet', 'kube-scheduler', 'kube-proxy']) goBuild(name);
  writeFileSync(join(nodeCacheDir, 'VERSION'), `${KUBE_VERSION}\n`);
  return nodeCacheDir;
}

export function missingNodeTools() {
  return Object.keys(nodeBinaries).filter((name) => !existsSync(nodeBinary(name)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--path');
  if (at > 0) {
    const name = process.argv[at + 1];
    console.log(controlPlaneBinaries[name] ?? nodeBinary(name));
  } else if (process.argv.includes('--check')) {
    console.log(existsSync(nodeCacheDir) ? readdirSync(nodeCacheDir).join(' ') : '(no cache)');
    const absent = missingNodeTools();
    if (absent.length > 0) {
      console.error(`missing: ${absent.join(' ')}`);
      process.exit(1);
    }
  } else {
    try {
      console.log(ensureNodeTools());
    } catch (err) {
      console.error(`node-tools: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    }
  }
}
