// PUT and DELETE /api/v1/offices/{officeID} in the default cluster scope, against the real API server:
// the namespace made, adopted or refused, and given back without losing what is in it.
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeConfig, kubeconfigPath, onKwokNodes } from '../support/kube.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'office-lifecycle-bootstrap-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const id = () => `life-${randomBytes(3).toString('hex')}`;
const created: string[] = [];
let s: TestServer;
const core = () => kubeConfig().makeApiClient(CoreV1Api);
const put = (officeId: string, headers: Record<string, string> = auth) =>
  s.app.inject({ method: 'PUT', url: `/api/v1/offices/${officeId}`, headers });
const del = (officeId: string) =>
  s.app.inject({ method: 'DELETE', url: `/api/v1/offices/${officeId}`, headers: auth });

beforeAll(async () => {
  s = await startTestServer({ KUBECONFIG: kubeconfigPath(), COLONY_BOOTSTRAP_TOKEN: TOKEN });
});
afterAll(async () => {
  await s.close();
  for (const name of created)
    await core()
      .deleteNamespace({ name })
      .catch(() => {});
});

describe('PUT and DELETE /api/v1/offices/{officeID}', () => {
  it('makes office-<id> labelled for the office, answers 200 the second time, and gives it back on DELETE', async () => {
    const office = id();
    created.push(`office-${office}`);
    const first = await put(office);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toEqual({ officeId: office, namespace: `office-${office}` });
    const ns = await core().readNamespace({ name: `office-${office}` });
    expect(ns.metadata?.labels?.['colony.ai/office']).toBe(office);
    expect((await put(office)).statusCode).toBe(200);
    await core().createNamespacedConfigMap({
      namespace: `office-${office}`,
      body: { metadata: { name: 'keep-me' } },
    });
    expect((await del(office)).statusCode).toBe(204);
    const after = await core().readNamespace({ name: `office-${office}` });
    expect(after.metadata?.labels?.['colony.ai/office']).toBeUndefined();
    expect(after.metadata?.deletionTimestamp).toBeUndefined();
    expect(
      (await core().readNamespacedConfigMap({ name: 'keep-me', namespace: `office-${office}` })).metadata
        ?.name,
    ).toBe('keep-me');
    expect((await del(office)).statusCode).toBe(404);
  });

  it('adopts a namespace labelled for the office by hand', async () => {
    const office = id();
    const name = `hand-made-${office}`;
    created.push(name);
    await core().createNamespace({
      body: { metadata: { name, labels: { 'colony.ai/office': office }, annotations: onKwokNodes } },
    });
    const res = await put(office);
    expect(res.statusCode).toBe(200);
    expect(res.json().namespace).toBe(name);
  });

  it('refuses office-<id> when it exists without the label, and an ID too long to name a namespace', async () => {
    const office = id();
    created.push(`office-${office}`);
    await core().createNamespace({ body: { metadata: { name: `office-${office}` } } });
    const taken = await put(office);
    expect(taken.statusCode).toBe(409);
    expect(taken.json().detail).toContain(`not labelled colony.ai/office=${office}`);
    const long = await put(`l${'x'.repeat(60)}`);
    expect(long.statusCode).toBe(400);
    expect(long.json().detail).toContain('longer than a namespace name may be');
  });

  it('needs a credential', async () => {
    expect((await put(id(), {})).statusCode).toBe(401);
  });
});
