// A CPU limit for one process, as a Kubernetes pod's `resources.limits.cpu` sets one: a cgroup of its own
// with a CFS quota (cgroup v2 `cpu.max` when the cpu controller is there, else cgroup v1's cpu
// hierarchy). Used by bench/scale.mjs (BENCH_PROCESS_CPU) so that a stream process saturates at its
// limit, and processes added each bring their own share of the machine, on a machine with fewer cores
// than processes. Needs root (or a delegated cgroup).
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
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

/** Puts process `pid` in a cgroup of its own limited to `cores` cores; returns its removal (once the process is gone). */
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
  return () => {
    try {
      rmdirSync(dir);
    } catch {
      // Still has a process (it did not exit): left for the operator to see.
    }
  };
}
