// Part 3 of a snapshot on the local control plane, which serves no snapshot.storage.k8s.io API:
// every PersistentVolumeClaim is reported as skipped with the reason, and so is its restore.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfficeVolumes } from '../../api/backups/office-volumes.ts';
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

const NO_API = 'The cluster does not serve snapshot.storage.k8s.io/v1 (no CSI snapshot controller).';
let s: TestServer;
let office: TestOffice;
const auth = bearer(BOOTSTRAP);

beforeAll(async () => {
  office = await createOffice('bkv');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  for (const [name, storageClassName] of [
    ['workspace', 'standard'],
    ['cache', undefined],
  ] as const) {
    await core.createNamespacedPersistentVolumeClaim({
      namespace: office.namespace,
      body: {
        metadata: { name },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '1Gi' } },
          ...(storageClassName ? { storageClassName } : {}),
        },
      },
    });
  }
  s = await startBackupsServer();
});
afterAll(async () => {
  await s?.close();
  await office?.dispose();
});

describe('snapshot part 3: persistent volumes without a snapshot API', () => {
  it('sees from discovery that the cluster serves no snapshot API', async () => {
    expect(await new OfficeVolumes(kubeConfig()).snapshotApiServed()).toBe(false);
  });

  it('reports each claim as skipped with the reason, and the snapshot as completed', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/snapshots',
      headers: auth,
      payload: { office: office.id },
    });
    const snap = await settled(s, `/api/snapshots/${res.json().id}`);
    expect(snap.status).toBe('completed');
    expect(snap.parts.volumes).toMatchObject({ status: 'skipped', detail: NO_API });
    // The API server's DefaultStorageClass admission may have given `cache` a class.
    expect(snap.parts.volumes.items).toEqual([
      expect.objectContaining({ pvc: 'cache', size: '1Gi', status: 'skipped', reason: NO_API }),
      { pvc: 'workspace', storageClass: 'standard', size: '1Gi', status: 'skipped', reason: NO_API },
    ]);

    const restore = await s.app.inject({
      method: 'POST',
      url: `/api/snapshots/${snap.id}/restore`,
      headers: auth,
      payload: { parts: ['volumes'] },
    });
    const done = await settled(s, new URL(restore.headers.location as string).pathname);
    expect(done.status).toBe('completed');
    expect(done.report.volumes).toEqual({
      status: 'skipped',
      items: [],
      detail: `The snapshot holds no volumes. ${NO_API}`,
    });
  });
});
