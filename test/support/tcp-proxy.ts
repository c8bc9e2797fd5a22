/**
 * A loopback TCP proxy in front of a real server (PostgreSQL by default) that can stall: it stops
 * forwarding bytes in both directions while keeping every socket open, like a database that hangs or
 * a network path that silently drops packets. Half-closes are not passed on while stalled either, so
 * a client's goodbye goes unanswered too.
 */
import net from 'node:net';

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  /** Bytes (or an end, as null) held back while stalled, per direction. */
  toUpstream: (Buffer | null)[];
  toClient: (Buffer | null)[];
  /** Opened before resume({ strand: true }): stays stalled for good. */
  stranded: boolean;
  /** The client side closed (sent FIN or went away). */
  clientGone: boolean;
}

export class TcpProxy {
  port = 0;
  /** Connections accepted so far. */
  accepted = 0;
  /** Connections the client side closed while they were stalled. */
  closedWhileStalled = 0;
  private stalled = false;
  private server: net.Server | undefined;
  private readonly pairs = new Set<Pair>();

  constructor(private readonly target: { host: string; port: number } = { host: '127.0.0.1', port: 5432 }) {}

  /** A connection string of `url` with its host and port replaced by the proxy's. */
  url(url: string): string {
    const u = new URL(url);
    u.host = `127.0.0.1:${this.port}`;
    return u.toString();
  }

  /** Connections whose client side is still open. */
  get open(): number {
    return [...this.pairs].filter((p) => !p.clientGone).length;
  }

  async start(): Promise<void> {
    // allowHalfOpen: a client's FIN is forwarded (or held back while stalled), never answered by us.
    const server = net.createServer({ allowHalfOpen: true }, (client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Stops forwarding on every connection, open or new; sockets stay open. */
  stall(): void {
    this.stalled = true;
  }

  /**
   * Forwards again, what was held back first. With `strand`, connections open now stay stalled for
   * good (the old path is gone, as after a failover) and only new connections reach the server.
   */
  resume(opts: { strand?: boolean } = {}): void {
    this.stalled = false;
    for (const pair of this.pairs) {
      if (opts.strand) {
        pair.stranded = true;
        if (pair.clientGone) pair.upstream.destroy();
        continue;
      }
      if (pair.stranded) continue;
      flush(pair.toUpstream, pair.upstream);
      flush(pair.toClient, pair.client);
    }
  }

  /** Closes the listener and destroys every connection. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    this.accepted++;
    const upstream = net.connect({ ...this.target, allowHalfOpen: true });
    const pair: Pair = { client, upstream, toUpstream: [], toClient: [], stranded: false, clientGone: false };
    this.pairs.add(pair);
    const held = () => this.stalled || pair.stranded;
    const relay = (from: net.Socket, to: net.Socket, queue: (Buffer | null)[]) => {
      from.on('data', (chunk: Buffer) => (held() ? queue.push(chunk) : to.write(chunk)));
      from.on('end', () => (held() ? queue.push(null) : to.end()));
    };
    relay(client, upstream, pair.toUpstream);
    relay(upstream, client, pair.toClient);
    const clientGone = () => {
      if (pair.clientGone) return;
      pair.clientGone = true;
      if (held()) this.closedWhileStalled++;
      // A stranded server session learns of a vanished client the way its keepalive would.
      if (pair.stranded) upstream.destroy();
    };
    const cut = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) s.on('error', () => s.destroy());
    client.on('end', clientGone);
    client.on('close', () => {
      clientGone();
      cut();
    });
    upstream.on('close', cut);
  }
}

function flush(queue: (Buffer | null)[], to: net.Socket): void {
  for (const chunk of queue.splice(0)) {
    if (chunk === null) to.end();
    else to.write(chunk);
  }
}
