/**
 * A scripted stand-in for the Kubernetes API on loopback HTTPS, for the control-loop tests that must
 * run without the Go-built control plane: every request is recorded, and the test's script answers
 * it (a list, a watch stream it writes to by hand, a status code, silence). It speaks only what the
 * operator's client sends; anything unscripted gets a 404 Status, as the apiserver would answer.
 */
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  at: number;
  body: string;
  /** The request's connection closed before an answer (a client that gave up or was cancelled). */
  abandoned: boolean;
}

export type Script = (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

/** A Kubernetes Status body. */
export const status = (code: number, reason: string, message = reason): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });

export function answer(res: ServerResponse, code: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json' }).end(text);
}

/** Opens a watch stream (200, chunked) and returns a writer of its events. */
export function openWatch(res: ServerResponse): { send(type: string, object: unknown): void; end(): void } {
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  res.flushHeaders();
  return {
    send: (type, object) => res.write(`${JSON.stringify({ type, object })}\n`),
    end: () => res.end(),
  };
}

export class FakeApiserver {
  readonly requests: RecordedRequest[] = [];
  script: Script = (_req, res) => answer(res, 404, status(404, 'NotFound'));
  private readonly open = new Set<ServerResponse>();

  private constructor(
    private readonly server: https.Server,
    private readonly dir: string,
  ) {}

  static async start(): Promise<FakeApiserver> {
    const dir = mkdtempSync(path.join(tmpdir(), 'fake-apiserver-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-subj', '/CN=127.0.0.1', '-days', '1'],
      { cwd: dir, stdio: 'ignore' },
    );
    const server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) });
    const fake = new FakeApiserver(server, dir);
    server.on('request', (raw: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      raw.on('data', (c: Buffer) => chunks.push(c));
      raw.on('end', () => {
        const url = new URL(raw.url ?? '/', 'https://127.0.0.1');
        const rec: RecordedRequest = {
          method: raw.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          at: Date.now(),
          body: Buffer.concat(chunks).toString('utf8'),
          abandoned: false,
        };
        fake.requests.push(rec);
        fake.open.add(res);
        res.on('close', () => {
          fake.open.delete(res);
          if (!res.writableFinished) rec.abandoned = true;
        });
        void Promise.resolve(fake.script(rec, res, raw)).catch((err: Error) => {
          if (!res.headersSent) answer(res, 500, status(500, 'InternalError', err.message));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A kubeconfig of an admin token for this server (its certificate is self-signed: not verified). */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'admin', token: 'test-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'admin' }],
      currentContext: 'fake',
    });
    return kc;
  }

  /** Requests so far whose method and path match (watches are GETs with watch=true). */
  seen(method: string, pathPrefix: string, opts: { watch?: boolean } = {}): RecordedRequest[] {
    return this.requests.filter(
      (r) => r.method === method && r.path.startsWith(pathPrefix) && (opts.watch === undefined || (r.query.get('watch') === 'true') === opts.watch),
    );
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
