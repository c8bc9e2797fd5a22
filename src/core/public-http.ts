import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../common/config.js';
import type { Logger } from '../common/log.js';
import { serverTimeouts } from '../common/server-timeouts.js';
import { listenAddress } from '../common/listen-address.js';

/** A role's share of the public port: the requests it answers. */
export interface PublicRoute {
  matches(pathname: string): boolean;
  handle(req: http.IncomingMessage, res: http.ServerResponse): void;
}

/**
 * The public port (PORT) of a process, shared by the roles that answer on it: the api role's app
 * answers whatever no other role claims; the stream role claims its stream path. It listens when the
 * first role asks, and stops accepting once for all of them.
 */
export class PublicHttp {
  private readonly routes: PublicRoute[] = [];
  private fallback: http.RequestListener | undefined;
  private server: http.Server | undefined;
  private listening: Promise<string> | undefined;
  private closing: Promise<void> | undefined;
  private closeAfterResponse = false;

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
  ) {}

  route(route: PublicRoute): void {
    this.routes.push(route);
  }

  /** Answers every request no route claims (the api role's express app). */
  setFallback(listener: http.RequestListener): void {
    this.fallback = listener;
  }

  get httpServer(): http.Server | undefined {
    return this.server;
  }

  /** Listens on HOST:PORT (once); the URL people reach it at. */
  listen(): Promise<string> {
    this.listening ??= (async () => {
      const server = http.createServer(serverTimeouts(this.config), (req, res) => this.dispatch(req, res));
      server.keepAliveTimeout = 65_000;
      server.on('clientError', answerClientError);
      // An `Expect` other than 100-continue: Node would answer a bare 417 without a body.
      server.on('checkExpectation', answerExpectation);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.config.port, this.config.host, () => resolve());
      });
      this.server = server;
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : this.config.port;
      const { address: bound, url } = listenAddress(this.config.host, port);
      this.log.info({ address: bound, url, swagger: `${url}/swaggerui` }, 'listening');
      return url;
    })();
    return this.listening;
  }

  /** From now on every response closes its connection: clients reconnect (through the Service, elsewhere). */
  closeConnectionsAfterResponse(): void {
    this.closeAfterResponse = true;
  }

  /** Stops accepting; in-flight requests finish, connections still open after the window are cut. */
  stopAccepting(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    this.closing ??= (async () => {
      this.log.info('shutting down: draining in-flight requests');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), this.config.shutdownTimeoutMs);
      timer.unref();
      await closed;
      clearTimeout(timer);
    })();
    return this.closing;
  }

  private dispatch(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.closeAfterResponse) res.setHeader('connection', 'close');
    const pathname = (req.url ?? '/').split('?')[0]!;
    const route = this.routes.find((r) => r.matches(pathname));
    if (route) return route.handle(req, res);
    if (this.fallback) return this.fallback(req, res);
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error: 'Not found', code: 'not_found' }));
  }
}

/**
 * A request whose `Expect` header asks for something other than `100-continue` (RFC 9110 §10.1.1: the
 * server may answer 417): answered 417 in the API's JSON error shape instead of Node's bare status
 * line, before any route sees it, and the request is not processed.
 */
function answerExpectation(_req: http.IncomingMessage, res: http.ServerResponse): void {
  const body = JSON.stringify({ error: 'Only the expectation 100-continue is supported', code: 'expectation_failed' });
  res.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

/**
 * Requests Node's HTTP parser rejects (request head over 16 KiB, malformed request line) never reach
 * a role: answer them with the same JSON error shape instead of Node's bare status line.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // As Node's own handler: answer only when no in-flight response has started on this socket.
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'header_too_large', 'Request line or headers too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'request_timeout', 'Request timeout']
        : [400, 'Bad Request', 'bad_request', 'Malformed HTTP request'];
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
