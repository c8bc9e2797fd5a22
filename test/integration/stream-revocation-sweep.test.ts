/**
 * The stream role's revocation sweep over the real key table: it closes the streams of the keys it
 * asked about and found revoked, and never a stream that opened while its query ran (that stream's
 * key was not asked about). Closing those was a defect: during a burst of connects, streams of
 * valid keys were closed as "revoked", and their cap slots went to further connects.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, ADMIN_TOKEN, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { apiRole } from '../../src/api/api.role.js';
import { dbOf } from '../../src/db/db.js';
import { TokenService } from '../../src/auth/token.service.js';
import { createLogger } from '../../src/common/log.js';
import { RevocationSweep, type SweptStream } from '../../src/stream/revocation-sweep.js';

let t: TestServer;
let slug: string;
let owner: string;
let tokens: TokenService;
const logLines: string[] = [];
const log = createLogger(
  'info',
  new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(chunk.toString('utf8'));
      cb();
    },
  }),
);

beforeAll(async () => {
  t = await startTestServer({ roles: [apiRole] });
  const m = await makeMap(t.platform);
  slug = m.map.slug;
  owner = m.ownerEveId;
  tokens = new TokenService(dbOf(t.platform.orm), ADMIN_TOKEN);
});

afterAll(async () => {
  await t?.close();
});

function stream(keyId: string): SweptStream & { closed: string[] } {
  const closed: string[] = [];
  return { principal: { keyId }, closed, close: (reason) => closed.push(reason) };
}

async function issue(): Promise<string> {
  return (await t.platform.admin.issueKey(slug, { character_eve_id: owner })).id;
}

describe('the revocation sweep', () => {
  it('closes the streams of revoked keys it asked about, and no stream that opened during its query', async () => {
    const [kept, revoked, lateValid, lateRevoked] = [await issue(), await issue(), await issue(), await issue()];
    await t.platform.admin.revokeKey(slug, revoked);
    await t.platform.admin.revokeKey(slug, lateRevoked);
    const open = new Set<SweptStream>();
    const a = stream(kept);
    const b = stream(revoked);
    const b2 = stream(revoked);
    open.add(a).add(b).add(b2);
    const late = [stream(lateValid), stream(lateRevoked), stream(revoked)];
    const asked: string[][] = [];
    const sweep = new RevocationSweep(
      open,
      async (keyIds) => {
        asked.push([...keyIds].sort());
        const live = await tokens.liveMapKeyIds(keyIds);
        // Streams open while the query runs (the first sweep only).
        if (asked.length === 1) for (const s of late) open.add(s);
        return live;
      },
      log,
    );

    expect(await sweep.sweep()).toBe(3);
    expect(asked).toEqual([[kept, revoked].sort()]);
    expect(a.closed).toEqual([]);
    expect(b.closed).toEqual(['revoked']);
    expect(b2.closed).toEqual(['revoked']);
    // The late stream of a key the query did find revoked goes too; the others wait for the next sweep.
    expect(late.map((s) => s.closed)).toEqual([[], [], ['revoked']]);

    for (const s of [b, b2, late[2]!]) open.delete(s);
    expect(await sweep.sweep()).toBe(1);
    expect(asked[1]).toEqual([kept, lateValid, lateRevoked].sort());
    expect(late.map((s) => s.closed)).toEqual([[], ['revoked'], ['revoked']]);
    expect(a.closed).toEqual([]);
  });

  it('closes nothing when the database cannot answer, logs why, and runs one query at a time', async () => {
    const key = await issue();
    await t.platform.admin.revokeKey(slug, key);
    const s = stream(key);
    let calls = 0;
    let fail = true;
    const sweep = new RevocationSweep(
      new Set([s]),
      async (keyIds) => {
        calls++;
        await new Promise((r) => setTimeout(r, 50));
        if (fail) throw new Error('connection refused');
        return tokens.liveMapKeyIds(keyIds);
      },
      log,
    );
    expect(await Promise.all([sweep.sweep(), sweep.sweep()])).toEqual([0, 0]);
    expect(calls).toBe(1);
    expect(s.closed).toEqual([]);
    const warned = logLines.map((l) => JSON.parse(l) as { msg: string; err?: { message: string } }).find((l) => l.msg.startsWith('revocation sweep failed'));
    expect(warned?.err?.message).toBe('connection refused');
    fail = false;
    expect(await sweep.sweep()).toBe(1);
    expect(calls).toBe(2);
    expect(s.closed).toEqual(['revoked']);
  });
});
