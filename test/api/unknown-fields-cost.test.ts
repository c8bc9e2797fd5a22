/**
 * A refused body of many unknown fields costs about what reading it costs (src/api/bounded-validation.ts):
 * validation stops after a bounded number of problems, and the 400 lists the first 20 of them with a
 * count of the rest (`details_omitted`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { freshMap, JITA, killBody, startEditServer, type EditMap } from '../support/map-edit.js';
import { unknownFieldsBody } from '../../bench/hostile-body-shapes.mjs';

const REQUESTS = 3;

/** CPU time (user + system, ms) of this process while `run` runs. */
async function cpuMs(run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** POSTs `body` `n` times to `url`, one at a time; the statuses and the last answer. */
async function post(url: string, body: string, n: number, token?: string): Promise<{ statuses: number[]; last: string }> {
  const statuses: number[] = [];
  let last = '';
  for (let i = 0; i < n; i++) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body,
    });
    statuses.push(res.status);
    last = await res.text();
  }
  return { statuses, last };
}

describe('POST /api/maps/{map_id}/kills with a body of many unknown fields', () => {
  let t: TestServer;
  let c: EditMap;
  // The baseline: a loopback server that reads the body, parses it and answers a small 400.
  let reader: http.Server;
  let readerUrl: string;
  const body = unknownFieldsBody();

  beforeAll(async () => {
    t = await startEditServer();
    c = await freshMap(t, { systems: [JITA] });
    reader = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (b: Buffer) => chunks.push(b));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"error":"refused","code":"validation_failed"}');
      });
    });
    await new Promise<void>((r) => reader.listen(0, '127.0.0.1', r));
    readerUrl = `http://127.0.0.1:${(reader.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => (reader ? reader.close(() => r()) : r()));
    await t?.close();
  });

  it('answers a small 400: the first 20 problems (unknown fields of the first kill, in order) and how many more were found', async () => {
    expect(body.length).toBeGreaterThan(600_000);
    const { statuses, last } = await post(`${t.url}/api/maps/${c.slug}/kills`, body, 1, c.key);
    expect(statuses).toEqual([400]);
    expect(last.length).toBeLessThan(8_000);
    const answer = JSON.parse(last) as { error: string; code: string; details: { field: string; message: string }[]; details_omitted: number };
    expect(answer.code).toBe('validation_failed');
    expect(answer.details).toHaveLength(20);
    expect(answer.details[0]).toEqual({
      field: 'kills[0].unknown_field_000',
      message: '"unknown_field_000" is an excess property and therefore is not allowed',
    });
    expect(answer.details[19]!.field).toBe('kills[0].unknown_field_019');
    // The first kill's 103 unknown fields less the 20 listed: validation stopped there, past 100 problems.
    // Unbounded, it would count all 200 kills' 20,600 (at least 80 let that through).
    expect(answer.details_omitted).toBe(83);
    expect(Object.keys(answer).sort()).toEqual(['code', 'details', 'details_omitted', 'error']);
  });

  it('lists every problem, without details_omitted, when there are at most 20; counts the rest exactly when fewer than 100', async () => {
    const few = { ...killBody(JITA, 130_000_001), ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`extra_${i}`, i])) };
    const a = await post(`${t.url}/api/maps/${c.slug}/kills`, JSON.stringify(few), 1, c.key);
    expect(a.statuses).toEqual([400]);
    const fa = JSON.parse(a.last) as { details: unknown[]; details_omitted?: number };
    expect(fa.details).toHaveLength(20);
    expect(fa).not.toHaveProperty('details_omitted');
    const more = { ...few, extra_20: 20, extra_21: 21, extra_22: 22 };
    const b = await post(`${t.url}/api/maps/${c.slug}/kills`, JSON.stringify(more), 1, c.key);
    const fb = JSON.parse(b.last) as { details: { field: string }[]; details_omitted?: number };
    expect(fb.details.map((d) => d.field)).toEqual(Array.from({ length: 20 }, (_, i) => `extra_${i}`));
    expect(fb.details_omitted).toBe(3);
  });

  it('costs less than 10 times the CPU of reading and parsing the same body', async () => {
    // Warm both paths (JIT, connections) first.
    await post(readerUrl, body, 1);
    await post(`${t.url}/api/maps/${c.slug}/kills`, body, 1, c.key);
    let refused: number[] = [];
    const product = await cpuMs(async () => {
      refused = (await post(`${t.url}/api/maps/${c.slug}/kills`, body, REQUESTS, c.key)).statuses;
    });
    const baseline = await cpuMs(async () => {
      await post(readerUrl, body, REQUESTS);
    });
    expect(refused).toEqual(Array(REQUESTS).fill(400));
    // Both measured in this process (client and server); a floor keeps a tiny baseline from making noise a failure.
    expect(product / Math.max(baseline, 5 * REQUESTS)).toBeLessThan(10);
  });
});
