/** The shipped sample of the static data (assets/eve-static-sample) and scratch copies of it for the import tests. */
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const FIXTURE = path.resolve(process.cwd(), 'assets/eve-static-sample');
export const FIXTURE_SYSTEMS = 54;
/** Stargate jumps of the fixture (both directions of 37 stargates). */
export const FIXTURE_JUMPS = 74;

/** A scratch copy of the fixture, edited by `edit(dir)`. */
export async function fixtureCopy(edit: (dir: string) => Promise<void>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mapintel-sde-'));
  await cp(FIXTURE, dir, { recursive: true });
  await edit(dir);
  return dir;
}

export async function editFile(file: string, change: (text: string) => string): Promise<void> {
  const before = await readFile(file, 'utf8');
  const after = change(before);
  if (after === before) throw new Error(`edit of ${file} changed nothing`);
  await writeFile(file, after);
}
