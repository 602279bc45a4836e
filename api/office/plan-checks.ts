// The plan checks of the office-manager writes: a new integration or a newly enabled agent must fit
// the limits of the account the office counts against, and an integration's service or database
// must be in its plan. Re-saving what exists is never refused: an office keeps what it has.
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import type { Entitlements } from '../commerce/entitlements/entitlements.ts';
import type { OfficeCluster } from './office-cluster.ts';

/** What the checks need: the office route context has both, and so does the Connect flow. */
export interface PlanCheckContext {
  cluster(): OfficeCluster;
  entitlements: Entitlements;
}

/** What `list` finds in every one of these offices' namespaces (offices without one count nothing). */
async function acrossOffices<T>(
  cluster: OfficeCluster,
  officeIds: string[],
  list: (namespace: string) => Promise<T[]>,
): Promise<T[]> {
  const lists = await Promise.all(
    officeIds.map(async (o) => {
      const ns = await cluster.officeNamespace(o);
      return ns ? list(ns) : [];
    }),
  );
  return lists.flat();
}

/** Saving a new integration (its resource `name` not yet in the office): features, then the limit. */
export async function requireIntegrationRoom(
  ctx: PlanCheckContext,
  at: { officeId: string; namespace: string; name: string },
  manifest: Pick<IntegrationManifest, 'colonyContainer' | 'database'>,
): Promise<void> {
  const c = ctx.cluster();
  const existing = await c.listIntegrations(at.namespace);
  if (existing.some((i) => i.metadata?.name === at.name)) return;
  if (manifest.colonyContainer) await ctx.entitlements.requireFeature(at.officeId, 'office_services');
  if (manifest.database) await ctx.entitlements.requireFeature(at.officeId, 'office_databases');
  await ctx.entitlements.requireRoom(
    at.officeId,
    'integrations',
    async (offices) => (await acrossOffices(c, offices, (ns) => c.listIntegrations(ns))).length,
  );
}

/**
 * Enabling an agent that has no enabled integration in the office yet: the `agents` limit counts
 * distinct agents (per office) with at least one enabled integration across the account's offices.
 */
export async function requireAgentRoom(
  ctx: PlanCheckContext,
  at: { officeId: string; namespace: string; agentName: string },
): Promise<void> {
  const c = ctx.cluster();
  const enabled = (ns: string) =>
    c.listBindings(ns).then((bs) => bs.filter((b) => b.spec.enabled && !b.metadata?.deletionTimestamp));
  if ((await enabled(at.namespace)).some((b) => b.spec.agentName === at.agentName)) return;
  await ctx.entitlements.requireRoom(at.officeId, 'agents', async (offices) => {
    const bindings = await acrossOffices(c, offices, enabled);
    return new Set(bindings.map((b) => `${b.metadata?.namespace}/${b.spec.agentName}`)).size;
  });
}
