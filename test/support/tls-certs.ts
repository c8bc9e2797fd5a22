/**
 * A throwaway CA and a server certificate it signed (openssl, EC P-256), for tests of TLS to a
 * PostgreSQL or Redis of their own. The server certificate names `localhost` only (not 127.0.0.1), so a
 * connection to 127.0.0.1 fails a host name check and passes a chain-only one.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCerts {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  /** Another CA's certificate, which did not sign the server's. */
  otherCaFile: string;
  ca(): string;
  remove(): void;
}

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-tls-'));
  const f = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  for (const ca of ['ca', 'other-ca']) {
    ssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', f(`${ca}.key`));
    ssl('req', '-x509', '-new', '-key', f(`${ca}.key`), '-subj', `/CN=mapintel test ${ca}`, '-days', '2', '-out', f(`${ca}.crt`));
  }
  ssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', f('server.key'));
  ssl('req', '-new', '-key', f('server.key'), '-subj', '/CN=localhost', '-out', f('server.csr'));
  writeFileSync(f('ext.cnf'), 'subjectAltName = DNS:localhost\n');
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('ext.cnf'),
    '-out',
    f('server.crt'),
  );
  chmodSync(dir, 0o755);
  for (const name of ['ca.crt', 'other-ca.crt', 'server.crt']) chmodSync(f(name), 0o644);
  chmodSync(f('server.key'), 0o600);
  return {
    dir,
    caFile: f('ca.crt'),
    certFile: f('server.crt'),
    keyFile: f('server.key'),
    otherCaFile: f('other-ca.crt'),
    ca: () => readFileSync(f('ca.crt'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
