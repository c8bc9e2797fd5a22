import type { ServerOptions } from 'node:http';
import type { Config } from './config.js';

/**
 * How long a client may take to send a request: headers and body within `requestTimeoutMs`, else Node
 * answers through the server's `clientError` handler (408 JSON) and closes the socket. Node's defaults
 * (300 s for a request) let a client that trickles a body hold a socket for five minutes.
 */
export function serverTimeouts(config: Pick<Config, 'requestTimeoutMs'>): ServerOptions {
  const requestTimeout = config.requestTimeoutMs;
  return {
    requestTimeout,
    headersTimeout: Math.min(requestTimeout, 60_000),
    // Node looks for expired requests on this interval (30 s by default), which would stretch a short
    // timeout by up to that much; a pass over the open connections is cheap.
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(requestTimeout / 10))),
  };
}
