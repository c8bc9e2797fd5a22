/**
 * The operator's Kubernetes client and cache on a real kube-apiserver: a watch survives a refresh of
 * the credentials (the HTTPS agent is kept while the TLS material is the same bytes); every request
 * names itself (User-Agent) and every write its field manager; a list is read page by page.
 */
import https from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Counter, Registry } from 'prom-client';
import { kubeUnavailable, TestCluster } from '../support/kube.js';
import { eventually } from '../support/operator-harness.js';
import { FIELD_MANAGER, KubeClient, USER_AGENT } from '../../src/operator/kube-client.js';
import { Informer, LIST_PAGE_SIZE, type KubeObject } from '../../src/operator/informer.js';
import { createLogger } from '../../src/common/log.js';

const unavailable = kubeUnavailable(['etcd', 'kube-apiserver', 'kubectl']);
const quiet = createLogger('warn', { write: () => true } as unknown as Parameters<typeof createLogger>[1]);

describe.skipIf(unavailable)('operator Kubernetes client', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start();
    for (const ns of ['kc', 'paged']) cluster.kubectl(['create', 'namespace', ns]);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('keeps its HTTPS agent, and the watches on it, when the credentials are read again with the same bytes', async () => {
    const client = new KubeClient(cluster.kubeConfig(), { credentialsTtlMs: 100 });
    const seen: string[] = [];
    const watch = await client.watch<KubeObject>('/api/v1/namespaces/kc/configmaps', {}, (e) => {
      if (e.type === 'ADDED') seen.push(e.object.metadata.name);
    });
    let ended = false;
    void watch.done.finally(() => (ended = true));
    try {
      // Several refreshes (each reads the kubeconfig's certificates into new Buffers).
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 200));
        await client.get('/api/v1/namespaces/kc');
      }
      expect(client.agentsMade).toBe(1);
      cluster.kubectl(['create', 'configmap', 'after-refresh', '-n', 'kc']);
      await eventually('event on the old watch', () => seen.includes('after-refresh'));
      expect(ended).toBe(false);
    } finally {
      watch.abort();
      client.close();
    }
  });

  it('writes as field manager mapintel-operator and names itself in the User-Agent', async () => {
    const client = new KubeClient(cluster.kubeConfig());
    try {
      await client.create('/api/v1/namespaces/kc/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'managed' }, data: { a: '1' } });
      await client.patch('/api/v1/namespaces/kc/configmaps/managed', { data: { b: '2' } });
    } finally {
      client.close();
    }
    const cm = JSON.parse(cluster.kubectl(['get', 'configmap', 'managed', '-n', 'kc', '-o', 'json', '--show-managed-fields'])) as {
      metadata: { managedFields: { manager: string; operation: string }[] };
    };
    expect(cm.metadata.managedFields.map((f) => `${f.manager}/${f.operation}`)).toEqual([`${FIELD_MANAGER}/Update`]);

    // The User-Agent, as a server sees it: a stand-in apiserver with the cluster's CA-signed certificate.
    const cert = cluster.ca.issue('fake-api', '/CN=127.0.0.1', 'IP:127.0.0.1');
    const agents: string[] = [];
    const server = https.createServer({ cert: readFileSync(cert.cert), key: readFileSync(cert.key) }, (req, res) => {
      agents.push(req.headers['user-agent'] ?? '');
      res.setHeader('content-type', 'application/json');
      res.end('{"kind":"Namespace","metadata":{"name":"kc"}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const file = path.join(cluster.dir, 'fake.kubeconfig');
    const port = (server.address() as { port: number }).port;
    writeFileSync(file, readFileSync(cluster.kubeconfigFile, 'utf8').replace(cluster.server, `https://127.0.0.1:${port}`));
    const fake = new KubeClient(cluster.kubeConfig(file));
    try {
      await fake.get('/api/v1/namespaces/kc');
    } finally {
      fake.close();
      server.close();
    }
    expect(agents).toEqual([USER_AGENT]);
    expect(USER_AGENT).toMatch(/^mapintel-operator\/\d+\.\d+\.\d+ \(node v\d+/);
  });

  it('lists page by page', async () => {
    const n = LIST_PAGE_SIZE * 2 + 7;
    const items = Array.from({ length: n }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'paged' } }));
    cluster.kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const registry = new Registry();
    const requests = new Counter({ name: 'requests_total', help: 'h', labelNames: ['verb', 'resource', 'code'] as const, registers: [registry] });
    const client = new KubeClient(cluster.kubeConfig(), { requests });
    const informer = new Informer<KubeObject>(
      client,
      '/api/v1/namespaces/paged/configmaps',
      { upsert: () => undefined, delete: () => undefined },
      quiet,
      {},
      (o) => o,
      true,
    );
    informer.start();
    try {
      await eventually('synced', () => informer.hasSynced, 60_000);
      // The namespace's own kube-root-ca.crt is not made here (no controller-manager): exactly n.
      expect(informer.size).toBe(n);
      const lists = (await registry.getSingleMetric('requests_total')!.get()).values.filter((v) => v.labels.verb === 'LIST');
      expect(lists.reduce((s, v) => s + v.value, 0)).toBe(3);
    } finally {
      await informer.stop();
      client.close();
    }
  }, 90_000);
});
