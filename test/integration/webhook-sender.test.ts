/**
 * One delivery attempt against real receivers on loopback: the connection goes to the address that was
 * checked whatever the name resolves to at connect time, non-public answers are refused before any
 * byte is sent, redirects are not followed, and failures are classified.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSender } from '../../src/webhooks/sender.js';
import type { Resolve } from '../../src/webhooks/url-guard.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { freePort } from '../support/redis-server.js';
import { within } from '../support/wait.js';

const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I=';
const request = (url: string) => ({ url, secret: SECRET, body: '{"id":"x"}', eventId: '01JAAAAAAAAAAAAAAAAAAAAAAA', eventType: 'add_system', attempt: 1 });

describe('webhook sender', () => {
  let port: number;
  let a: Receiver; // 127.0.0.1: where "localhost" resolves
  let b: Receiver; // 127.0.0.2: the address the check saw

  beforeAll(async () => {
    port = await freePort();
    a = await startReceiver({ host: '127.0.0.1', port, secrets: [SECRET] });
    b = await startReceiver({ host: '127.0.0.2', port, secrets: [SECRET] });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('connects to the checked address even when the name resolves elsewhere at connect time', async () => {
    const resolve: Resolve = async () => [{ address: '127.0.0.2', family: 4 }];
    const sender = new WebhookSender({ timeoutMs: 2_000, allowInsecure: true, resolve });
    const r = await sender.send(request(`http://localhost:${port}/hook`));
    sender.close();
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(b.received).toHaveLength(1);
    expect(a.received).toHaveLength(0);
    expect(b.received[0]!.headers.host).toBe(`localhost:${port}`);
    expect(b.received[0]!.verified).toBe(true);
  });

  it('refuses a name that resolves to a non-public address before sending anything', async () => {
    for (const answer of ['127.0.0.1', '10.0.0.5', '169.254.169.254', '100.64.1.1', '::1', 'fd00::1', '::ffff:127.0.0.1']) {
      const resolve: Resolve = async () => [{ address: answer, family: answer.includes(':') ? 6 : 4 }];
      const sender = new WebhookSender({ timeoutMs: 2_000, allowInsecure: false, resolve });
      const r = await sender.send(request(`https://hooks.example:${port}/hook`));
      expect(r, answer).toMatchObject({ ok: false, status: null, errorClass: 'refused_url' });
      // Never the address it resolved to (nor whether it resolved): one message for every refusal.
      expect(r.error).not.toContain(answer);
      expect(r.error).toBe('URL refused: must name a host that resolves to public addresses only');
    }
    // A name that answers public and private addresses is refused too (any one private address).
    const mixed: Resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect((await new WebhookSender({ timeoutMs: 2_000, allowInsecure: false, resolve: mixed }).send(request(`https://hooks.example/hook`))).errorClass).toBe(
      'refused_url',
    );
    expect(a.received).toHaveLength(0);
  });

  it('does not follow redirects, times out, and tells connection failures apart', async () => {
    const sender = new WebhookSender({ timeoutMs: 300, allowInsecure: true });
    // The slow answer never comes (the receiver drops it when it closes).
    b.reply = ({ count }) =>
      count === 2 ? { status: 302, headers: { location: `http://127.0.0.1:${port}/elsewhere` } } : { status: 200, hold: new Promise(() => undefined) };
    const redirected = await sender.send(request(`http://127.0.0.2:${port}/hook`));
    expect(redirected).toMatchObject({ ok: false, status: 302, errorClass: 'http_other' });
    expect(a.received).toHaveLength(0);
    // Ended by the timeout, not by the answer (which never comes: without the timeout the send would
    // wait for good); a busy machine may add seconds.
    const slow = await within(sender.send(request(`http://127.0.0.2:${port}/hook`)), 10_000, 'the send ended by its 300 ms timeout');
    expect(slow).toMatchObject({ ok: false, status: null, errorClass: 'timeout' });
    expect(slow.durationMs).toBeGreaterThanOrEqual(290);
    expect(slow.durationMs).toBeLessThan(10_000);
    const closed = await freePort();
    const refused = await sender.send(request(`http://127.0.0.1:${closed}/hook`));
    expect(refused).toMatchObject({ ok: false, status: null, errorClass: 'connect' });
    expect(refused.error).toContain('ECONNREFUSED');
    sender.close();
  });

  it('reads 429/503 Retry-After and flags 410', async () => {
    const sender = new WebhookSender({ timeoutMs: 2_000, allowInsecure: true });
    a.reply = ({ count }) => (count === 1 ? { status: 429, headers: { 'retry-after': '7' } } : { status: 410 });
    const limited = await sender.send(request(`http://127.0.0.1:${port}/hook`));
    expect(limited).toMatchObject({ ok: false, status: 429, errorClass: 'http_4xx', retryAfterMs: 7_000, gone: false });
    const gone = await sender.send(request(`http://127.0.0.1:${port}/hook`));
    expect(gone).toMatchObject({ ok: false, status: 410, errorClass: 'http_410', gone: true });
    sender.close();
  });

  it('POSTs the exact body with the headers of decisions §7 and nothing of the HTTP client beyond the transport', async () => {
    const sender = new WebhookSender({ timeoutMs: 2_000, allowInsecure: true });
    b.reply = () => ({ status: 200 });
    const before = b.received.length;
    const req = { ...request(`http://127.0.0.2:${port}/exact`), body: '{"id":"x","payload":{"name":"Jita ✓"}}', attempt: 3 };
    const r = await sender.send(req);
    sender.close();
    expect(r).toMatchObject({ ok: true, status: 200, errorClass: null, error: null, gone: false });
    const got = b.received[before]!;
    expect(got.body).toBe(req.body);
    expect(got.verified).toBe(true);
    expect(Object.keys(got.headers).sort()).toEqual(
      [
        'accept-encoding',
        'connection',
        'content-length',
        'content-type',
        'host',
        'user-agent',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
        'x-service-delivery-attempt',
        'x-service-event-id',
        'x-service-event-type',
        'x-service-signature',
        'x-service-timestamp',
      ].sort(),
    );
    expect(got.headers).toMatchObject({
      'accept-encoding': 'identity',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(req.body)),
      connection: 'keep-alive',
      'x-service-delivery-attempt': '3',
      'x-service-event-id': req.eventId,
      'x-service-event-type': req.eventType,
      'webhook-id': req.eventId,
      'webhook-timestamp': got.headers['x-service-timestamp'],
    });
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(got.headers['user-agent']).toMatch(/^mapintel-webhooks\/\d/);
    expect(Number(got.headers['x-service-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
  });

  it('never goes through a proxy named by the environment (HTTP_PROXY, HTTPS_PROXY, NODE_USE_ENV_PROXY)', async () => {
    // A "proxy" on loopback: counts connections, answers 502 to anything (CONNECT included).
    let proxied = 0;
    const proxy = http.createServer((_req, res) => res.writeHead(502).end());
    proxy.on('connection', () => proxied++);
    proxy.on('connect', (_req, socket) => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const names = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy', 'NODE_USE_ENV_PROXY'];
    const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
    Object.assign(process.env, { HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, HTTPS_PROXY: proxyUrl, https_proxy: proxyUrl, NODE_USE_ENV_PROXY: '1' });
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    // A plain TCP listener for the https URL: a direct connection reaches it (and the handshake fails).
    let direct = 0;
    const tcp = net.createServer((socket) => {
      direct++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.2', resolve));
    const tlsPort = (tcp.address() as AddressInfo).port;
    try {
      const resolve: Resolve = async () => [{ address: '127.0.0.2', family: 4 }];
      const sender = new WebhookSender({ timeoutMs: 2_000, allowInsecure: true, resolve });
      const before = b.received.length;
      const plain = await sender.send(request(`http://hooks.example:${port}/hook`));
      const tls = await sender.send(request(`https://hooks.example:${tlsPort}/hook`));
      sender.close();
      expect(plain).toMatchObject({ ok: true, status: 200 });
      expect(b.received.length).toBe(before + 1);
      expect(b.received.at(-1)!.verified).toBe(true);
      expect(tls).toMatchObject({ ok: false, status: null });
      expect(['tls', 'connect']).toContain(tls.errorClass);
      expect(direct).toBe(1);
      expect(proxied).toBe(0);
    } finally {
      for (const n of names) {
        if (saved[n] === undefined) delete process.env[n];
        else process.env[n] = saved[n];
      }
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('speaks TLS to an https URL through its own agent, and tells a certificate it cannot trust apart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-webhook-tls-'));
    try {
      execFileSync(
        'openssl',
        ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=hooks.example'],
        { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let connections = 0;
      let requests = 0;
      const server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (_req, res) => {
        requests++;
        res.end('ok');
      });
      server.on('connection', () => connections++);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.3', resolve));
      const tlsPort = (server.address() as AddressInfo).port;
      try {
        const resolve: Resolve = async () => [{ address: '127.0.0.3', family: 4 }];
        const sender = new WebhookSender({ timeoutMs: 2_000, allowInsecure: true, resolve });
        const r = await sender.send(request(`https://hooks.example:${tlsPort}/hook`));
        sender.close();
        // A self-signed certificate: the handshake reached the server and failed on trust, no request was made.
        expect(r).toMatchObject({ ok: false, status: null, errorClass: 'tls', gone: false });
        expect(r.error).toMatch(/^TLS failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)$/);
        expect(connections).toBe(1);
        expect(requests).toBe(0);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts an answer the receiver cuts short (a reset, or a close before its Content-Length) as a failure', async () => {
    const server = net.createServer((socket) => {
      let head = '';
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n') || !head.includes('{"id":"x"}')) return;
        const path = head.split(' ')[1];
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100\r\n\r\n1234567', () => {
          if (path === '/reset') socket.resetAndDestroy();
          else if (path === '/close') socket.end();
        });
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.5', resolve));
    const base = `http://127.0.0.5:${(server.address() as AddressInfo).port}`;
    const sender = new WebhookSender({ timeoutMs: 5_000, allowInsecure: true });
    try {
      for (const path of ['/reset', '/close']) {
        const r = await sender.send(request(`${base}${path}`));
        expect(r, path).toMatchObject({ ok: false, status: 200, errorClass: 'connect', gone: false });
        expect(r.error, path).toBe('receiver answered 200, then the connection ended after 7 of 100 bytes of the body');
      }
    } finally {
      sender.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('reads at most 64 KB of an answer, ends an answer whose body stalls at the deadline, and goes on sending', async () => {
    const bodies: string[] = [];
    let bigFinished = false;
    let bigClosed = false;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        bodies.push(req.url!);
        if (req.url === '/stall') {
          // The status and a first chunk in time, then nothing more.
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('partial');
        } else if (req.url === '/big') {
          // 64 MB, written as fast as the client reads: far more than loopback buffers hold.
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          res.on('finish', () => (bigFinished = true));
          res.on('close', () => (bigClosed = true));
          const chunk = Buffer.alloc(16_384, 120);
          let n = 0;
          const write = (): void => {
            while (n < 4_096) {
              n++;
              if (!res.write(chunk)) return void res.once('drain', write);
            }
            res.end();
          };
          write();
        } else res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.4', resolve));
    const base = `http://127.0.0.4:${(server.address() as AddressInfo).port}`;
    // Long enough for a busy machine to read the status line; a body that never ends would take all of it.
    const sender = new WebhookSender({ timeoutMs: 3_000, allowInsecure: true });
    try {
      const big = await sender.send(request(`${base}/big`));
      expect(big).toMatchObject({ ok: true, status: 200, errorClass: null });
      expect(big.durationMs).toBeLessThan(3_000);
      // The client stopped reading and dropped the connection: the 64 MB were never all written.
      await expect.poll(() => bigClosed).toBe(true);
      expect(bigFinished).toBe(false);
      // The status came in time: a body that stops coming costs the connection, not the success (without
      // the deadline the send would wait for the rest for good).
      const stalled = await within(sender.send(request(`${base}/stall`)), 13_000, 'the stalled answer ended at the 3 s deadline');
      expect(stalled).toMatchObject({ ok: true, status: 200, errorClass: null });
      expect(stalled.durationMs).toBeGreaterThanOrEqual(2_990);
      expect(stalled.durationMs).toBeLessThan(13_000);
      const after = await sender.send(request(`${base}/after`));
      expect(after).toMatchObject({ ok: true, status: 200 });
      expect(bodies).toEqual(['/big', '/stall', '/after']);
    } finally {
      sender.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
