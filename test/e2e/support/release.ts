/**
 * The release under test: its values (host PostgreSQL and Redis through the node IP, the image built
 * from the Dockerfile, three stream replicas), the in-cluster webhook receiver (HTTPS, a certificate
 * of the cluster's CA, trusted by the pods through the chart's extraCACertificates), and the REST API
 * reached through the api Service.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN, DATABASE, FULLNAME, IMAGE, NAMESPACE, NODE_IP, PKI, REDIS_PREFIX, apply, clusterIP, kubectl, until } from './cluster.js';

export const RECEIVER_IP = '10.96.0.200';
export const RECEIVER_CA_CONFIGMAP = 'e2e-receiver-ca';
const [repository, tag] = IMAGE.split(/:(?=[^:/]+$)/) as [string, string];

export function releaseValues(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    image: { repository, tag, pullPolicy: 'Never' },
    database: { url: `postgres://postgres@${NODE_IP}:15432/${DATABASE}` },
    redis: { url: `redis://${NODE_IP}:16379`, keyPrefix: REDIS_PREFIX },
    secrets: { encryptionKey: Buffer.alloc(32, 9).toString('base64'), adminToken: ADMIN_TOKEN },
    env: {
      // The receiver is a ClusterIP (a private address); the checks connect far more often than a client would.
      SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
      SERVICE_RATE_LIMIT_PER_MINUTE: '100000',
    },
    extraCACertificates: { configMap: RECEIVER_CA_CONFIGMAP, key: 'ca.crt' },
    stream: { replicas: 3 },
    ...overrides,
  };
}

/** Writes values to a file for `helm -f` (JSON is YAML). */
export function valuesFile(values: Record<string, unknown>): { file: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'mapintel-e2e-values-'));
  const file = path.join(dir, 'values.json');
  writeFileSync(file, JSON.stringify(values));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const RECEIVER_JS = `
import https from 'node:https';
import { readFileSync } from 'node:fs';
const got = [];
let delayMs = 0;
https.createServer({ cert: readFileSync('/tls/tls.crt'), key: readFileSync('/tls/tls.key') }, (req, res) => {
  if (req.method === 'GET' && req.url === '/deliveries') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(got));
    return;
  }
  if (req.method === 'PUT' && req.url.startsWith('/delay/')) {
    delayMs = Number(req.url.slice('/delay/'.length)) || 0;
    res.statusCode = 204;
    res.end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    got.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    setTimeout(() => {
      res.statusCode = 204;
      res.end();
    }, delayMs);
  });
}).listen(8443, () => console.log('receiver listening on 8443'));
`;

/** The namespace, the CA ConfigMap the chart mounts, and the HTTPS receiver (Deployment + Service). */
export async function createNamespaceAndReceiver(): Promise<void> {
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  const dir = mkdtempSync(path.join(tmpdir(), 'mapintel-e2e-tls-'));
  try {
    const sh = (cmd: string) => execFileSync('bash', ['-c', cmd], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    sh('openssl ecparam -name prime256v1 -genkey -noout -out tls.key 2>/dev/null');
    sh(`openssl req -new -key tls.key -subj /CN=receiver -out tls.csr`);
    writeFileSync(path.join(dir, 'ext'), `subjectAltName=IP:${RECEIVER_IP},DNS:receiver.${NAMESPACE}.svc\nextendedKeyUsage=serverAuth\n`);
    sh(`openssl x509 -req -in tls.csr -CA ${PKI}/ca.crt -CAkey ${PKI}/ca.key -CAcreateserial -CAserial serial -days 2 -extfile ext -out tls.crt 2>/dev/null`);
    const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
    await apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: RECEIVER_CA_CONFIGMAP, namespace: NAMESPACE },
        data: { 'ca.crt': readFileSync(`${PKI}/ca.crt`, 'utf8') },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'receiver-tls', namespace: NAMESPACE },
        type: 'kubernetes.io/tls',
        stringData: { 'tls.crt': read('tls.crt'), 'tls.key': read('tls.key') },
      },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'receiver-js', namespace: NAMESPACE }, data: { 'receiver.mjs': RECEIVER_JS } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'receiver', namespace: NAMESPACE },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'receiver' } },
          template: {
            metadata: { labels: { app: 'receiver' } },
            spec: {
              automountServiceAccountToken: false,
              securityContext: { runAsNonRoot: true, runAsUser: 10001 },
              containers: [
                {
                  name: 'receiver',
                  image: IMAGE,
                  imagePullPolicy: 'Never',
                  command: ['node', '/receiver/receiver.mjs'],
                  ports: [{ name: 'https', containerPort: 8443 }],
                  readinessProbe: { tcpSocket: { port: 8443 }, periodSeconds: 1 },
                  volumeMounts: [
                    { name: 'js', mountPath: '/receiver' },
                    { name: 'tls', mountPath: '/tls' },
                  ],
                },
              ],
              volumes: [
                { name: 'js', configMap: { name: 'receiver-js' } },
                { name: 'tls', secret: { secretName: 'receiver-tls' } },
              ],
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'receiver', namespace: NAMESPACE },
        spec: { clusterIP: RECEIVER_IP, selector: { app: 'receiver' }, ports: [{ name: 'https', port: 443, targetPort: 'https' }] },
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Delivery {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What the in-cluster receiver got so far, read through its Service with the cluster CA. */
export function receiverDeliveries(): Promise<Delivery[]> {
  return new Promise((resolve, reject) => {
    const req = https.get(`https://${RECEIVER_IP}/deliveries`, { ca: readFileSync(`${PKI}/ca.crt`), timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery[]);
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('receiver timed out')));
  });
}

/** Makes the receiver answer each delivery `ms` after it arrived (recorded at once); 0 again by default. */
export function setReceiverDelay(ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = https.request(`https://${RECEIVER_IP}/delay/${ms}`, { method: 'PUT', ca: readFileSync(`${PKI}/ca.crt`), timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`receiver delay: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('receiver timed out')));
    req.end();
  });
}

let apiBase = '';
export async function apiUrl(): Promise<string> {
  apiBase ||= `http://${await clusterIP(`${FULLNAME}-api`)}`;
  return apiBase;
}

/** A request to the REST API through the api Service; JSON in and out. */
export async function api(method: string, urlPath: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${await apiUrl()}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: any = text;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, json };
}

/** A character, a map it owns and `keyCount` map keys (the first from the map's creation). */
export async function makeMapWithKeys(slug: string, keyCount: number): Promise<{ mapId: string; keys: string[]; owner: string }> {
  const owner = String(2_110_000_000 + Math.floor(Math.random() * 1_000_000));
  const c = await api('PUT', '/api/admin/characters', ADMIN_TOKEN, {
    eve_id: owner,
    name: `E2E ${owner}`,
    corporation_id: '98000001',
    corporation_ticker: 'E2E',
  });
  if (c.status >= 300) throw new Error(`upsert character: ${c.status} ${JSON.stringify(c.json)}`);
  const m = await api('POST', '/api/admin/maps', ADMIN_TOKEN, { slug, name: `E2E ${slug}`, owner_eve_id: owner });
  if (m.status !== 201) throw new Error(`create map: ${m.status} ${JSON.stringify(m.json)}`);
  const keys = [m.json.data.api_key.api_key as string];
  while (keys.length < keyCount) {
    const k = await api('POST', `/api/admin/maps/${slug}/keys`, ADMIN_TOKEN, { character_eve_id: owner });
    if (k.status !== 201) throw new Error(`issue key: ${k.status} ${JSON.stringify(k.json)}`);
    keys.push(k.json.data.api_key as string);
  }
  return { mapId: m.json.data.map.id as string, keys, owner };
}

/** Waits until every pod of the receiver is Ready. */
export async function receiverReady(): Promise<void> {
  await until(
    'receiver ready',
    180_000,
    async () => (await kubectl(['-n', NAMESPACE, 'get', 'deploy', 'receiver', '-o', 'jsonpath={.status.readyReplicas}'])).trim() === '1',
  );
}
