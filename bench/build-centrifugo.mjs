#!/usr/bin/env node
// Builds baseline (b) of bench-stream, Centrifugo, from the Go module proxy into .cache/bin/ (git-ignored)
// on first use; later runs find the binary there. The version is pinned by tools/centrifugo/go.mod and
// go.sum (a module of the project's own whose only content is the `tool` line naming the server).
//
//   node bench/build-centrifugo.mjs     builds (if needed) and prints the binary's path
//
// ensureCentrifugo() returns { path } or { error } (no Go, no network path to the proxy, a failed build):
// the benchmark then says so and runs without the peer.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CENTRIFUGO_VERSION = '5.4.9';
const MODULE = 'github.com/centrifugal/centrifugo/v5';
const TOOL_DIR = path.join(ROOT, 'tools/centrifugo');
const BIN = path.join(ROOT, '.cache/bin', `centrifugo-v${CENTRIFUGO_VERSION}`);

function run(cmd, args, opts) {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { maxBuffer: 16 << 20, ...opts }, (err, stdout, stderr) =>
      err ? reject(Object.assign(err, { output: `${stdout}${stderr}`.trim() })) : resolve(stdout),
    ),
  );
}

/** The cached binary, built first when missing. Never throws. */
export async function ensureCentrifugo({ log = (m) => process.stderr.write(`${m}\n`) } = {}) {
  if (existsSync(BIN)) return { path: BIN };
  try {
    await run('go', ['version']);
  } catch {
    return { error: '`go` is not installed' };
  }
  mkdirSync(path.dirname(BIN), { recursive: true });
  log(`building Centrifugo v${CENTRIFUGO_VERSION} from the Go module proxy into ${path.relative(ROOT, BIN)} (once; 1-2 minutes) ...`);
  const started = Date.now();
  const tmp = `${BIN}.tmp-${process.pid}`;
  try {
    await run('go', ['build', '-mod=readonly', '-trimpath', '-ldflags', `-s -w -X ${MODULE}/internal/build.Version=${CENTRIFUGO_VERSION}`, '-o', tmp, MODULE], {
      cwd: TOOL_DIR,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' },
    });
    renameSync(tmp, BIN);
  } catch (err) {
    return { error: `go build failed: ${(err.output || err.message).split('\n').slice(-5).join(' | ')}` };
  }
  log(`built Centrifugo in ${Math.round((Date.now() - started) / 1000)} s`);
  return { path: BIN };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await ensureCentrifugo();
  if (r.error) {
    process.stderr.write(`${r.error}\n`);
    process.exit(1);
  }
  process.stdout.write(`${r.path}\n`);
}
