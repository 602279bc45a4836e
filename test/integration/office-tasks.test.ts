// The office task queue through the office-manager API: tasks filed by enabling an integration,
// created by hand, paged and moved through their statuses; refusals in problem+json.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds, kubeConfig, kubeconfigPath, withNamespace } from '../support/kube.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'tasks-bootstrap-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
let ns: Awaited<ReturnType<typeof withNamespace>>;
let office: string;
let s: TestServer;

beforeAll(async () => {
  await installCrds();
  ns = await withNamespace('office-tasks');
  office = ns.name.replace(/^office-/, 't');
  await kubeConfig()
    .makeApiClient(CoreV1Api)
    .patchNamespace({
      name: ns.name,
      body: [{ op: 'add', path: '/metadata/labels/colony.ai~1office', value: office }],
    });
  s = await startTestServer(
    { KUBECONFIG: kubeconfigPath(), COLONY_BOOTSTRAP_TOKEN: TOKEN },
    { runJobs: false },
  );
});
afterAll(async () => {
  await s.close();
  await ns.dispose();
});

const call = (
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  payload?: object,
  headers: Record<string, string> = auth,
) =>
  s.app.inject({ method, url: `/api/v1/offices/${office}${path}`, headers, ...(payload ? { payload } : {}) });

describe('office tasks', () => {
  it('files an integration’s task template when it is enabled for an agent', async () => {
    expect(
      (await call('POST', '/integrations/linear/secret', { data: { LINEAR_API_KEY: 'lin_api_x' } }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await call('POST', '/integrations/linear/agents/pm', {
          enabled: true,
          secretName: `linear-${office}`,
        })
      ).statusCode,
    ).toBe(200);
    const list = await call('GET', '/tasks');
    expect(list.statusCode).toBe(200);
    expect(list.json().tasks).toMatchObject([
      {
        title: 'Fill the local issue table',
        status: 'open',
        source: { integrationId: 'linear', template: 'sync-issues', scheduledFor: null },
      },
    ]);
    // Enabling it for a second agent is not a new enablement of the office's integration.
    await call('POST', '/integrations/linear/agents/dev', { enabled: true, secretName: `linear-${office}` });
    expect((await call('GET', '/tasks')).json().tasks).toHaveLength(1);
  });

  it('creates, pages, reads and updates tasks', async () => {
    const created = await call('POST', '/tasks', {
      title: 'Write the launch post',
      prompt: 'Draft it for Friday.',
    });
    expect(created.statusCode).toBe(201);
    const task = created.json();
    expect(task).toMatchObject({ officeId: office, status: 'open', source: null });
    const first = await call('GET', '/tasks?limit=1');
    expect(first.json().tasks.map((t: { id: string }) => t.id)).toEqual([task.id]);
    const second = await call('GET', `/tasks?limit=1&cursor=${first.json().nextCursor}`);
    expect(second.json()).toMatchObject({
      tasks: [{ source: { template: 'sync-issues' } }],
      nextCursor: null,
    });
    const done = await call('PATCH', `/tasks/${task.id}`, { status: 'done' });
    expect(done.json().status).toBe('done');
    expect((await call('GET', `/tasks/${task.id}`)).json().status).toBe('done');
    expect((await call('GET', '/tasks?status=open')).json().tasks).toHaveLength(1);
  });

  it('refuses bad input with problem+json', async () => {
    const missing = await call('GET', '/tasks/task_00000000000000000000');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
    expect((await call('GET', '/tasks?cursor=not-a-cursor')).json()).toMatchObject({
      code: 'invalid_request',
      errors: [{ location: 'query.cursor' }],
    });
    expect((await call('PATCH', '/tasks/task_00000000000000000000', { status: 'finished' })).statusCode).toBe(
      400,
    );
    expect((await call('POST', '/tasks', { title: '   ', prompt: 'x' })).statusCode).toBe(400);
    expect((await call('GET', '/tasks', undefined, {})).statusCode).toBe(401);
  });
});
