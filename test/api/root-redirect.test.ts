import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';

describe('GET /', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  it('sends a person to the API explorer with a 302 to /swaggerui', async () => {
    const res = await t.fetch('/', { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/swaggerui');
    const followed = await t.fetch('/');
    expect(followed.status).toBe(200);
    expect(followed.url).toMatch(/\/swaggerui\/$/);
    expect(await followed.text()).toContain('mapintel API explorer');
  });
});
