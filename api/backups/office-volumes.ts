// Part 3 of a snapshot: the office's PersistentVolumeClaims as CSI VolumeSnapshots where the cluster
// can take them; every other claim is reported as skipped with the reason.
import { ApisApi, CoreV1Api, CustomObjectsApi, type KubeConfig, StorageV1Api } from '@kubernetes/client-node';
import { type Applier, serverSideApplier } from '../../cluster/apply.ts';
import { API_FIELD_MANAGER } from '../office/office-cluster.ts';
import { type BlobStore, readBlobText } from './blob-store.ts';
import { LABEL_SNAPSHOT, snapshotLabels } from './render-resources.ts';
import {
  type CapturedClaim,
  capturedClaim,
  DEFAULT_CLASS_ANNOTATION,
  observedItem,
  planVolumeSnapshots,
  renderRestoredClaim,
  renderVolumeSnapshot,
  type SnapshotClassInfo,
  type VolumeSnapshotObject,
  volumeSnapshotName,
  volumesPart,
} from './render-volumes.ts';
import type { RestoreReport, VolumesPart } from './schemas.ts';

const GROUP = 'snapshot.storage.k8s.io';
const status = (err: unknown): number | undefined => (err as { code?: number }).code;

export class OfficeVolumes {
  private readonly core: CoreV1Api;
  private readonly apis: ApisApi;
  private readonly storage: StorageV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly applier: Applier;

  constructor(kc: KubeConfig) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.apis = kc.makeApiClient(ApisApi);
    this.storage = kc.makeApiClient(StorageV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.applier = serverSideApplier(kc, API_FIELD_MANAGER);
  }

  /** True when the API server serves snapshot.storage.k8s.io/v1 (a CSI snapshot controller is installed). */
  async snapshotApiServed(): Promise<boolean> {
    const groups = await this.apis.getAPIVersions();
    return groups.groups.some((g) => g.name === GROUP && g.versions.some((v) => v.version === 'v1'));
  }

  private async snapshotClasses(): Promise<SnapshotClassInfo[]> {
    const list = (await this.custom.listClusterCustomObject({
      group: GROUP,
      version: 'v1',
      plural: 'volumesnapshotclasses',
    })) as {
      items: { metadata?: { name?: string; annotations?: Record<string, string> }; driver: string }[];
    };
    return list.items.map((c) => ({
      name: c.metadata?.name ?? '',
      driver: c.driver,
      isDefault: c.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true',
    }));
  }

  async capture(args: {
    blobs: BlobStore;
    namespace: string;
    officeId: string;
    snapshotId: string;
  }): Promise<VolumesPart> {
    const { namespace, snapshotId } = args;
    const pvcs = await this.core.listNamespacedPersistentVolumeClaim({ namespace });
    const claims = pvcs.items.filter((p) => !p.metadata?.deletionTimestamp).map(capturedClaim);
    await args.blobs.put(`${snapshotId}/volumes.json`, [JSON.stringify({ version: 1, claims })]);
    if (claims.length === 0) return { status: 'completed', items: [] };
    const apiServed = await this.snapshotApiServed();
    const [classes, provisioners] = apiServed
      ? await Promise.all([
          this.snapshotClasses(),
          this.storage
            .listStorageClass()
            .then((l) => new Map(l.items.map((s) => [s.metadata?.name ?? '', s.provisioner]))),
        ])
      : [[], new Map<string, string>()];
    const planned = planVolumeSnapshots({ claims, apiServed, provisioners, snapshotClasses: classes });
    const items = [];
    for (const { item, className } of planned) {
      if (!className) {
        items.push(item);
        continue;
      }
      const name = volumeSnapshotName(item.pvc, snapshotId);
      await this.applier.apply(
        renderVolumeSnapshot({
          name,
          namespace,
          pvc: item.pvc,
          className,
          labels: snapshotLabels(args.officeId, snapshotId),
        }),
      );
      items.push({
        ...item,
        volumeSnapshot: name,
        reason: 'Waiting for the CSI driver to report readyToUse.',
      });
    }
    return volumesPart(items);
  }

  private async readVolumeSnapshot(
    namespace: string,
    name: string,
  ): Promise<VolumeSnapshotObject | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject({
        group: GROUP,
        version: 'v1',
        namespace,
        plural: 'volumesnapshots',
        name,
      })) as VolumeSnapshotObject;
    } catch (err) {
      if (status(err) === 404) return undefined;
      throw err;
    }
  }

  /** Looks again at VolumeSnapshots still pending. */
  async refresh(namespace: string, part: VolumesPart): Promise<VolumesPart> {
    const items = [];
    for (const item of part.items) {
      items.push(
        item.status === 'pending' && item.volumeSnapshot
          ? observedItem(item, await this.readVolumeSnapshot(namespace, item.volumeSnapshot))
          : item,
      );
    }
    return volumesPart(items);
  }

  /** Deletes a deleted snapshot's VolumeSnapshots (the CSI driver then frees their storage). */
  async forget(namespace: string, snapshotId: string): Promise<void> {
    if (!(await this.snapshotApiServed())) return;
    const ref = { group: GROUP, version: 'v1', namespace, plural: 'volumesnapshots' };
    const list = (await this.custom.listNamespacedCustomObject({
      ...ref,
      labelSelector: `${LABEL_SNAPSHOT}=${snapshotId}`,
    })) as { items: VolumeSnapshotObject[] };
    for (const vs of list.items) {
      await this.custom
        .deleteNamespacedCustomObject({ ...ref, name: vs.metadata?.name ?? '' })
        .catch((err) => {
          if (status(err) !== 404) throw err;
        });
    }
  }

  /** Creates each missing claim from its ready VolumeSnapshot; an existing claim is left alone. */
  async restore(args: {
    blobs: BlobStore;
    namespace: string;
    snapshotId: string;
    part: VolumesPart;
  }): Promise<NonNullable<RestoreReport['volumes']>> {
    const { claims } = JSON.parse(await readBlobText(args.blobs, `${args.snapshotId}/volumes.json`)) as {
      claims: CapturedClaim[];
    };
    const items: NonNullable<RestoreReport['volumes']>['items'] = [];
    for (const claim of claims) {
      const taken = args.part.items.find((i) => i.pvc === claim.name);
      if (!taken?.volumeSnapshot || taken.status !== 'ready') {
        items.push({
          pvc: claim.name,
          status: 'skipped',
          detail: taken?.reason ?? 'No VolumeSnapshot was taken of this claim.',
        });
        continue;
      }
      const exists = await this.core
        .readNamespacedPersistentVolumeClaim({ name: claim.name, namespace: args.namespace })
        .then(
          () => true,
          (err) => (status(err) === 404 ? false : Promise.reject(err)),
        );
      if (exists) {
        items.push({
          pvc: claim.name,
          status: 'skipped',
          detail: 'The claim exists; delete it to restore it from the VolumeSnapshot.',
        });
        continue;
      }
      await this.core.createNamespacedPersistentVolumeClaim({
        namespace: args.namespace,
        body: renderRestoredClaim({
          claim,
          namespace: args.namespace,
          volumeSnapshot: taken.volumeSnapshot,
          restoreSize: taken.size,
        }),
      });
      items.push({ pvc: claim.name, status: 'completed' });
    }
    const restored = items.some((i) => i.status === 'completed') || items.length === 0;
    return { status: restored ? 'completed' : 'skipped', items };
  }
}
