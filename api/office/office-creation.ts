// Making and giving back offices, for a cluster admin and self-serve: an account with a plan creates
// an office it is not yet a member of, becomes its first owner and its billing account. Used by
// PUT/DELETE /api/v1/offices/{officeID} and by the office form on /account.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Entitlements } from '../commerce/entitlements/entitlements.ts';
import type { Config } from '../config.ts';
import type { OfficeMembersRepo } from '../identity/offices/office-members-repo.ts';
import type { Principal } from '../shared/identity.ts';
import { ProblemError } from '../shared/problem.ts';
import type { OfficeCluster } from './office-cluster.ts';
import { GrantsPendingError, NamespaceTakenError, OfficeNamespaces } from './office-namespaces.ts';
import { MAX_DEFAULT_OFFICE_ID } from './render-office-grants.ts';

const taken = (officeId: string) =>
  new ProblemError('conflict', `Office ${officeId} already exists: choose another name.`);

export interface OfficeCreationDeps {
  config: Config;
  kubeConfig: KubeConfig | undefined;
  officeCluster: OfficeCluster | undefined;
  members: OfficeMembersRepo;
  entitlements: Entitlements;
  now: () => number;
}

export class OfficeCreation {
  private readonly deps: OfficeCreationDeps;
  private readonly offices: OfficeNamespaces | undefined;

  constructor(deps: OfficeCreationDeps) {
    this.deps = deps;
    const k = deps.config.kubernetes;
    this.offices = deps.kubeConfig
      ? new OfficeNamespaces(deps.kubeConfig, { rbacScope: k.rbacScope, grants: k.officeGrants })
      : undefined;
  }

  /** The namespaces helper, or the reason offices cannot be made or given back here. */
  namespaces(): OfficeNamespaces {
    const k = this.deps.config.kubernetes;
    if (!this.offices || !this.deps.officeCluster)
      throw new ProblemError('service_unavailable', 'No Kubernetes cluster is configured (set KUBECONFIG).');
    if (k.watchNamespace)
      throw new ProblemError(
        'conflict',
        `Colony runs namespaced (COLONY_WATCH_NAMESPACE=${k.watchNamespace}): its one office is that namespace, labelled by an admin.`,
      );
    return this.offices;
  }

  officeNamespace(officeId: string): Promise<string | undefined> {
    this.namespaces();
    return (this.deps.officeCluster as OfficeCluster).officeNamespace(officeId);
  }

  /**
   * The account a PUT would create this office for, self-serve: an account credential bound to the
   * whole account (not to listed offices), for an office that has neither a namespace nor members.
   */
  async selfServeAccount(principal: Principal, officeId: string): Promise<string | undefined> {
    if (!principal.accountId || principal.officeBinding !== 'account') return undefined;
    if (principal.offices === '*' || principal.offices.includes(officeId)) return undefined;
    return (await this.isUnclaimed(officeId)) ? principal.accountId : undefined;
  }

  private async isUnclaimed(officeId: string): Promise<boolean> {
    const [namespace, members] = await Promise.all([
      this.officeNamespace(officeId),
      this.deps.members.ofOffice(officeId),
    ]);
    return namespace === undefined && members.length === 0;
  }

  /** Makes (or adopts) the office's namespace and its grants, with the problems the API answers. */
  async ensure(
    officeId: string,
    existing: string | undefined,
  ): Promise<{ namespace: string; created: boolean }> {
    if (!existing && officeId.length > MAX_DEFAULT_OFFICE_ID)
      throw new ProblemError(
        'invalid_request',
        `office-${officeId} would be longer than a namespace name may be (63): label a namespace colony.ai/office=${officeId} yourself, then PUT again.`,
      );
    try {
      return await this.namespaces().ensure(officeId, existing);
    } catch (err) {
      if (err instanceof NamespaceTakenError) throw new ProblemError('conflict', err.message);
      if (err instanceof GrantsPendingError)
        throw new ProblemError('service_unavailable', `${err.message} Retry the PUT.`);
      throw err;
    }
  }

  /**
   * Self-serve: the account's plan must have room; the billing row and the owner membership are
   * written first, so a retry after a failure finds the account an owner and finishes the namespace.
   */
  async createFor(accountId: string, officeId: string): Promise<{ namespace: string; created: boolean }> {
    const { entitlements, members, now } = this.deps;
    if (!(await this.isUnclaimed(officeId))) throw taken(officeId);
    await entitlements.requireOfficeRoom(accountId);
    await entitlements.billing.record(officeId, accountId, now());
    // Two accounts claiming one name at once: the first billing row wins, the other is refused.
    if ((await entitlements.billing.accountOf(officeId)) !== accountId) throw taken(officeId);
    await members.upsert(officeId, accountId, 'owner', now());
    try {
      return await this.ensure(officeId, undefined);
    } catch (err) {
      await members.remove(officeId, accountId);
      await entitlements.billing.forget(officeId);
      throw err;
    }
  }

  /**
   * Gives the namespace back. A self-serve office also stops counting against its plan and loses its
   * members, so its name cannot come back as an office outside any plan.
   */
  async remove(officeId: string, namespace: string): Promise<void> {
    const { entitlements, members } = this.deps;
    await this.namespaces().remove(namespace);
    if ((await entitlements.billing.accountOf(officeId)) === undefined) return;
    for (const m of await members.ofOffice(officeId)) await members.remove(officeId, m.accountId);
    await entitlements.billing.forget(officeId);
  }
}
