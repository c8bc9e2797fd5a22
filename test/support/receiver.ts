/**
 * A webhook receiver on loopback, as an integrator writes one (spec 5 item 9): it verifies the
 * signature in constant time (401 on mismatch), records every request, and answers what the test
 * scripts (status, headers, delay) per request.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { verify } from '../../src/webhooks/signer.js';
import { checkEnvelopeText } from './event-catalog.js';

export interface Received {
  at: number;
  /** When the answer was written (undefined while it is held back, or when the client went away first). */
  answeredAt?: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The signature verified with the receiver's secret(s) at the time. */
  verified: boolean;
  status: number;
  path: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Answer after this long (ms); a value past the sender's timeout makes it time out. */
  delayMs?: number;
  /**
   * Answer once this settles (then after `delayMs`, if set). A test holds a request for exactly as long
   * as its steps take, however slow the machine, instead of guessing a delay.
   */
  hold?: Promise<unknown>;
}

/** A gate for `Reply.hold`: requests given `gate.hold` are answered when `gate.open()` is called. */
export function gate(): { hold: Promise<void>; open(): void } {
  let open!: () => void;
  const hold = new Promise<void>((resolve) => (open = resolve));
  return { hold, open };
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests whose signature verified (the ones a real receiver would accept). */
  accepted(): Received[];
  /** Secrets that verify (the current one; during a test, the new one after a rotation). */
  secrets: string[];
  /** Decides each reply; default 200. */
  reply: (req: { body: string; headers: http.IncomingHttpHeaders; count: number }) => Reply;
  waitFor(n: number, timeoutMs?: number, pred?: (r: Received) => boolean): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(
  opts: {
    host?: string;
    port?: number;
    secrets?: string[];
    /** Serve https with this certificate (PEM). */ tls?: { cert: string | Buffer; key: string | Buffer };
  } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const r: Receiver = {
    url: '',
    received,
    secrets: opts.secrets ?? [],
    accepted: () => received.filter((x) => x.verified && x.status >= 200 && x.status < 300),
    reply: () => ({ status: 200 }),
    async waitFor(n, timeoutMs = 10_000, pred = (x) => x.verified && x.status < 300) {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        const hits = received.filter(pred);
        if (hits.length >= n) return hits;
        await new Promise((res) => setTimeout(res, 20));
      }
      throw new Error(`receiver got ${received.filter(pred).length} of ${n} expected requests in ${timeoutMs} ms (${received.length} in all)`);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const sig = req.headers['x-service-signature'] as string | undefined;
      const ts = req.headers['x-service-timestamp'] as string | undefined;
      const verified = r.secrets.some((s) => verify(s, sig, ts, body));
      checkEnvelopeText(body, `webhook body at ${req.url ?? '/'}`);
      const count = received.length + 1;
      const reply: Reply = verified ? r.reply({ body, headers: req.headers, count }) : { status: 401 };
      const status = reply.status ?? 200;
      const record: Received = { at: Date.now(), headers: req.headers, body, verified, status, path: req.url ?? '/' };
      received.push(record);
      const send = () => {
        if (res.destroyed) return;
        record.answeredAt = Date.now();
        res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify({ ok: status < 300 }));
      };
      const later = () => (reply.delayMs ? setTimeout(send, reply.delayMs) : send());
      if (reply.hold) void reply.hold.then(later, later);
      else later();
    });
  };
  const server = opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : http.createServer(handler);
  server.on(opts.tls ? 'secureConnection' : 'connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((res) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', res));
  const addr = server.address() as AddressInfo;
  r.url = `${opts.tls ? 'https' : 'http'}://${opts.host ?? '127.0.0.1'}:${addr.port}/hook`;
  return r;
}
