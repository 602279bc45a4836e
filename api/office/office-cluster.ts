// The office-manager API's reads and writes in the cluster: offices, Secrets and the two kinds.
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  KubernetesObjectApi,
  type V1Secret,
} from '@kubernetes/client-node';
import { type Applier, serverSideApplier } from '../../cluster/apply.ts';
import type { AgentBindingSpec } from '../../cluster/crds/agent-binding-types.ts';
import { API_VERSION, GROUP, VERSION } from '../../cluster/crds/crds.ts';
import type { IntegrationSpec } from '../../cluster/crds/integration-types.ts';
import {
  ANNOTATION_ROLES,
  LABEL_AGENT,
  LABEL_MANAGED_BY,
  LABEL_OFFICE,
  MANAGED_BY,
} from '../../cluster/labels.ts';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import { parseRoles } from '../../integrations/registry/members-rules.ts';

export const API_FIELD_MANAGER = 'colony-api';

const notFound = (err: unknown) => (err as { code?: number }).code === 404;

export class OfficeCluster {
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly objects: KubernetesObjectApi;
  private readonly applier: Applier;
  private readonly officesOnly: boolean;

  /** `officesOnly` (offices mode): the API may not list cluster-wide, so lists go office by office. */
  constructor(kc: KubeConfig, opts: { officesOnly?: boolean } = {}) {
    this.officesOnly = opts.officesOnly ?? false;
    this.core = kc.makeApiClient(CoreV1Api);
    this.apps = kc.makeApiClient(AppsV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.objects = kc.makeApiClient(KubernetesObjectApi);
    this.applier = serverSideApplier(kc, API_FIELD_MANAGER);
  }

  /** The office's namespace: the one labelled colony.ai/office=<officeId>, or undefined. */
  async officeNamespace(officeId: string): Promise<string | undefined> {
    const list = await this.core.listNamespace({ labelSelector: `${LABEL_OFFICE}=${officeId}` });
    return list.items.find((n) => !n.metadata?.deletionTimestamp)?.metadata?.name;
  }

  /** Writes the Secret; values are sent base64-encoded in `data` and never read back. */
  async saveSecret(secret: V1Secret): Promise<void> {
    const data = Object.fromEntries(
      Object.entries(secret.stringData ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    );
    const { stringData: _plain, ...rest } = secret;
    await this.applier.apply({ ...rest, data });
  }

  /** One value of a Secret, for the Connect flow's refresh (the refresh token); undefined when absent. */
  async secretValue(namespace: string, name: string, key: string): Promise<string | undefined> {
    const secret = await this.core.readNamespacedSecret({ name, namespace }).catch((err) => {
      if (notFound(err)) return undefined;
      throw err;
    });
    const value = secret?.data?.[key];
    return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  }

  async saveIntegration(namespace: string, name: string, spec: IntegrationSpec): Promise<IntegrationObject> {
    return this.applier.apply<IntegrationObject>({
      apiVersion: API_VERSION,
      kind: 'Integration',
      metadata: {
        name,
        namespace,
        labels: { [LABEL_OFFICE]: spec.officeId, [LABEL_MANAGED_BY]: MANAGED_BY },
      },
      spec,
    });
  }

  async saveBinding(
    namespace: string,
    name: string,
    spec: AgentBindingSpec,
    officeId: string,
  ): Promise<AgentBindingObject> {
    return this.applier.apply<AgentBindingObject>({
      apiVersion: API_VERSION,
      kind: 'AgentBinding',
      metadata: { name, namespace, labels: { [LABEL_OFFICE]: officeId, [LABEL_MANAGED_BY]: MANAGED_BY } },
      spec,
    });
  }

  /** The roles on the agent's workload (colony.ai/roles), or undefined when it has no workload yet. */
  async agentRoles(namespace: string, agentName: string): Promise<string[] | undefined> {
    const labelSelector = `${LABEL_AGENT}=${agentName}`;
    const [sts, deps] = await Promise.all([
      this.apps.listNamespacedStatefulSet({ namespace, labelSelector }),
      this.apps.listNamespacedDeployment({ namespace, labelSelector }),
    ]);
    const w = sts.items[0] ?? deps.items[0];
    return w ? parseRoles(w.metadata?.annotations?.[ANNOTATION_ROLES]) : undefined;
  }

  /** One namespace's, or every namespace's when none is given (following every page). */
  async listIntegrations(namespace?: string): Promise<IntegrationObject[]> {
    return this.listAll<IntegrationObject>('integrations', namespace);
  }

  async listBindings(namespace?: string): Promise<AgentBindingObject[]> {
    return this.listAll<AgentBindingObject>('agentbindings', namespace);
  }

  private async listAll<T>(plural: string, namespace?: string): Promise<T[]> {
    if (namespace || !this.officesOnly) return this.listPages<T>(plural, namespace);
    const offices = await this.core.listNamespace({ labelSelector: LABEL_OFFICE });
    const lists = await Promise.all(
      offices.items.map((n) =>
        this.listPages<T>(plural, n.metadata?.name).catch((err) => {
          // Labelled by hand and not yet PUT as an office: Colony has no rights there yet.
          if ((err as { code?: number }).code === 403) return [];
          throw err;
        }),
      ),
    );
    return lists.flat();
  }

  // CustomObjectsApi returns the wire JSON, continue token included (KubernetesObjectApi drops it).
  private async listPages<T>(plural: string, namespace?: string): Promise<T[]> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      const common = {
        group: GROUP,
        version: VERSION,
        plural,
        limit: 500,
        ...(token ? { _continue: token } : {}),
      };
      const page = (
        namespace
          ? await this.custom.listNamespacedCustomObject({ ...common, namespace })
          : await this.custom.listClusterCustomObject(common)
      ) as { items: T[]; metadata?: { continue?: string } };
      items.push(...page.items);
      token = page.metadata?.continue || undefined;
    } while (token);
    return items;
  }

  /** Deletes the Integration and its Secret; answers false when there was nothing to delete. */
  async deleteIntegration(namespace: string, name: string, secretName: string): Promise<boolean> {
    let found = false;
    const ref = { apiVersion: API_VERSION, kind: 'Integration', metadata: { name, namespace } };
    await this.objects.delete(ref).then(
      () => {
        found = true;
      },
      (err) => {
        if (!notFound(err)) throw err;
      },
    );
    await this.core.deleteNamespacedSecret({ name: secretName, namespace }).then(
      () => {
        found = true;
      },
      (err) => {
        if (!notFound(err)) throw err;
      },
    );
    return found;
  }
}
