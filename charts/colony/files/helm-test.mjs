// `helm test`: the API answers (readiness, status, an authenticated office-manager call) and the
// controller is leading (its Lease has a holder that renews it). Runs with the Colony image's node.
import { readFileSync } from 'node:fs';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const api = env('API_URL');
// The office-manager API, on its own port when api.managerPort is set.
const manager = process.env.MANAGER_URL || api;
const deadline = Date.now() + Number(process.env.TEST_TIMEOUT_SECONDS ?? 90) * 1000;

/** Retries a check until it passes or the deadline passes (the leader may still be electing). */
async function eventually(name, check) {
  let last;
  for (;;) {
    try {
      const detail = await check();
      console.log(`ok   ${name}: ${detail}`);
      return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      console.error(`FAIL ${name}: ${last instanceof Error ? last.message : String(last)}`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}

async function get(url, headers = {}) {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text };
}

await eventually('API /readyz', async () => {
  const r = await get(`${api}/readyz`);
  if (r.status !== 200) throw new Error(`status ${r.status}: ${r.text}`);
  return 'ready';
});

await eventually('API reports the controller through its Lease', async () => {
  const r = await get(`${api}/api/v1/status?service=controller`);
  if (r.status !== 200) throw new Error(`status ${r.status}: ${r.text}`);
  const svc = JSON.parse(r.text).services?.[0];
  if (svc?.status !== 'operational') throw new Error(`controller ${svc?.status}: ${svc?.detail}`);
  return svc.detail;
});

await eventually('office-manager API authenticates and reaches the cluster', async () => {
  const office = `helm-test-${Date.now().toString(36)}`;
  const url = `${manager}/api/v1/offices/${office}/integrations`;
  const anonymous = await get(url);
  if (anonymous.status !== 401) throw new Error(`without a token: status ${anonymous.status}`);
  // A known token and an office with no namespace: 404 problem+json, which needs namespaces list.
  const r = await get(url, { authorization: `Bearer ${env('COLONY_BOOTSTRAP_TOKEN')}` });
  if (r.status !== 404 || !r.type.startsWith('application/problem+json')) {
    throw new Error(`with the bootstrap token: status ${r.status} ${r.type}: ${r.text}`);
  }
  return '401 without a token, 404 problem+json for an unknown office';
});

await eventually('controller Lease has a holder that renews it', async () => {
  const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
  const host = `https://${env('KUBERNETES_SERVICE_HOST')}:${env('KUBERNETES_SERVICE_PORT')}`;
  const path = `/apis/coordination.k8s.io/v1/namespaces/${env('LEASE_NAMESPACE')}/leases/${env('LEASE_NAME')}`;
  const token = readFileSync(`${sa}/token`, 'utf8').trim();
  const r = await get(host + path, { authorization: `Bearer ${token}` });
  if (r.status !== 200) throw new Error(`reading the Lease: status ${r.status}: ${r.text}`);
  const spec = JSON.parse(r.text).spec ?? {};
  if (!spec.holderIdentity) throw new Error('the Lease has no holder');
  const age = (Date.now() - new Date(spec.renewTime).getTime()) / 1000;
  if (!(age < 2 * (spec.leaseDurationSeconds ?? 15))) throw new Error(`renewed ${Math.round(age)}s ago`);
  return `held by ${spec.holderIdentity}, renewed ${age.toFixed(1)}s ago`;
});
