// Pure: which PVCs can be snapshotted (CSI VolumeSnapshot, snapshot.storage.k8s.io/v1), the
// VolumeSnapshot objects, their honest state, and the PVCs a restore creates from them.
import type { KubernetesObject, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { VolumeItem, VolumesPart } from './schemas.ts';

export const SNAPSHOT_API = 'snapshot.storage.k8s.io/v1';
export const DEFAULT_CLASS_ANNOTATION = 'snapshot.storage.kubernetes.io/is-default-class';

export interface SnapshotClassInfo {
  name: string;
  driver: string;
  isDefault: boolean;
}

export interface VolumeSnapshotObject extends KubernetesObject {
  spec: { volumeSnapshotClassName?: string; source: { persistentVolumeClaimName: string } };
  status?: { readyToUse?: boolean; restoreSize?: string; error?: { message?: string } };
}

/** What a restore needs to recreate a claim: stored in the blob store beside the snapshot. */
export interface CapturedClaim {
  name: string;
  storageClassName: string | null;
  accessModes: string[];
  volumeMode: string | null;
  storage: string | null;
  labels: Record<string, string>;
}

export const volumeSnapshotName = (pvc: string, snapshotId: string): string => {
  const suffix = snapshotId.replace(/^snap_/, '').slice(0, 12);
  return `${pvc.slice(0, 253 - suffix.length - 1)}-${suffix}`;
};

export function capturedClaim(pvc: V1PersistentVolumeClaim): CapturedClaim {
  return {
    name: pvc.metadata?.name ?? '',
    storageClassName: pvc.spec?.storageClassName ?? null,
    accessModes: pvc.spec?.accessModes ?? ['ReadWriteOnce'],
    volumeMode: pvc.spec?.volumeMode ?? null,
    storage: (pvc.spec?.resources?.requests?.storage as string | undefined) ?? null,
    labels: pvc.metadata?.labels ?? {},
  };
}

/** The class for a driver: the one marked default, else the only one, else none (ambiguous). */
export function snapshotClassFor(
  driver: string,
  classes: readonly SnapshotClassInfo[],
): SnapshotClassInfo | undefined {
  const candidates = classes.filter((c) => c.driver === driver);
  return candidates.find((c) => c.isDefault) ?? (candidates.length === 1 ? candidates[0] : undefined);
}

/**
 * For each claim either a VolumeSnapshot to create or the reason it is skipped. `provisioners`
 * maps StorageClass name to its provisioner (the CSI driver).
 */
export function planVolumeSnapshots(args: {
  claims: readonly CapturedClaim[];
  apiServed: boolean;
  provisioners: ReadonlyMap<string, string>;
  snapshotClasses: readonly SnapshotClassInfo[];
}): { item: VolumeItem; className?: string }[] {
  return args.claims.map((c) => {
    const base = {
      pvc: c.name,
      ...(c.storageClassName ? { storageClass: c.storageClassName } : {}),
      ...(c.storage ? { size: c.storage } : {}),
    };
    if (!args.apiServed)
      return {
        item: {
          ...base,
          status: 'skipped',
          reason: `The cluster does not serve ${SNAPSHOT_API} (no CSI snapshot controller).`,
        },
      };
    if (!c.storageClassName)
      return {
        item: {
          ...base,
          status: 'skipped',
          reason: 'The claim names no StorageClass, so its CSI driver is unknown.',
        },
      };
    const driver = args.provisioners.get(c.storageClassName);
    if (!driver)
      return {
        item: { ...base, status: 'skipped', reason: `StorageClass ${c.storageClassName} does not exist.` },
      };
    const cls = snapshotClassFor(driver, args.snapshotClasses);
    if (!cls)
      return {
        item: {
          ...base,
          status: 'skipped',
          reason: `No single or default VolumeSnapshotClass exists for driver ${driver}.`,
        },
      };
    return { item: { ...base, status: 'pending', volumeSnapshotClass: cls.name }, className: cls.name };
  });
}

export function renderVolumeSnapshot(args: {
  name: string;
  namespace: string;
  pvc: string;
  className: string;
  labels: Record<string, string>;
}): VolumeSnapshotObject {
  return {
    apiVersion: SNAPSHOT_API,
    kind: 'VolumeSnapshot',
    metadata: { name: args.name, namespace: args.namespace, labels: args.labels },
    spec: { volumeSnapshotClassName: args.className, source: { persistentVolumeClaimName: args.pvc } },
  };
}

/** A VolumeSnapshot is pending until the CSI driver reports readyToUse; an error fails it. */
export function observedItem(item: VolumeItem, vs: VolumeSnapshotObject | undefined): VolumeItem {
  if (!vs)
    return { ...item, status: 'failed', reason: 'The VolumeSnapshot was deleted before it became ready.' };
  if (vs.status?.error?.message) return { ...item, status: 'failed', reason: vs.status.error.message };
  if (vs.status?.readyToUse === true) {
    const { reason: _r, ...rest } = item;
    return { ...rest, status: 'ready', ...(vs.status.restoreSize ? { size: vs.status.restoreSize } : {}) };
  }
  return { ...item, status: 'pending', reason: 'Waiting for the CSI driver to report readyToUse.' };
}

/** The part's status from its items: skipped when nothing could be snapshotted, pending while any waits. */
export function volumesPart(items: VolumeItem[]): VolumesPart {
  if (items.some((i) => i.status === 'pending')) return { status: 'pending', items };
  if (items.some((i) => i.status === 'failed')) return { status: 'failed', items };
  if (items.length > 0 && items.every((i) => i.status === 'skipped'))
    return { status: 'skipped', items, detail: items[0]?.reason ?? 'every claim was skipped' };
  return { status: 'completed', items };
}

/** A claim recreated from its VolumeSnapshot (same name, same class, size and modes). */
export function renderRestoredClaim(args: {
  claim: CapturedClaim;
  namespace: string;
  volumeSnapshot: string;
  restoreSize?: string | undefined;
}): V1PersistentVolumeClaim {
  const { claim } = args;
  const storage = claim.storage ?? args.restoreSize ?? '1Gi';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claim.name, namespace: args.namespace, labels: claim.labels },
    spec: {
      ...(claim.storageClassName ? { storageClassName: claim.storageClassName } : {}),
      accessModes: claim.accessModes,
      ...(claim.volumeMode ? { volumeMode: claim.volumeMode } : {}),
      resources: { requests: { storage } },
      dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: args.volumeSnapshot },
    },
  };
}
