/**
 * What a server listening on `host:port` logs: `address`, what it is bound to (`[::]:8080` for IPv6),
 * and `url`, where this machine reaches it (loopback for the all-interfaces hosts).
 */
export function listenAddress(host: string, port: number): { address: string; url: string } {
  const bracketed = (h: string) => (h.includes(':') ? `[${h}]` : h);
  const local = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return { address: `${bracketed(host)}:${port}`, url: `http://${bracketed(local)}:${port}` };
}

/**
 * Refuses early when a port this process will listen on is already taken, so that a second `demo` or
 * `serve` says so before it starts the database, migrates or issues keys. Port 0 (any free port) is
 * always available. The check binds and releases at once; the real listen comes later.
 */
export async function assertPortsFree(ports: readonly { name: string; host: string; port: number }[]): Promise<void> {
  const { createServer } = await import('node:net');
  for (const { name, host, port } of ports) {
    if (port === 0) continue;
    const taken = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      const probe = createServer();
      probe.once('error', (err: NodeJS.ErrnoException) => resolve(err));
      probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
    });
    if (taken?.code === 'EADDRINUSE') {
      throw new Error(`${listenAddress(host, port).address} is already in use (is another mapintel running?): stop it or set ${name} to another port`);
    }
    if (taken) throw new Error(`cannot listen on ${listenAddress(host, port).address} (${name}): ${taken.message}`);
  }
}
