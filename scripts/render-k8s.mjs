#!/usr/bin/env node
// Renders k8s/base/mapintel.yaml from the chart (default values but the uninstall hook, release
// "mapintel" in namespace "mapintel", CRD included), so kubectl users get the same objects as Helm users.
//   node scripts/render-k8s.mjs           write the file
//   node scripts/render-k8s.mjs --stdout  print what would be written (the drift test compares it)
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binaries } from './kube-tools.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const header = '# Rendered from charts/mapintel by `make k8s` (node scripts/render-k8s.mjs); do not edit by hand.\n';

export function renderBase(helm = binaries.helm) {
  // Without the pre-delete hook: in plain manifests it would be an ordinary Job, run at every
  // `kubectl apply`, releasing every finalizer. kubectl users run `mapintel release-finalizers` by hand.
  // Without the `helm test` hook either: a test Pod has no place among applied manifests.
  const args = ['template', 'mapintel', join(root, 'charts', 'mapintel'), '--namespace', 'mapintel', '--include-crds', '--skip-tests'];
  const out = execFileSync(helm, [...args, '--set', 'operator.releaseFinalizersOnUninstall=false'], {
    encoding: 'utf8',
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(root, '.cache', 'helm'),
      HELM_CONFIG_HOME: join(root, '.cache', 'helm'),
      HELM_DATA_HOME: join(root, '.cache', 'helm'),
    },
  });
  return header + out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = renderBase();
  if (process.argv.includes('--stdout')) process.stdout.write(text);
  else writeFileSync(join(root, 'k8s', 'base', 'mapintel.yaml'), text);
}
