/**
 * Webhook URLs may reach only the public internet (decisions §7): `https`, at most 2000 characters, and
 * every address the host resolves to public unicast. Checked on create, on update and on every
 * delivery; the delivery connects to the address that was checked (a DNS answer that changes between
 * the check and the connect cannot send it elsewhere). `SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS` lifts
 * the rules for development and tests only.
 */
import dns from 'node:dns/promises';
import net from 'node:net';

export const URL_MAX_LENGTH = 2000;

// One list per family: a BlockList also matches IPv4 addresses against IPv4-mapped IPv6 rules.
const blocked4 = new net.BlockList();
const blocked6 = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked4.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::ffff:0:0', 96], // IPv4-mapped
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64 (embeds IPv4)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds IPv4)
  ['fc00::', 7], // unique local (cloud metadata fd00:ec2::254 among them)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked6.addSubnet(prefix, bits, 'ipv6');
}

/** True when the address is public unicast. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  return family === 4 ? !blocked4.check(address, 'ipv4') : !blocked6.check(address, 'ipv6');
}

export type Resolve = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

const systemResolve: Resolve = async (host) =>
  (await dns.lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));

/** What a refusal of an `http` or non-public receiver adds, for the developer trying a local one. */
export const INSECURE_URLS_HINT = 'a server with SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS=true allows http and local or private receivers (for development only)';

export class UnsafeUrlError extends Error {
  /**
   * @param insecureSettingAllows the URL would pass with `SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS=true` (an
   * `http` URL, or a host that is not public), so the refusal can point a developer there.
   */
  constructor(
    message: string,
    readonly insecureSettingAllows = false,
  ) {
    super(message);
  }
}

/** A URL that passed the checks, with the address a delivery must connect to. */
export interface CheckedUrl {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Spaces and control characters, which the URL parser would drop or encode silently. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const UNSAFE_CHARACTERS = /[\u0000-\u0020\u007f-\u009f]/;

/**
 * A URL given on create or update, in the form it is stored and compared in: surrounding whitespace
 * trimmed, then as the URL parser writes it (scheme and host lower-case, the default port dropped, the
 * path percent-encoded) without the fragment, which is never sent, so two spellings of one endpoint are
 * one URL per map. Refuses text that is no absolute URL, and spaces or control characters inside, which
 * the parser would drop or encode silently.
 */
export function givenUrl(text: string): string {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new UnsafeUrlError('must be an absolute URL');
  }
  if (UNSAFE_CHARACTERS.test(trimmed)) throw new UnsafeUrlError('must not contain spaces or control characters (percent-encode them)');
  url.hash = '';
  return url.href;
}

/** `givenUrl`'s form, for comparing; text it refuses is returned trimmed (the checks refuse it later). */
export function canonicalUrl(text: string): string {
  try {
    return givenUrl(text);
  } catch {
    return text.trim();
  }
}

/** The URL's own rules, without DNS (what create and update check before resolving). */
export function checkUrlShape(text: string, allowInsecure = false): URL {
  if (text.length > URL_MAX_LENGTH) throw new UnsafeUrlError(`must be at most ${URL_MAX_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UnsafeUrlError('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) throw new UnsafeUrlError('must use https', url.protocol === 'http:');
  if (url.username || url.password) throw new UnsafeUrlError('must not carry credentials');
  if (!url.hostname) throw new UnsafeUrlError('must name a host');
  return url;
}

/**
 * The one refusal of a host that does not resolve or resolves to an address that is not public. It
 * names neither the address nor which of the two it was: a key holder could otherwise map a cluster's
 * internal names (which exist, and where they point) through the refusals.
 */
export const NOT_PUBLIC_MESSAGE = 'must name a host that resolves to public addresses only';

/** Checks the URL and every address its host resolves to; returns the address to connect to. */
export async function checkUrl(text: string, opts: { allowInsecure?: boolean; resolve?: Resolve } = {}): Promise<CheckedUrl> {
  const url = checkUrlShape(text, opts.allowInsecure);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = net.isIP(host);
  let addresses: { address: string; family: 4 | 6 }[];
  if (literal) addresses = [{ address: host, family: literal as 4 | 6 }];
  else {
    try {
      addresses = await (opts.resolve ?? systemResolve)(host);
    } catch {
      throw new UnsafeUrlError(NOT_PUBLIC_MESSAGE, true);
    }
  }
  if (addresses.length === 0) throw new UnsafeUrlError(NOT_PUBLIC_MESSAGE, true);
  if (!opts.allowInsecure && addresses.some((a) => !isPublicAddress(a.address))) throw new UnsafeUrlError(NOT_PUBLIC_MESSAGE, true);
  return { url, address: addresses[0]!.address, family: addresses[0]!.family };
}

/**
 * A `lookup` for http(s).Agent that answers with the checked address whatever the name: the
 * connection goes where the check looked (TLS still verifies the certificate against the host name).
 */
export function pinnedLookup(checked: Pick<CheckedUrl, 'address' | 'family'>): net.LookupFunction {
  return ((_host: string, options: unknown, callback?: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      err: Error | null,
      address: string | { address: string; family: number }[],
      family?: number,
    ) => void;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    if (all) cb(null, [{ address: checked.address, family: checked.family }]);
    else cb(null, checked.address, checked.family);
  }) as net.LookupFunction;
}
