// Creating and deleting offices in the cluster: the office's namespace and, in offices mode, the
// RoleBindings that are Colony's only rights there. Deleting an office gives the namespace back: it
// loses its label and Colony's RoleBindings, and keeps everything else (agents, volumes, data).
import {
  AuthorizationV1Api,
  CoreV1Api,
  type KubeConfig,
  KubernetesObjectApi,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { type Applier, serverSideApplier } from '../../cluster/apply.ts';
import { LABEL_OFFICE } from '../../cluster/labels.ts';
import type { OfficeGrant } from '../config.ts';
import { API_FIELD_MANAGER } from './office-cluster.ts';
import { officeNamespaceObject, officeRoleBindings } from './render-office-grants.ts';

const status = (err: unknown) => (err as { code?: number }).code;

export interface OfficeNamespacesOptions {
  rbacScope: 'cluster' | 'offices';
  /** The RoleBindings of offices mode, the API's own first (it is deleted last). */
  grants: readonly OfficeGrant[];
  /** How long a new office's grants may take to reach the API server's authorizer. */
  grantTimeoutMs?: number;
}

export class NamespaceTakenError extends Error {}
export class GrantsPendingError extends Error {}

export class OfficeNamespaces {
  private readonly core: CoreV1Api;
  private readonly rbac: RbacAuthorizationV1Api;
  private readonly authz: AuthorizationV1Api;
  private readonly objects: KubernetesObjectApi;
  private readonly applier: Applier;
  private readonly opts: OfficeNamespacesOptions;

  constructor(kc: KubeConfig, opts: OfficeNamespacesOptions) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    this.authz = kc.makeApiClient(AuthorizationV1Api);
    this.objects = kc.makeApiClient(KubernetesObjectApi);
    this.applier = serverSideApplier(kc, API_FIELD_MANAGER);
    this.opts = opts;
  }

  /**
   * Creates office-<officeId> labelled as the office, unless `existing` (a namespace already labelled
   * so) is given; in offices mode then grants Colony its rights there and waits until they hold.
   */
  async ensure(
    officeId: string,
    existing: string | undefined,
  ): Promise<{ namespace: string; created: boolean }> {
    let namespace = existing;
    let created = false;
    if (!namespace) {
      const ns = officeNamespaceObject(officeId);
      namespace = ns.metadata?.name ?? '';
      await this.core.createNamespace({ body: ns }).catch((err) => {
        if (status(err) === 409)
          throw new NamespaceTakenError(
            `Namespace ${namespace} exists but is not labelled ${LABEL_OFFICE}=${officeId} (or is being deleted).`,
          );
        throw err;
      });
      created = true;
    }
    if (this.opts.rbacScope === 'offices') {
      await this.grant(namespace, officeId);
      await this.awaitGrants(namespace);
    }
    return { namespace, created };
  }

  /** Unlabels the namespace and, in offices mode, deletes Colony's RoleBindings there. */
  async remove(namespace: string): Promise<void> {
    const bindings =
      this.opts.rbacScope === 'offices' ? officeRoleBindings(namespace, '', this.opts.grants) : [];
    const [own, ...others] = bindings.map((b) => b.metadata?.name ?? '');
    for (const name of others.reverse()) await this.deleteBinding(namespace, name);
    // A merge patch's null removes the label.
    const labels = { [LABEL_OFFICE]: null } as unknown as Record<string, string>;
    await this.objects.patch(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } },
      undefined,
      undefined,
      API_FIELD_MANAGER,
      undefined,
      'application/merge-patch+json',
    );
    // The API's own binding goes last: unlabelling needed it.
    if (own) await this.deleteBinding(namespace, own);
  }

  // Create, not apply: applying would need `patch` on RoleBindings in every namespace. One that exists
  // already is brought in step through the office's own grant (patch limited to these names).
  private async grant(namespace: string, officeId: string): Promise<void> {
    for (const binding of officeRoleBindings(namespace, officeId, this.opts.grants)) {
      await this.rbac.createNamespacedRoleBinding({ namespace, body: binding }).catch(async (err) => {
        if (status(err) !== 409) throw err;
        await this.applier.apply(binding);
      });
    }
  }

  /** RBAC reaches the authorizer through a cache: answer only once the API's own grant holds there. */
  private async awaitGrants(namespace: string): Promise<void> {
    const deadline = Date.now() + (this.opts.grantTimeoutMs ?? 10_000);
    for (let wait = 25; ; wait = Math.min(wait * 2, 500)) {
      const review = await this.authz.createSelfSubjectAccessReview({
        body: { spec: { resourceAttributes: { namespace, verb: 'patch', resource: 'secrets' } } },
      });
      if (review.status?.allowed) return;
      if (Date.now() > deadline)
        throw new GrantsPendingError(`Colony's RoleBindings in ${namespace} do not take effect yet.`);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private async deleteBinding(namespace: string, name: string): Promise<void> {
    await this.rbac.deleteNamespacedRoleBinding({ namespace, name }).catch((err) => {
      if (status(err) !== 404) throw err;
    });
  }
}
