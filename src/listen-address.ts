/**
 * What a server listening on `host:port` logs: `address`, what it is bound to (`[::]:8080` for IPv6),
 * and `url`, where this machine reaches it (loopback for the all-interfaces hosts).
 */
export function listenAddress(host: string, port: number): { address: string; url: string } {
  const bracketed = (h: string) => (h.includes(':') ? `[${h}]` : h);
  const local = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return { address: `${bracketed(host)}:${port}`, url: `http://${bracketed(local)}:${port}` };
}
