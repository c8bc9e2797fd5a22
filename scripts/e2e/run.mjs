#!/usr/bin/env node
// `make test-e2e`: the image and the chart on a real single-node Kubernetes cluster on this machine.
//
//  1. the Kubernetes binaries (built once per version, cached outside the clone) and the host packages;
//  2. the image, from the Dockerfile, on a local Debian + Node 24 base (scripts/e2e/image.sh), and the
//     image and chart of the previous release (E2E_PREVIOUS_REF, below; `none` skips them) for the
//     upgrade and rollback check;
//  3. a snapshot of the host (links, routes, nft, iptables, mounts, cgroups, sysctls, paths);
//  4. the cluster (scripts/e2e/cluster/up.sh), a fresh PostgreSQL database for the release;
//  5. the checks: vitest's `e2e` project (test/e2e/), against the cluster through kubectl, helm and Services;
//  6. the teardown (down.sh, always), the database dropped, the release's Redis keys deleted;
//  7. a second snapshot: any difference from the first is a failed check.
// Ends with the line CI reads, `N passed, N failed`; the counts go to .test-results/e2e.counts.json.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectCacheDir } from '../kube-tools.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cluster = join(root, 'scripts/e2e/cluster');
const runDir = process.env.E2E_RUN_DIR || '/tmp/mapintel-e2e';
const database = 'mapintel_e2e';
const redisPrefix = 'mapintel-e2e:';
const started = Date.now();
const steps = [];
/** Each check's duration, written by test/e2e/support/cluster.ts. */
const CHECKS = '.test-results/e2e-checks.tsv';
process.chdir(root);
mkdirSync('.test-results', { recursive: true });

function step(name, fn) {
  const t0 = Date.now();
  process.stderr.write(`e2e: ${name}…\n`);
  try {
    return fn();
  } finally {
    steps.push([name, (Date.now() - t0) / 1000]);
  }
}
const sh = (file, args = [], opts = {}) => spawnSync('bash', [file, ...args], { stdio: 'inherit', env: { ...process.env, E2E_RUN_DIR: runDir }, ...opts });
const psql = (sql) =>
  execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-c', sql], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });

/** Waits while another process builds the same binaries (one `make kube-tools` at a time). */
function waitForOtherBuild(pattern) {
  for (;;) {
    const r = spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' });
    const others = (r.stdout || '').split('\n').filter((p) => p && Number(p) !== process.pid);
    if (others.length === 0) return;
    process.stderr.write(`e2e: waiting for a running ${pattern} (pids ${others.join(' ')})\n`);
    spawnSync('sleep', ['20']);
  }
}

function finish(passed, failed, extra = []) {
  const previous = (() => {
    try {
      return JSON.parse(readFileSync('.test-results/e2e.counts.json', 'utf8'));
    } catch {
      return { passed: 0, failed: 0, skipped: 0 };
    }
  })();
  const counts = {
    tier: 'e2e',
    passed: previous.passed + passed,
    failed: previous.failed + failed,
    skipped: previous.skipped ?? 0,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  writeFileSync('.test-results/e2e.counts.json', `${JSON.stringify(counts)}\n`);
  console.log('\ne2e steps (s):');
  for (const [name, s] of steps) console.log(`  ${s.toFixed(1).padStart(6)}  ${name}`);
  if (existsSync(CHECKS)) {
    console.log('e2e checks (s):');
    for (const line of readFileSync(CHECKS, 'utf8').trim().split('\n')) {
      const [name, s] = line.split('\t');
      console.log(`  ${s.padStart(6)}  ${name}`);
    }
  }
  console.log(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}  the whole tier`);
  for (const line of extra) console.log(line);
  console.log(`${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}`);
  process.exit(counts.failed > 0 ? 1 : 0);
}

rmSync(CHECKS, { force: true });
writeFileSync('.test-results/e2e.counts.json', `${JSON.stringify({ tier: 'e2e', passed: 0, failed: 0, skipped: 0 })}\n`);
const tools = step('Kubernetes binaries (cached)', () => {
  waitForOtherBuild('scripts/kube-tools.mjs');
  const a = spawnSync('node', ['scripts/kube-tools.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  waitForOtherBuild('scripts/e2e/node-tools.mjs');
  const b = spawnSync('node', ['scripts/e2e/node-tools.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  return a.status === 0 && b.status === 0;
});
if (!tools || step('host packages', () => sh(join(cluster, 'preflight.sh')).status) !== 0) {
  finish(0, 1, ['!!!! the e2e tier could not start: see the lines above']);
}
if (step('image (scripts/e2e/image.sh)', () => sh('scripts/e2e/image.sh', ['--local-base', '--save'])).status !== 0) finish(0, 1);

/**
 * The previous release for test/e2e/upgrade.test.ts: E2E_PREVIOUS_REF, a git ref, or `auto` (the
 * default) for the parent of the last commit that changed a migration or the CRD (so that the upgrade
 * applies the newest schema change); `none` skips the upgrade and rollback checks. The ref's tree
 * (`git archive`, cached by commit outside the clone) gives the chart, and its Dockerfile the image
 * localhost/mapintel:prev-<commit>.
 */
function previousRelease() {
  const ref = process.env.E2E_PREVIOUS_REF || 'auto';
  if (ref === 'none') {
    process.stderr.write('e2e: E2E_PREVIOUS_REF=none: no previous release, so the upgrade and rollback checks (test/e2e/upgrade.test.ts) are skipped\n');
    return {};
  }
  const wanted =
    ref === 'auto'
      ? `${execFileSync('git', ['log', '-1', '--no-merges', '--format=%H', '--', 'src/db/migrations', 'charts/mapintel/crds'], { encoding: 'utf8' }).trim()}^`
      : ref;
  let commit;
  try {
    commit = execFileSync('git', ['rev-parse', '--verify', '--quiet', `${wanted}^{commit}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      `E2E_PREVIOUS_REF=${ref}: ${wanted} is no commit of this clone (a shallow clone? fetch its history, or set E2E_PREVIOUS_REF=none to skip the upgrade checks)`,
    );
  }
  const tree = join(projectCacheDir, 'previous', commit);
  if (!existsSync(join(tree, 'Dockerfile'))) {
    rmSync(`${tree}.partial`, { recursive: true, force: true });
    mkdirSync(`${tree}.partial`, { recursive: true });
    execFileSync('bash', ['-c', `git archive ${commit} | tar -x -C '${tree}.partial'`]);
    renameSync(`${tree}.partial`, tree);
  }
  const image = `localhost/mapintel:prev-${commit.slice(0, 12)}`;
  const built = sh('scripts/e2e/image.sh', ['--local-base', '--save', '--context', tree, '--archive', 'mapintel-previous'], {
    env: { ...process.env, E2E_RUN_DIR: runDir, MAPINTEL_IMAGE: image },
  });
  if (built.status !== 0) throw new Error(`the previous release's image (${commit}) did not build`);
  process.stderr.write(`e2e: the previous release (E2E_PREVIOUS_REF=${ref}) is ${commit.slice(0, 12)}, image ${image}\n`);
  return { E2E_PREVIOUS_REF: commit, E2E_PREVIOUS_CHART: join(tree, 'charts/mapintel'), E2E_PREVIOUS_IMAGE: image };
}
let previous;
try {
  previous = step('previous release (E2E_PREVIOUS_REF): tree and image', previousRelease);
} catch (err) {
  console.error(`e2e: ${err instanceof Error ? err.message : String(err)}`);
  finish(0, 1);
}

const snapshot = () => execFileSync('bash', [join(cluster, 'snapshot.sh')], { encoding: 'utf8' });
const before = snapshot();
let up;
const down = () => step('cluster down', () => sh(join(cluster, 'down.sh')));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    down();
    process.exit(130);
  });
}
try {
  psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  psql(`CREATE DATABASE ${database}`);
  up = step('cluster up (node Ready)', () => sh(join(cluster, 'up.sh'))).status;
  if (up === 0) {
    step('checks (vitest project e2e)', () =>
      // E2E_FILES (space- or comma-separated paths under test/e2e/) runs only those files' checks.
      spawnSync('node', ['scripts/run-tests.mjs', '--tier', 'e2e', '--project', 'e2e', ...(process.env.E2E_FILES ?? '').split(/[\s,]+/).filter(Boolean)], {
        stdio: 'inherit',
        env: {
          ...process.env,
          E2E_RUN_DIR: runDir,
          E2E_DATABASE: database,
          E2E_REDIS_PREFIX: redisPrefix,
          E2E_IMAGE: process.env.MAPINTEL_IMAGE || 'localhost/mapintel:dev',
          ...previous,
        },
      }),
    );
  }
} finally {
  down();
  try {
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    psql(`DROP DATABASE IF EXISTS ${database}_upgrade WITH (FORCE)`);
    psql(`DROP DATABASE IF EXISTS ${database}_install WITH (FORCE)`);
    execFileSync('bash', ['-c', `redis-cli -h 127.0.0.1 --scan --pattern '${redisPrefix}*' | xargs -r -n 500 redis-cli -h 127.0.0.1 DEL >/dev/null`]);
  } catch (err) {
    console.error(`e2e: cleaning the database or Redis failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
const after = snapshot();
const extra = [];
let hostFailed = 0;
if (before !== after) {
  hostFailed = 1;
  const diff = spawnSync('bash', ['-c', 'diff <(echo "$A") <(echo "$B")'], { encoding: 'utf8', env: { ...process.env, A: before, B: after } });
  extra.push('!!!! the host differs after the teardown (< before, > after):', diff.stdout.trimEnd());
} else {
  extra.push('host unchanged after the teardown (links, addresses, routes, nft, iptables, mounts, cgroups, sysctls, paths, processes)');
}
if (up !== 0) extra.push('!!!! the cluster did not start: logs were in the run folder (kept in .test-results/e2e-logs/)');
finish(hostFailed ? 0 : 1, hostFailed + (up !== 0 ? 1 : 0), extra);
