/**
 * The committed types are what openapi-typescript generates from the document the service serves at
 * /api/openapi.json: a change to the API without `make client` (or `make build`) fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { publishedOpenapi } from '../../../src/api/openapi.js';
// @ts-expect-error: a plain .mjs script, without type declarations
import { generate, OUTPUT_PATH } from '../scripts/generate.mjs';

describe('the generated types', () => {
  it('match a fresh generation from the served OpenAPI document', async () => {
    const fresh = (await generate(publishedOpenapi())) as string;
    const committed = readFileSync(OUTPUT_PATH as string, 'utf8');
    expect(committed === fresh, 'clients/typescript/src/generated/openapi.ts is stale: run `make client`').toBe(true);
  });

  it('type every path the service serves, the event stream included', async () => {
    const committed = readFileSync(OUTPUT_PATH as string, 'utf8');
    for (const path of Object.keys(publishedOpenapi().paths)) expect(committed, path).toContain(`"${path}": {`);
    expect(committed).toContain('"/api/maps/{map_id}/events/stream": {');
  });
});
