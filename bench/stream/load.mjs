// The load generators of bench/stream.mjs: bench/stream-load.mjs processes given a job on stdin.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './settings.mjs';

/** Runs one load generator process with a job; resolves with its `open` and `done` lines. */
function loadOne(job, onLine) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench/stream-load.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.end(JSON.stringify(job));
    let out = '';
    const lines = [];
    child.stdout.on('data', (c) => {
      out += c;
      let i;
      while ((i = out.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(out.slice(0, i)));
        out = out.slice(i + 1);
        onLine?.(lines.at(-1));
      }
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(['open', 'done'].map((phase) => lines.find((l) => l.phase === phase))) : reject(new Error(`load generator exited ${code}`)),
    );
  });
}

/** Connections one generator process opens at most: a process here may hold 20,000 files. */
const PER_GENERATOR = 10_000;

/**
 * Runs the load generator with a job: one process, or for more than PER_GENERATOR connections several
 * (their `open` lines merged into one, reported once all are open; latencies only from one process).
 */
export async function load({ onLine, ...job }) {
  const parts = Math.ceil(job.connections / PER_GENERATOR);
  if (parts === 1) return loadOne(job, onLine);
  const opens = [];
  const started = performance.now();
  let allOpen;
  const results = await Promise.all(
    Array.from({ length: parts }, (_, i) => {
      const connections = Math.min(PER_GENERATOR, job.connections - i * PER_GENERATOR);
      // Each part starts at its own offset into the targets, so the maps get the same spread.
      const targets = job.targets.map((_, k) => job.targets[(k + i * PER_GENERATOR) % job.targets.length]);
      return loadOne({ ...job, targets, connections }, (l) => {
        // The settling time ends in every part at about the same moment: the first part says so.
        if (l.phase === 'measuring' && i === 0) onLine?.(l);
        if (l.phase !== 'open') return;
        opens.push(l);
        if (opens.length === parts) {
          const seconds = (performance.now() - started) / 1000;
          const opened = opens.reduce((a, o) => a + o.opened, 0);
          allOpen = { phase: 'open', opened, failed: opens.reduce((a, o) => a + o.failed, 0), openPerSecond: Math.round(opened / seconds) };
          onLine?.(allOpen);
        }
      });
    }),
  );
  return [allOpen, results[0][1]];
}
