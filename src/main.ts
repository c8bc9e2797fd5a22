import http from 'node:http';
import type { Config } from './config.js';
import { compose, type Platform } from './compose.js';
import { createApp } from './app.js';
import { closeWithin } from './shutdown.js';

export interface Server {
  platform: Platform;
  server: http.Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to the shutdown timeout), then closes the pools. */
  shutdown(): Promise<void>;
}

/** Builds the platform and listens. Used by `mapintel serve` and `mapintel demo`. */
export async function startServer(config: Config, opts: { platform?: Platform } = {}): Promise<Server> {
  const platform = opts.platform ?? (await compose(config, { migrate: true }));
  const app = createApp(platform.deps);
  platform.relay?.start();
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  platform.log.info({ url, swagger: `${url}/swaggerui` }, 'listening');
  let stopping: Promise<void> | undefined;
  return {
    platform,
    server,
    url,
    shutdown() {
      stopping ??= (async () => {
        const closeBy = Date.now() + config.shutdownTimeoutMs;
        platform.log.info('shutting down: draining in-flight requests');
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
        timer.unref();
        await closed;
        clearTimeout(timer);
        await closeWithin(platform, closeBy);
        platform.log.info('stopped');
      })();
      return stopping;
    },
  };
}

/**
 * Requests Node's HTTP parser rejects (request head over 16 KiB, malformed request line) never reach
 * express: answer them with the same JSON error shape instead of Node's bare status line.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
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

/** SIGTERM/SIGINT: drain and exit. A second signal exits at once. */
export function handleSignals(server: Server): void {
  let signalled = false;
  const onSignal = (signal: string) => {
    if (signalled) process.exit(1);
    signalled = true;
    server.platform.log.info({ signal }, 'signal received');
    server.shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        server.platform.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}
