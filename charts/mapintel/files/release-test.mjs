// `helm test` (templates/tests/release-test.yaml): each pod behind each role's -ops Service answers
// /readyz with 200, and the apiserver accepts a WebhookSubscription on a server-side dry run.
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';

const failures = [];
const port = process.env.OPS_PORT;
for (const service of process.env.OPS_SERVICES.split(',').filter(Boolean)) {
  const addresses = await lookup(service, { all: true }).catch((err) => {
    failures.push(`${service}: no address (${err.code ?? err.message})`);
    return [];
  });
  if (addresses.length === 0 && !failures.some((f) => f.startsWith(`${service}:`))) failures.push(`${service}: no ready pod`);
  for (const { address, family } of addresses) {
    const host = family === 6 ? `[${address}]` : address;
    const res = await fetch(`http://${host}:${port}/readyz`, { signal: AbortSignal.timeout(5000) }).catch((err) => ({ status: err.name }));
    console.log(`${service} ${address} /readyz ${res.status}`);
    if (res.status !== 200) failures.push(`${service} ${address}: /readyz ${res.status}`);
  }
}

const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
const ns = process.env.NAMESPACE;
const body = {
  apiVersion: 'mapintel.io/v1alpha1',
  kind: 'WebhookSubscription',
  metadata: { name: 'helm-test-dry-run', namespace: ns },
  spec: { map: 'helm-test', url: 'https://receiver.example.com/hook', events: ['*'], mapKeySecretRef: { name: 'helm-test-key' } },
};
const res = await fetch(`https://kubernetes.default.svc/apis/mapintel.io/v1alpha1/namespaces/${ns}/webhooksubscriptions?dryRun=All`, {
  method: 'POST',
  headers: { authorization: `Bearer ${readFileSync(`${sa}/token`, 'utf8').trim()}`, 'content-type': 'application/json' },
  body: JSON.stringify(body),
  signal: AbortSignal.timeout(10_000),
}).catch((err) => ({ status: err.name, text: async () => String(err) }));
console.log(`WebhookSubscription dry run: ${res.status}`);
if (res.status !== 201) failures.push(`WebhookSubscription dry run: ${res.status} ${(await res.text()).slice(0, 300)}`);

if (failures.length) {
  console.error(`FAILED:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('every role ready; the WebhookSubscription dry run accepted');
