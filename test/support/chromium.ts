/**
 * Browser tests drive Debian's Chromium through playwright-core. `ensureChromium()` installs it with
 * apt-get when it is missing (the tests run as root), and `launchChromium()` starts it headless with a
 * fresh profile (playwright's launch makes a temporary --user-data-dir and removes it on close).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** Runs a command with its output on the terminal (progress of apt-get), without blocking the event loop. */
function run(command: string, args: string[]): Promise<void> {
  console.log(`[chromium] $ ${command} ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 15 * 60_000,
    });
    child.once('error', (err) => reject(new Error(`could not run ${command}: ${err.message}`)));
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal}`))));
  });
}

/** Makes sure /usr/bin/chromium exists, installing Debian's chromium package when it does not. */
export async function ensureChromium(): Promise<string> {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  console.log(`[chromium] ${CHROMIUM_PATH} is missing; installing Debian's chromium package with apt-get (this takes a few minutes)`);
  try {
    await run('apt-get', ['update']);
    await run('apt-get', ['install', '-y', 'chromium']);
  } catch (err) {
    throw new Error(
      `Chromium is required by the browser tests and could not be installed: ${(err as Error).message}. ` +
        `Install it by hand (as root: apt-get update && apt-get install -y chromium) so that ${CHROMIUM_PATH} exists.`,
      { cause: err },
    );
  }
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`apt-get installed chromium but ${CHROMIUM_PATH} still does not exist`);
  }
  console.log(`[chromium] installed ${CHROMIUM_PATH}`);
  return CHROMIUM_PATH;
}

/** Installs Chromium if needed and launches it headless with a fresh profile. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = await ensureChromium();
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true, timeout: 30_000 });
}
