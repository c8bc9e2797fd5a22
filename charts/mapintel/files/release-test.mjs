// `helm test` (templates/tests/release-test.yaml): each pod behind each role's -ops Service answers
// /readyz with 200, and the apiserver accepts a WebhookSubscription on a server-side dry run.
//
// Nothing here needs the cluster's DNS: the apiserver is the address every pod is given
// (KUBERNETES_SERVICE_HOST and _PORT, as client-go's in-cluster configuration reads it), and the pods
// behind each Service are its EndpointSlices, ready or not (terminating ones aside), each named by its pod.
import { readFileSync } from 'node:fs';

const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
const ns = process.env.NAMESPACE;
const host = process.env.KUBERNETES_SERVICE_HOST ?? '';
const apiserver = `https://${host.includes(':') ? `[${host}]` : host}:${process.env.KUBERNETES_SERVICE_PORT ?? '443'}`;
const token = readFileSync(`${sa}/token`, 'utf8').trim();
const failures = [];

/** A request to the apiserver with the pod's ServiceAccount token: { status, json, text }. */
async function kube(path, init = {}) {
  try {
    const res = await fetch(`${apiserver}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, json, text };
  } catch (err) {
    return { status: `${err.name}: ${err.cause?.code ?? err.message}`, json: null, text: '' };
  }
}

const fallbackPort = process.env.OPS_PORT;
for (const service of process.env.OPS_SERVICES.split(',').filter(Boolean)) {
  const slices = await kube(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${service}`);
  if (slices.status !== 200) {
    failures.push(`${service}: its EndpointSlices could not be read (${slices.status} ${slices.text.slice(0, 200)})`);
    continue;
  }
  // The pod's own ops port, as each slice has it (the Service's targetPort).
  const endpoints = slices.json.items.flatMap((s) =>
    (s.endpoints ?? []).map((e) => ({ ...e, family: s.addressType, port: (s.ports ?? []).find((p) => p.name === 'ops')?.port ?? fallbackPort })),
  );
  if (endpoints.filter((e) => !e.conditions?.terminating).length === 0) failures.push(`${service}: no pod`);
  for (const e of endpoints) {
    const pod = e.targetRef?.name ?? '?';
    const address = e.addresses[0];
    // A terminating pod (the old ones of a rolling update that `helm upgrade --wait` has just finished)
    // answers 503 on purpose while it drains: it is leaving, not one of the pods that serve.
    if (e.conditions?.terminating) {
      console.log(`${service} ${pod} ${address} terminating, not checked`);
      continue;
    }
    const url = `http://${e.family === 'IPv6' ? `[${address}]` : address}:${e.port}/readyz`;
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) }).catch((err) => ({ status: `${err.name}: ${err.cause?.code ?? err.message}` }));
    console.log(`${service} ${pod} ${address} /readyz ${res.status}`);
    if (res.status !== 200) failures.push(`${service} ${pod} ${address}: /readyz ${res.status}`);
  }
}

const body = {
  apiVersion: 'mapintel.io/v1alpha1',
  kind: 'WebhookSubscription',
  metadata: { name: 'helm-test-dry-run', namespace: ns },
  spec: { map: 'helm-test', url: 'https://receiver.example.com/hook', events: ['*'], mapKeySecretRef: { name: 'helm-test-key' } },
};
const res = await kube(`/apis/mapintel.io/v1alpha1/namespaces/${ns}/webhooksubscriptions?dryRun=All`, { method: 'POST', body: JSON.stringify(body) });
console.log(`WebhookSubscription dry run: ${res.status}`);
if (res.status !== 201) failures.push(`WebhookSubscription dry run: ${res.status} ${res.text.slice(0, 300)}`);

if (failures.length) {
  console.error(`FAILED:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('every role ready; the WebhookSubscription dry run accepted');
