// Part 1 of a snapshot: the office's Integration and AgentBinding specs and the data of the Secrets
// they reference. Specs go to the blob store; Secret values only ever into one Secret per snapshot
// in the office namespace, from which a restore reads them back.
import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { type Applier, serverSideApplier } from '../../cluster/apply.ts';
import { API_VERSION } from '../../cluster/crds/crds.ts';
import { LABEL_OFFICE } from '../../cluster/labels.ts';
import { API_FIELD_MANAGER, OfficeCluster } from '../office/office-cluster.ts';
import { type BlobStore, readBlobText } from './blob-store.ts';
import {
  capturedResources,
  type ResourcesManifest,
  renderSnapshotSecret,
  restoredObjects,
  type SecretCopy,
} from './render-resources.ts';
import type { ResourcesPart, RestoreReport } from './schemas.ts';
import { snapshotSecretName } from './snapshot-model.ts';

const status = (err: unknown): number | undefined => (err as { code?: number }).code;

/** Kubernetes errors can quote a request body; for Secrets only the status code leaves this module. */
const redacted = (what: string, err: unknown) =>
  new Error(`${what}: the API server answered ${status(err) ?? 'with an error'}`);

export class OfficeResources {
  private readonly core: CoreV1Api;
  private readonly office: OfficeCluster;
  private readonly applier: Applier;

  constructor(kc: KubeConfig) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.office = new OfficeCluster(kc);
    this.applier = serverSideApplier(kc, API_FIELD_MANAGER);
  }

  officeNamespace(officeId: string): Promise<string | undefined> {
    return this.office.officeNamespace(officeId);
  }

  /** Every office in the cluster: namespaces labelled colony.ai/office, not being deleted. */
  async offices(): Promise<{ officeId: string; namespace: string }[]> {
    const list = await this.core.listNamespace({ labelSelector: LABEL_OFFICE });
    return list.items
      .filter((n) => !n.metadata?.deletionTimestamp && n.metadata?.labels?.[LABEL_OFFICE])
      .map((n) => ({
        officeId: n.metadata?.labels?.[LABEL_OFFICE] ?? '',
        namespace: n.metadata?.name ?? '',
      }));
  }

  private async readSecret(namespace: string, name: string): Promise<V1Secret | undefined> {
    try {
      return await this.core.readNamespacedSecret({ name, namespace });
    } catch (err) {
      if (status(err) === 404) return undefined;
      throw redacted(`reading Secret ${name}`, err);
    }
  }

  async capture(args: {
    blobs: BlobStore;
    namespace: string;
    officeId: string;
    snapshotId: string;
  }): Promise<ResourcesPart> {
    const { namespace, officeId, snapshotId } = args;
    // Without Colony's CRDs installed there is nothing of these kinds to capture.
    const none = (err: unknown) => (status(err) === 404 ? [] : Promise.reject(err));
    const [integrations, bindings] = await Promise.all([
      this.office.listIntegrations(namespace).catch(none),
      this.office.listBindings(namespace).catch(none),
    ]);
    const manifest = capturedResources(integrations, bindings);
    const copies: SecretCopy[] = [];
    const missing: string[] = [];
    for (const name of manifest.secretNames) {
      const secret = await this.readSecret(namespace, name);
      if (secret)
        copies.push({
          name,
          type: secret.type ?? 'Opaque',
          labels: secret.metadata?.labels ?? {},
          data: secret.data ?? {},
        });
      else missing.push(name);
    }
    const secretName = snapshotSecretName(snapshotId);
    await this.writeHeld(renderSnapshotSecret({ name: secretName, namespace, officeId, snapshotId, copies }));
    const stored: ResourcesManifest = {
      ...manifest,
      secrets: copies.map((c) => ({ name: c.name, keys: Object.keys(c.data).sort() })),
    };
    await args.blobs.put(`${snapshotId}/resources.json`, [JSON.stringify(stored)]);
    return {
      status: 'completed',
      integrations: manifest.integrations.length,
      agentBindings: manifest.agentBindings.length,
      secrets: copies.length,
      secretName,
      ...(missing.length
        ? { detail: `Secrets referenced but absent when captured: ${missing.join(', ')}` }
        : {}),
    };
  }

  /**
   * Writes the per-snapshot Secret. It is immutable, so when a retried capture read different values
   * the API server refuses the apply (422); the earlier, incomplete attempt's Secret is replaced.
   */
  private async writeHeld(secret: V1Secret): Promise<void> {
    const name = secret.metadata?.name ?? '';
    const namespace = secret.metadata?.namespace ?? '';
    try {
      await this.applier.apply(secret);
    } catch (err) {
      if (status(err) !== 422) throw redacted(`writing Secret ${name}`, err);
      await this.core.deleteNamespacedSecret({ name, namespace }).catch(() => {});
      await this.applier.apply(secret).catch((again) => {
        throw redacted(`writing Secret ${name}`, again);
      });
    }
  }

  /** Re-applies Secrets first, then the resources that reference them. */
  async restore(args: {
    blobs: BlobStore;
    namespace: string;
    officeId: string;
    snapshotId: string;
  }): Promise<NonNullable<RestoreReport['resources']>> {
    const { namespace, snapshotId } = args;
    const manifest = JSON.parse(
      await readBlobText(args.blobs, `${snapshotId}/resources.json`),
    ) as ResourcesManifest;
    const secretName = snapshotSecretName(snapshotId);
    const held = await this.readSecret(namespace, secretName);
    if (!held) {
      return {
        status: 'failed',
        applied: [],
        detail: `The snapshot's Secret ${secretName} is gone from namespace ${namespace}; credentials cannot be restored.`,
      };
    }
    const applied: string[] = [];
    for (const obj of restoredObjects({ manifest, held, namespace, apiVersion: API_VERSION })) {
      const label = `${obj.kind}/${obj.metadata?.name}`;
      await this.applier.apply(obj).catch((err) => {
        throw obj.kind === 'Secret' ? redacted(`applying ${label}`, err) : err;
      });
      applied.push(label);
    }
    return { status: 'completed', applied };
  }

  /** Removes a deleted snapshot's Secret; already gone is fine. */
  async forget(namespace: string, snapshotId: string): Promise<void> {
    await this.core
      .deleteNamespacedSecret({ name: snapshotSecretName(snapshotId), namespace })
      .catch((err) => {
        if (status(err) !== 404) throw redacted('deleting the snapshot Secret', err);
      });
  }
}
