// Part 1 of a snapshot against the real control plane: Integration and AgentBinding specs and the
// data of their Secrets captured (values only in a per-snapshot Secret), then restored by
// server-side apply under the field manager colony-api.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRestoreId } from '../../api/backups/snapshot-model.ts';
import { GROUP, VERSION } from '../../cluster/crds/crds.ts';
import {
  BOOTSTRAP,
  bearer,
  createOffice,
  settled,
  startBackupsServer,
  type TestOffice,
} from '../support/backups-office.ts';
import { kubeConfig } from '../support/kube.ts';
import type { TestServer } from '../support/server.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Snap = Record<string, any>;
const VALUE = 'sk-backups-secret-value-7f3a9c';
const CHANGED = 'sk-changed-after-the-snapshot';
const logLines: string[] = [];
let s: TestServer;
let office: TestOffice;
const core = () => kubeConfig().makeApiClient(CoreV1Api);
const custom = () => kubeConfig().makeApiClient(CustomObjectsApi);
const auth = bearer(BOOTSTRAP);

const saveSecret = (value: string) =>
  s.app.inject({
    method: 'POST',
    url: `/api/v1/offices/${office.id}/integrations/openai/secret`,
    headers: auth,
    payload: { data: { OPENAI_API_KEY: value } },
  });
const secretValue = async () => {
  const secret = await core().readNamespacedSecret({
    name: `openai-${office.id}`,
    namespace: office.namespace,
  });
  return Buffer.from(secret.data?.OPENAI_API_KEY ?? '', 'base64').toString();
};
const snapshot = async (): Promise<Snap> => {
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/snapshots',
    headers: auth,
    payload: { office: office.id },
  });
  expect(res.statusCode).toBe(202);
  return settled(s, `/api/snapshots/${res.json().id}`);
};
const restore = async (id: string, body?: object): Promise<Snap> => {
  const res = await s.app.inject({
    method: 'POST',
    url: `/api/snapshots/${id}/restore`,
    headers: auth,
    ...(body ? { payload: body } : {}),
  });
  expect(res.statusCode).toBe(202);
  expect(res.headers.location).toBe(
    `http://colony.test${res.json().links.self.replace('http://colony.test', '')}`,
  );
  expect(res.body).not.toContain(VALUE);
  return settled(s, new URL(res.headers.location as string).pathname);
};

/** Every byte the API keeps outside Kubernetes: the SQLite files and the blob store. */
function storedBytes(dir: string): string {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return files.map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1')).join('\n');
}

beforeAll(async () => {
  office = await createOffice('bkr');
  s = await startBackupsServer(
    {},
    { logger: { level: 'trace', stream: { write: (line: string) => logLines.push(line) } } },
  );
  expect((await saveSecret(VALUE)).statusCode).toBe(200);
  const toggle = await s.app.inject({
    method: 'POST',
    url: `/api/v1/offices/${office.id}/integrations/openai/agents/writer`,
    headers: auth,
    payload: { enabled: true, secretName: `openai-${office.id}` },
  });
  expect(toggle.statusCode).toBe(200);
});
afterAll(async () => {
  await s?.close();
  await office?.dispose();
});

describe('snapshot part 1: resources and integration Secrets', () => {
  let snap: Snap;
  beforeAll(async () => {
    snap = await snapshot();
  });

  it('captures the specs and the Secret into one immutable, labelled Secret per snapshot', async () => {
    expect(snap.status).toBe('completed');
    const hex = snap.id.replace('snap_', '');
    expect(snap.parts.resources).toEqual({
      status: 'completed',
      integrations: 1,
      agentBindings: 1,
      secrets: 1,
      secretName: `colony-snapshot-${hex}`,
    });
    const held = await core().readNamespacedSecret({
      name: `colony-snapshot-${hex}`,
      namespace: office.namespace,
    });
    expect(held.immutable).toBe(true);
    expect(held.metadata?.labels).toMatchObject({
      'colony.ai/office': office.id,
      'colony.ai/snapshot': snap.id,
      'app.kubernetes.io/managed-by': 'colony',
    });
    expect(Object.keys(held.data ?? {})).toEqual([`openai-${office.id}`]);
    expect(snap.sizeBytes).toBeGreaterThan(0);
  });

  it('keeps the value out of responses, logs, the API database and the blob store', async () => {
    const encoded = Buffer.from(VALUE).toString('base64');
    const listed = await s.app.inject({ url: '/api/snapshots', headers: auth });
    for (const text of [JSON.stringify(snap), listed.body, logLines.join('\n'), storedBytes(s.dataDir)]) {
      expect(text).not.toContain(VALUE);
      expect(text).not.toContain(encoded);
    }
    expect(existsSync(join(s.dataDir, 'backups', snap.id, 'resources.json'))).toBe(true);
    expect(logLines.length).toBeGreaterThan(0);
  });

  it('restores changed credentials and deleted resources by server-side apply as colony-api', async () => {
    expect((await saveSecret(CHANGED)).statusCode).toBe(200);
    await custom().deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: office.namespace,
      plural: 'agentbindings',
      name: 'writer-openai',
    });
    expect(await secretValue()).toBe(CHANGED);
    const done = await restore(snap.id);
    expect(done.status).toBe('completed');
    expect(done.report.resources).toEqual({
      status: 'completed',
      applied: [`Secret/openai-${office.id}`, 'Integration/openai', 'AgentBinding/writer-openai'],
    });
    expect(done.report.database.status).toBe('skipped');
    expect(await secretValue()).toBe(VALUE);
    const binding = (await custom().getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: office.namespace,
      plural: 'agentbindings',
      name: 'writer-openai',
    })) as {
      spec: Record<string, unknown>;
      metadata: { managedFields: { manager: string; operation: string }[] };
    };
    expect(binding.spec).toEqual({
      agentName: 'writer',
      integrationId: 'openai',
      secretName: `openai-${office.id}`,
      enabled: true,
    });
    expect(binding.metadata.managedFields).toContainEqual(
      expect.objectContaining({ manager: 'colony-api', operation: 'Apply' }),
    );
    expect(logLines.join('\n')).not.toContain(VALUE);
  });

  it('restores only the parts asked for', async () => {
    await saveSecret(CHANGED);
    const done = await restore(snap.id, { parts: ['database'] });
    expect(Object.keys(done.report)).toEqual(['database']);
    expect(await secretValue()).toBe(CHANGED);
  });

  it('fails the restore of credentials, saying why, when the snapshot Secret is gone', async () => {
    const other = await snapshot();
    await core().deleteNamespacedSecret({
      name: other.parts.resources.secretName,
      namespace: office.namespace,
    });
    const done = await restore(other.id, { parts: ['resources'] });
    expect(done.status).toBe('failed');
    expect(done.report.resources.detail).toContain('is gone from namespace');
    expect(done.error).toContain('resources:');
  });

  it('runs one restore per office at a time, and will not delete a snapshot being restored', async () => {
    const repo = s.app.colony.storage.snapshots;
    const { restore: busy } = await repo.createRestore(
      { id: newRestoreId(), snapshotId: snap.id, officeId: office.id, createdBy: 't', report: {} },
      Date.now(),
    );
    const refused = await s.app.inject({
      method: 'POST',
      url: `/api/snapshots/${snap.id}/restore`,
      headers: auth,
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toBe(
      `A restore of office ${office.id} is already in progress (${busy.id}); wait for it to finish.`,
    );
    const del = await s.app.inject({ method: 'DELETE', url: `/api/snapshots/${snap.id}`, headers: auth });
    expect(del.statusCode).toBe(409);
    await repo.updateRestore(busy.id, { status: 'failed', error: 'abandoned' }, Date.now());
    expect((await restore(snap.id, { parts: ['database'] })).status).toBe('completed');
  });

  it('replaces an earlier attempt’s Secret when a retried capture reads new values', async () => {
    const again = await snapshot();
    await saveSecret(CHANGED);
    const part = await s.app.colony.backups.resources?.capture({
      blobs: s.app.colony.backups.blobs,
      namespace: office.namespace,
      officeId: office.id,
      snapshotId: again.id,
    });
    expect(part?.status).toBe('completed');
    const held = await core().readNamespacedSecret({
      name: again.parts.resources.secretName,
      namespace: office.namespace,
    });
    const copy = JSON.parse(Buffer.from(held.data?.[`openai-${office.id}`] ?? '', 'base64').toString());
    expect(Buffer.from(copy.data.OPENAI_API_KEY, 'base64').toString()).toBe(CHANGED);
    expect(held.immutable).toBe(true);
  });

  it('removes the snapshot Secret and blobs when the snapshot is deleted', async () => {
    const doomed = await snapshot();
    const del = await s.app.inject({ method: 'DELETE', url: `/api/snapshots/${doomed.id}`, headers: auth });
    expect(del.statusCode).toBe(204);
    await expect(
      core().readNamespacedSecret({ name: doomed.parts.resources.secretName, namespace: office.namespace }),
    ).rejects.toMatchObject({ code: 404 });
    expect(existsSync(join(s.dataDir, 'backups', doomed.id))).toBe(false);
  });
});
