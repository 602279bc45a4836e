import { describe, expect, it } from 'vitest';
import {
  type CapturedClaim,
  capturedClaim,
  observedItem,
  planVolumeSnapshots,
  renderRestoredClaim,
  renderVolumeSnapshot,
  snapshotClassFor,
  volumeSnapshotName,
  volumesPart,
} from '../../../api/backups/render-volumes.ts';
import type { VolumeItem } from '../../../api/backups/schemas.ts';

const claim = (name: string, storageClassName: string | null = 'fast'): CapturedClaim => ({
  name,
  storageClassName,
  accessModes: ['ReadWriteOnce'],
  volumeMode: 'Filesystem',
  storage: '5Gi',
  labels: { app: name },
});

const classes = [
  { name: 'csi-a-default', driver: 'a.csi.example.com', isDefault: true },
  { name: 'csi-a-other', driver: 'a.csi.example.com', isDefault: false },
  { name: 'csi-b', driver: 'b.csi.example.com', isDefault: false },
  { name: 'csi-c-1', driver: 'c.csi.example.com', isDefault: false },
  { name: 'csi-c-2', driver: 'c.csi.example.com', isDefault: false },
];
const provisioners = new Map([
  ['fast', 'a.csi.example.com'],
  ['slow', 'b.csi.example.com'],
  ['twin', 'c.csi.example.com'],
  ['local', 'kubernetes.io/no-provisioner'],
]);

describe('snapshotClassFor', () => {
  it.each([
    ['a.csi.example.com', 'csi-a-default'],
    ['b.csi.example.com', 'csi-b'],
    ['c.csi.example.com', undefined],
    ['z.csi.example.com', undefined],
  ])('picks for %s: %s', (driver, name) => expect(snapshotClassFor(driver, classes)?.name).toBe(name));
});

describe('planVolumeSnapshots', () => {
  it('skips every claim, saying why, when the cluster has no snapshot API', () => {
    const plan = planVolumeSnapshots({
      claims: [claim('data')],
      apiServed: false,
      provisioners,
      snapshotClasses: classes,
    });
    expect(plan).toEqual([
      {
        item: {
          pvc: 'data',
          storageClass: 'fast',
          size: '5Gi',
          status: 'skipped',
          reason: 'The cluster does not serve snapshot.storage.k8s.io/v1 (no CSI snapshot controller).',
        },
      },
    ]);
  });

  it.each([
    ['fast', 'pending', undefined, 'csi-a-default'],
    ['slow', 'pending', undefined, 'csi-b'],
    [
      'twin',
      'skipped',
      'No single or default VolumeSnapshotClass exists for driver c.csi.example.com.',
      undefined,
    ],
    [
      'local',
      'skipped',
      'No single or default VolumeSnapshotClass exists for driver kubernetes.io/no-provisioner.',
      undefined,
    ],
    ['gone', 'skipped', 'StorageClass gone does not exist.', undefined],
    [null, 'skipped', 'The claim names no StorageClass, so its CSI driver is unknown.', undefined],
  ])('plans a claim of class %s as %s', (cls, status, reason, className) => {
    const [p] = planVolumeSnapshots({
      claims: [claim('data', cls)],
      apiServed: true,
      provisioners,
      snapshotClasses: classes,
    });
    expect(p?.item.status).toBe(status);
    expect(p?.item.reason).toBe(reason);
    expect(p?.className).toBe(className);
  });
});

describe('renderVolumeSnapshot', () => {
  it('names the claim and class in a snapshot.storage.k8s.io/v1 object', () => {
    expect(
      renderVolumeSnapshot({
        name: 'data-abc',
        namespace: 'office-x',
        pvc: 'data',
        className: 'csi-b',
        labels: { l: 'v' },
      }),
    ).toEqual({
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshot',
      metadata: { name: 'data-abc', namespace: 'office-x', labels: { l: 'v' } },
      spec: { volumeSnapshotClassName: 'csi-b', source: { persistentVolumeClaimName: 'data' } },
    });
  });

  it('derives names that stay valid for long claim names', () => {
    const name = volumeSnapshotName('p'.repeat(253), `snap_${'a'.repeat(24)}`);
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name.endsWith(`-${'a'.repeat(12)}`)).toBe(true);
  });
});

describe('observedItem and volumesPart', () => {
  const pending: VolumeItem = { pvc: 'data', status: 'pending', volumeSnapshot: 'data-1', reason: 'waiting' };
  const vs = (status?: object) => ({
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshot',
    spec: { source: { persistentVolumeClaimName: 'data' } },
    ...(status ? { status } : {}),
  });

  it('stays pending until readyToUse, then is ready with its restore size', () => {
    expect(observedItem(pending, vs()).status).toBe('pending');
    expect(observedItem(pending, vs({ readyToUse: false })).status).toBe('pending');
    expect(observedItem(pending, vs({ readyToUse: true, restoreSize: '5Gi' }))).toEqual({
      pvc: 'data',
      status: 'ready',
      volumeSnapshot: 'data-1',
      size: '5Gi',
    });
  });

  it('fails on a driver error or a vanished VolumeSnapshot', () => {
    expect(observedItem(pending, vs({ error: { message: 'quota exceeded' } }))).toMatchObject({
      status: 'failed',
      reason: 'quota exceeded',
    });
    expect(observedItem(pending, undefined).status).toBe('failed');
  });

  it.each([
    [[], 'completed'],
    [[{ pvc: 'a', status: 'ready' }], 'completed'],
    [
      [
        { pvc: 'a', status: 'ready' },
        { pvc: 'b', status: 'skipped', reason: 'r' },
      ],
      'completed',
    ],
    [[{ pvc: 'a', status: 'skipped', reason: 'no api' }], 'skipped'],
    [
      [
        { pvc: 'a', status: 'ready' },
        { pvc: 'b', status: 'pending' },
      ],
      'pending',
    ],
    [
      [
        { pvc: 'a', status: 'failed' },
        { pvc: 'b', status: 'ready' },
      ],
      'failed',
    ],
  ] as [VolumeItem[], string][])('gives %j the part status %s', (items, status) => {
    expect(volumesPart(items).status).toBe(status);
  });
});

describe('capturedClaim and renderRestoredClaim', () => {
  it('recreates the claim from its VolumeSnapshot with the same class, modes and size', () => {
    const captured = capturedClaim({
      metadata: { name: 'data', labels: { app: 'x' } },
      spec: {
        storageClassName: 'fast',
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '5Gi' } },
      },
    });
    expect(renderRestoredClaim({ claim: captured, namespace: 'office-x', volumeSnapshot: 'data-1' })).toEqual(
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data', namespace: 'office-x', labels: { app: 'x' } },
        spec: {
          storageClassName: 'fast',
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '5Gi' } },
          dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'data-1' },
        },
      },
    );
  });
});
