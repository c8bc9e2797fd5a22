// CPU accounting of bench/webhooks.mjs: the processes under watch, PostgreSQL's backends and the machine.
import { backendsCpu, backendsDelta, machineCpu, nowMs, procCpu, procRunDelay } from '../support.mjs';

/** CPU seconds so far of the processes under watch, PostgreSQL's backends and the machine. */
export function cpuSnapshot(pids, pgPids) {
  const u = process.cpuUsage();
  const out = { wall: nowMs(), bench: (u.user + u.system) / 1e6, pg: backendsCpu(pgPids), machine: machineCpu(), waits: {} };
  for (const [name, pid] of Object.entries(pids)) {
    out[name] = pid ? procCpu(pid) : NaN;
    out.waits[name] = pid ? procRunDelay(pid) : NaN;
  }
  out.waits.postgres = backendsCpu(pgPids, procRunDelay);
  return out;
}

/** % of one core per process (machine: % of all cores busy) and CPU ms per delivery since `s`. */
export function cpuSince(s, pids, pgPids, deliveries) {
  const e = cpuSnapshot(pids, pgPids);
  const wall = (e.wall - s.wall) / 1000;
  const out = { seconds: wall, machineBusyPct: (1 - (e.machine.idle - s.machine.idle) / (e.machine.total - s.machine.total)) * 100 };
  const add = (name, used) => {
    out[`${name}Pct`] = (used / wall) * 100;
    out[`${name}MsPerDelivery`] = (used * 1000) / deliveries;
  };
  for (const name of [...Object.keys(pids), 'bench']) add(name, e[name] - s[name]);
  add('postgres', backendsDelta(s.pg, e.pg));
  // Time runnable but waiting for a core, % of the wall time (PostgreSQL: its backends summed).
  for (const name of Object.keys(pids)) out[`${name}WaitPct`] = ((e.waits[name] - s.waits[name]) / wall) * 100;
  out.postgresWaitPct = (backendsDelta(s.waits.postgres, e.waits.postgres) / wall) * 100;
  return out;
}
