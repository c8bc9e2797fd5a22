/**
 * The headers of a cached map read (ETag, Cache-Control) are declared once (src/http/cache-headers.ts)
 * and named by every route the map read cache serves; the OpenAPI document still lists both headers, with
 * their descriptions, on each such route's 200 and 304.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Header {
  schema: { type: string };
  description: string;
  required: boolean;
}
type Operation = { responses: Record<string, { headers?: Record<string, Header> }> };

function controllers(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    return e.isDirectory() ? controllers(rel) : e.name.endsWith('.controller.ts') ? [rel] : [];
  });
}

describe('cached read headers', () => {
  it('no controller writes the ETag and Cache-Control headers out itself', () => {
    const inline = controllers('src').filter((f) => /\bETag\s*:\s*string/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(inline).toEqual([]);
    const naming = controllers('src').filter((f) => readFileSync(path.join(ROOT, f), 'utf8').includes('CachedReadHeaders'));
    expect(naming.length).toBe(9);
  });

  it('the OpenAPI document lists both headers on the 200 and the 304 of every cached read', () => {
    const doc = JSON.parse(readFileSync(path.join(ROOT, 'src/api/generated/openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const cached = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.responses?.['304'])
        .map(([method, op]) => ({ route: `${method.toUpperCase()} ${p}`, op })),
    );
    expect(cached.length).toBe(19);
    for (const { route, op } of cached) {
      for (const status of ['200', '304']) {
        const headers = op.responses[status]!.headers!;
        expect(Object.keys(headers), `${route} ${status}`).toEqual(['Cache-Control', 'ETag', 'Map-Event-Id']);
        expect(headers.ETag).toMatchObject({ schema: { type: 'string' }, required: true });
        expect(headers.ETag!.description).toMatch(/^Strong validator of the body/);
        expect(headers['Cache-Control']!.description).toMatch(/^`private, no-cache`/);
        expect(headers['Map-Event-Id']!.description).toMatch(/^The id of the newest event of the map whose effect the answer includes/);
      }
    }
  });
});
