/** Webhook signing, retry schedule and URL rules (decisions §7), without a network. */
import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signature, signingHeaders, standardSignature, standardWebhooksKey, verify } from '../../src/webhooks/signer.js';
import { DEFAULT_RETRY_WAITS_MS, longestWaitMs, nextWaitMs } from '../../src/webhooks/retry-schedule.js';
import { parseRetryAfter } from '../../src/webhooks/retry-after.js';
import { checkUrl, checkUrlShape, isPublicAddress, pinnedLookup, UnsafeUrlError, type Resolve } from '../../src/webhooks/url-guard.js';
/** The one refusal of a non-public or unresolved host (it names neither the address nor the outcome). */
const UNIFORM_REFUSAL = 'must name a host that resolves to public addresses only';

const BODY = '{"id":"01J","type":"map_kill"}';

describe('webhook signature', () => {
  it('is HMAC-SHA256 of "<unix seconds>.<raw body>" keyed with the secret (checked against openssl)', () => {
    // printf '%s' '1700000000.<body>' | openssl dgst -sha256 -hmac whsec_test
    expect(signature('whsec_test', 1_700_000_000, BODY)).toBe('sha256=8b55b01039f2413c528f86a032c11accefbbe7afaf78058ef2bda6639c5bf899');
    expect(signature('whsec_test', 1_700_000_000, Buffer.from(BODY))).toBe(signature('whsec_test', 1_700_000_000, BODY));
  });

  it('sends the timestamp it signed, in unix seconds', () => {
    const h = signingHeaders('whsec_test', '01J', BODY, 1_700_000_000_999);
    expect(h).toEqual({
      'x-service-timestamp': '1700000000',
      'x-service-signature': signature('whsec_test', 1_700_000_000, BODY),
      'webhook-id': '01J',
      'webhook-timestamp': '1700000000',
      'webhook-signature': standardSignature('whsec_test', '01J', 1_700_000_000, BODY),
    });
  });

  it('carries a Standard Webhooks signature that the standardwebhooks package verifies with the whsec_ form of the secret', () => {
    // printf '%s' '01J.1700000000.<body>' | openssl dgst -sha256 -hmac whsec_test -binary | base64
    expect(standardSignature('whsec_test', '01J', 1_700_000_000, BODY)).toBe(
      `v1,${createHmac('sha256', 'whsec_test').update(`01J.1700000000.${BODY}`).digest('base64')}`,
    );
    expect(standardWebhooksKey('whsec_test')).toBe(`whsec_${Buffer.from('whsec_test').toString('base64')}`);
    for (const secret of ['s3cret', 'A'.repeat(43) + '=', 's'.repeat(44), 'ünïcode secret']) {
      const now = Date.now();
      const h = signingHeaders(secret, '01JEVENT', BODY, now);
      const headers = { 'webhook-id': h['webhook-id'], 'webhook-timestamp': h['webhook-timestamp'], 'webhook-signature': h['webhook-signature'] };
      expect(new Webhook(standardWebhooksKey(secret)).verify(BODY, headers)).toEqual(JSON.parse(BODY));
      expect(() => new Webhook(standardWebhooksKey(secret)).verify(`${BODY} `, headers)).toThrow();
      expect(() => new Webhook(standardWebhooksKey('other')).verify(BODY, headers)).toThrow();
    }
  });

  it('verifies like a receiver: the right secret and body only, within the replay window', () => {
    const now = 1_700_000_000_000;
    const h = signingHeaders('s3cret', '01J', BODY, now);
    expect(verify('s3cret', h['x-service-signature'], h['x-service-timestamp'], BODY, now)).toBe(true);
    expect(verify('other', h['x-service-signature'], h['x-service-timestamp'], BODY, now)).toBe(false);
    expect(verify('s3cret', h['x-service-signature'], h['x-service-timestamp'], `${BODY} `, now)).toBe(false);
    expect(verify('s3cret', h['x-service-signature'], h['x-service-timestamp'], BODY, now + 301_000)).toBe(false);
    expect(verify('s3cret', undefined, h['x-service-timestamp'], BODY, now)).toBe(false);
    expect(verify('s3cret', 'sha256=00', h['x-service-timestamp'], BODY, now)).toBe(false);
  });
});

describe('retry schedule', () => {
  it('waits 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h: ten attempts in all', () => {
    expect(DEFAULT_RETRY_WAITS_MS.map((ms) => ms / 1000)).toEqual([1, 5, 30, 120, 600, 1800, 3600, 10800, 21600]);
    expect([1, 2, 3, 9].map((a) => nextWaitMs(a, { random: () => 0 }))).toEqual([1_000, 5_000, 30_000, 21_600_000]);
    expect(nextWaitMs(10)).toBeNull();
  });

  it('adds 0–20 % jitter, never earlier', () => {
    expect(nextWaitMs(3, { random: () => 0 })).toBe(30_000);
    expect(nextWaitMs(3, { random: () => 0.999 })).toBe(35_994);
  });

  it("honours Retry-After (seconds or a date), capped by the schedule's longest wait, never earlier than the schedule", () => {
    expect(nextWaitMs(1, { random: () => 0, retryAfterMs: 120_000 })).toBe(120_000);
    expect(nextWaitMs(1, { random: () => 0, retryAfterMs: 10 * 3_600_000 })).toBe(21_600_000);
    expect(nextWaitMs(1, { random: () => 0, retryAfterMs: 2 * 3_600_000 })).toBe(7_200_000);
    expect(nextWaitMs(1, { waits: [1_000, 60_000], random: () => 0, retryAfterMs: 3_600_000 })).toBe(60_000);
    expect(nextWaitMs(4, { random: () => 0, retryAfterMs: 1_000 })).toBe(120_000);
    expect(longestWaitMs()).toBe(21_600_000);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', Date.parse('2026-01-01T00:00:00Z'))).toBe(60_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('clamps a Retry-After too large to read to the longest wait, like any other past it', () => {
    const cap = longestWaitMs();
    expect(parseRetryAfter('999999', 0, cap)).toBe(cap);
    expect(parseRetryAfter('99999999999999999999', 0, cap)).toBe(cap);
    expect(parseRetryAfter(' 9'.padEnd(400, '9'), 0, cap)).toBe(cap);
    expect(parseRetryAfter('3600', 0, cap)).toBe(3_600_000);
    expect(parseRetryAfter('0', 0, cap)).toBe(0);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', Date.parse('2026-01-01T00:00:00Z'), cap)).toBe(cap);
    // What the worker does with it: the next attempt at the cap, not the schedule's seconds.
    expect(nextWaitMs(1, { random: () => 0, retryAfterMs: parseRetryAfter('99999999999999999999', 0, cap) })).toBe(cap);
    for (const bad of ['12abc', '', 'later']) expect(parseRetryAfter(bad), bad).toBeUndefined();
  });

  it('reads a Retry-After too large to represent, or past the cap, as the cap; a past date as no wait', () => {
    const cap = longestWaitMs();
    expect(parseRetryAfter('99999999999999999999999999', 0, cap)).toBe(cap);
    expect(parseRetryAfter('9'.repeat(400), 0, cap)).toBe(cap);
    expect(parseRetryAfter('86400', 0, cap)).toBe(cap);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', Date.parse('2026-01-01T00:00:00Z'), cap)).toBe(cap);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:00 GMT', Date.parse('2026-01-02T00:00:00Z'), cap)).toBe(0);
    expect(parseRetryAfter(' 30 ', 0, cap)).toBe(30_000);
    expect(parseRetryAfter('-5', 0, cap)).toBeUndefined();
  });
});

describe('webhook URLs', () => {
  it('tells public unicast from loopback, private, link-local, CGNAT, metadata and IPv6 local or mapped addresses', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '127.8.9.10',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:8.8.8.8',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      '2001:db8::1',
      'ff02::1',
      'not an address',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it('takes https only, at most 2000 characters, without credentials', () => {
    expect(checkUrlShape('https://hooks.example.com/x').hostname).toBe('hooks.example.com');
    for (const [url, reason] of [
      ['http://hooks.example.com/x', 'must use https'],
      ['ftp://hooks.example.com/x', 'must use https'],
      ['https://user:pw@hooks.example.com/', 'must not carry credentials'],
      ['hooks.example.com/x', 'must be an absolute URL'],
      [`https://hooks.example.com/${'a'.repeat(2000)}`, 'must be at most 2000 characters'],
    ]) {
      expect(() => checkUrlShape(url!), url).toThrow(reason!);
    }
    expect(checkUrlShape('http://127.0.0.1:9000/hook', true).port).toBe('9000');
  });

  it('refuses hostnames that resolve to a non-public address or not at all, with one message naming neither the address nor the outcome', async () => {
    const resolve: Resolve = async (host) => (host === 'internal.example' ? [{ address: '10.1.2.3', family: 4 }] : []);
    const failing: Resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const messages = await Promise.all(
      [
        checkUrl('https://internal.example/h', { resolve }),
        checkUrl('https://nowhere.example/h', { resolve }),
        checkUrl('https://x.example/h', { resolve: failing }),
      ].map((p) =>
        p.then(
          () => 'accepted',
          (err: Error) => err.message,
        ),
      ),
    );
    expect(messages).toEqual([UNIFORM_REFUSAL, UNIFORM_REFUSAL, UNIFORM_REFUSAL]);
    for (const m of messages) expect(m).not.toMatch(/10\.1\.2\.3|does not resolve|not a public address|internal\.example|nowhere/);
  });

  it('refuses hostnames that resolve to a non-public address, and IP literals that are one', async () => {
    const dnsOf =
      (answers: Record<string, string[]>): Resolve =>
      async (host) =>
        (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const resolve = dnsOf({
      'ok.example': ['93.184.215.14'],
      'sneaky.example': ['93.184.215.14', '10.0.0.7'],
      'meta.example': ['169.254.169.254'],
      'six.example': ['::ffff:192.168.0.1'],
    });
    expect(await checkUrl('https://ok.example/h', { resolve })).toMatchObject({ address: '93.184.215.14', family: 4 });
    await expect(checkUrl('https://sneaky.example/h', { resolve })).rejects.toThrow(UNIFORM_REFUSAL);
    await expect(checkUrl('https://meta.example/h', { resolve })).rejects.toThrow(UnsafeUrlError);
    await expect(checkUrl('https://six.example/h', { resolve })).rejects.toThrow(UnsafeUrlError);
    await expect(checkUrl('https://nowhere.example/h', { resolve })).rejects.toThrow(UNIFORM_REFUSAL);
    await expect(checkUrl('https://127.0.0.1/h', { resolve })).rejects.toThrow(UNIFORM_REFUSAL);
    await expect(checkUrl('https://[::1]/h', { resolve })).rejects.toThrow(UNIFORM_REFUSAL);
    expect((await checkUrl('http://127.0.0.1:9/h', { resolve, allowInsecure: true })).address).toBe('127.0.0.1');
  });

  it('connects to the address it checked even when the name later resolves elsewhere', async () => {
    let answer = '93.184.215.14';
    const resolve: Resolve = async () => [{ address: answer, family: 4 }];
    const checked = await checkUrl('https://rebind.example/h', { resolve });
    answer = '127.0.0.1'; // the DNS answer changes between check and connect
    const lookup = pinnedLookup(checked);
    const one = await new Promise<string>((r) => lookup('rebind.example', {}, (_e, address) => r(address as string)));
    const all = await new Promise<unknown>((r) => lookup('rebind.example', { all: true }, (_e, address) => r(address)));
    expect(one).toBe('93.184.215.14');
    expect(all).toEqual([{ address: '93.184.215.14', family: 4 }]);
  });
});
