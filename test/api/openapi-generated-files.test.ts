/**
 * The committed generated files (src/api/generated/openapi.json and routes.ts) are what tsoa produces
 * from the controllers today. The served document itself: test/api/openapi.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const GENERATED = path.join(ROOT, 'src/api/generated');

/** First differing line of two texts, for a short failure message. */
function firstDifference(actual: string, expected: string): string {
  const a = actual.split('\n');
  const b = expected.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i])
      return `line ${i + 1}:\n    committed:   ${JSON.stringify(b[i] ?? '<end of file>')}\n    regenerated: ${JSON.stringify(a[i] ?? '<end of file>')}`;
  }
  return 'no line differs (line endings?)';
}

describe('committed generated files', () => {
  let dir: string;
  let generated: { spec: string; routes: string };

  beforeAll(async () => {
    // Regenerate with the settings of tsoa.json, into a temporary directory.
    dir = await mkdtemp(path.join(os.tmpdir(), 'mapintel-tsoa-'));
    const config = JSON.parse(await readFile(path.join(ROOT, 'tsoa.json'), 'utf8')) as {
      spec: { outputDirectory: string };
      routes: { routesDir: string };
    };
    config.spec.outputDirectory = dir;
    config.routes.routesDir = dir;
    const configFile = path.join(dir, 'tsoa.json');
    await writeFile(configFile, JSON.stringify(config));
    const cli = createRequire(import.meta.url).resolve('@tsoa/cli/dist/cli.js');
    try {
      await promisify(execFile)(process.execPath, [cli, 'spec-and-routes', '-c', configFile], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`tsoa spec-and-routes failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, { cause: err });
    }
    generated = {
      spec: await readFile(path.join(dir, 'openapi.json'), 'utf8'),
      routes: await readFile(path.join(dir, 'routes.ts'), 'utf8'),
    };
  }, 120_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('src/api/generated/openapi.json is what tsoa generates from the controllers', async () => {
    const committed = await readFile(path.join(GENERATED, 'openapi.json'), 'utf8');
    if (generated.spec !== committed) {
      expect.fail(
        'src/api/generated/openapi.json is out of date with the controllers and DTOs: run `npm run tsoa` and commit the result.\n' +
          `First difference at ${firstDifference(generated.spec, committed)}`,
      );
    }
  });

  it('src/api/generated/routes.ts is what tsoa generates from the controllers', async () => {
    const committed = await readFile(path.join(GENERATED, 'routes.ts'), 'utf8');
    // Relative imports depend on the output directory: compare them as paths from the repository root.
    // The routes template (src/api/templates/routes.hbs) writes its own import literally, for src/api/generated.
    const normalize = (text: string, from: string) =>
      text.replace(
        /(from\s+')(\.{1,2}\/[^']*)(')/g,
        (_m, a: string, spec: string, b: string) =>
          `${a}<root>/${path.relative(ROOT, path.resolve(spec === '../bounded-validation.js' ? GENERATED : from, spec))}${b}`,
      );
    const regenerated = normalize(generated.routes, dir);
    const current = normalize(committed, GENERATED);
    if (regenerated !== current) {
      expect.fail(
        'src/api/generated/routes.ts is out of date with the controllers and DTOs: run `npm run tsoa` and commit the result.\n' +
          `First difference at ${firstDifference(regenerated, current)}`,
      );
    }
    // The normalization only touched the import lines.
    expect(current).toContain("from '<root>/src/maps/map-read/map-read.controller.js'");
  });
});
