/**
 * The built CLI (`node dist/cli.js …`) as a child process, with its JSON log lines collected.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

export const CLI = path.resolve('dist/cli.js');

export function assertBuilt(): void {
  expect(existsSync(CLI), 'dist/cli.js is built by `make test` before the tests run').toBe(true);
}

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  /** Parsed JSON log lines so far. */
  logs(): Record<string, unknown>[];
  /** Waits for a log line with this `msg` (and returns it). */
  waitForLog(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** The exit code, once the process ends by itself. */
  exited: Promise<number | null>;
}

export function startCli(args: string[], env: Record<string, string>): CliProcess {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logs = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    child,
    exited,
    output: () => out,
    logs,
    async waitForLog(msg, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = logs().find((l) => l.msg === msg);
        if (line) return line;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no "${msg}" log line; output:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs a CLI command to its end. */
export function runCli(args: string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  assertBuilt();
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
