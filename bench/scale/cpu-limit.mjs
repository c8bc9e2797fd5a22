// A CPU limit for one process, as a Kubernetes pod's `resources.limits.cpu` sets one: a cgroup of its own
// with a CFS quota (cgroup v2 `cpu.max` when the cpu controller is there, else cgroup v1's cpu
// hierarchy). Used by bench/scale.mjs (BENCH_PROCESS_CPU) so that a stream process saturates at its
// limit, and processes added each bring their own share of the machine, on a machine with fewer cores
// than processes. Needs root (or a delegated cgroup).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const PERIOD_US = 100_000;

function hierarchy() {
  const v2 = '/sys/fs/cgroup';
  if (existsSync(path.join(v2, 'cgroup.controllers')) && readFileSync(path.join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu'))
    return { root: v2, v2: true };
  const v1 = '/sys/fs/cgroup/cpu';
  if (existsSync(path.join(v1, 'cpu.cfs_quota_us'))) return { root: v1, v2: false };
  throw new Error('BENCH_PROCESS_CPU needs a cgroup cpu controller (cgroup v2 with cpu, or v1 /sys/fs/cgroup/cpu)');
}

/**
 * Puts process `pid` in a cgroup of its own limited to `cores` cores. Returns `cpuSeconds()`, the CPU the
 * cgroup has used so far by the kernel's own accounting (cgroup v2 `cpu.stat` usage_usec, or v1
 * `cpuacct.usage` in a cpuacct cgroup of the same name: what a pod's container_cpu_usage_seconds_total
 * reads), `throttled()` (periods and throttled ones, from `cpu.stat`), `threadsOutside()` (threads of the
 * process not in the cgroup: 0 unless something escaped it) and `remove()` (once the process is gone).
 */
export function limitCpu(pid, cores, name) {
  const h = hierarchy();
  const dir = path.join(h.root, name);
  mkdirSync(dir, { recursive: true });
  const quota = Math.max(1000, Math.round(cores * PERIOD_US));
  if (h.v2) writeFileSync(path.join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
  else {
    writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quota));
  }
  writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
  // cgroup v1 keeps CPU accounting in its own hierarchy (cpuacct), often mounted apart from cpu.
  const acctRoot = '/sys/fs/cgroup/cpuacct';
  const acct = !h.v2 && existsSync(path.join(acctRoot, 'cpuacct.usage')) && acctRoot !== h.root ? path.join(acctRoot, name) : null;
  if (acct) {
    mkdirSync(acct, { recursive: true });
    writeFileSync(path.join(acct, 'cgroup.procs'), String(pid));
  }
  const stat = () =>
    Object.fromEntries(
      readFileSync(path.join(dir, 'cpu.stat'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ')),
    );
  return {
    cpuSeconds() {
      try {
        if (h.v2) return Number(stat().usage_usec) / 1e6;
        return Number(readFileSync(path.join(acct ?? dir, 'cpuacct.usage'), 'utf8')) / 1e9;
      } catch {
        return NaN;
      }
    },
    throttled() {
      const s = stat();
      return { periods: Number(s.nr_periods), throttled: Number(s.nr_throttled) };
    },
    threadsOutside() {
      try {
        const inside = new Set(
          readFileSync(path.join(dir, h.v2 ? 'cgroup.threads' : 'tasks'), 'utf8')
            .trim()
            .split('\n'),
        );
        return readdirSync(`/proc/${pid}/task`).filter((t) => !inside.has(t)).length;
      } catch {
        return NaN;
      }
    },
    remove() {
      for (const d of [dir, acct])
        if (d)
          try {
            rmdirSync(d);
          } catch {
            // Still has a process (it did not exit): left for the operator to see.
          }
    },
  };
}
