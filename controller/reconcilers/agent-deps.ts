// What the agent reconciler and its helpers read and write through: the cache, the registry, the
// applier and the status writer. Its own module, so the helpers need not import the reconciler.
import type { V1SecurityContext } from '@kubernetes/client-node';
import type { Applier } from '../../cluster/apply.ts';
import type { AgentBindingObject } from '../../cluster/objects.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import type { ClusterView } from './cluster-view.ts';
import type { DatabaseLayer } from './database-layer.ts';
import type { StatusWriter } from './status-writer.ts';

export interface AgentDeps {
  view: ClusterView;
  registry: IntegrationRegistry;
  applier: Applier;
  status: StatusWriter;
  now: () => Date;
  /** Image of the colony-init container (shared-drive folders, cliInstalls). */
  initImage: string;
  /** securityContext of the colony-init container (restricted Pod Security by default). */
  initSecurityContext?: V1SecurityContext | undefined;
  /** Whether the credentialCheck layer runs; when off, its verdict does not gate agents. */
  credentialChecks?: boolean;
  /** The database layer; undefined when no office database is configured. */
  database?: DatabaseLayer | undefined;
  recordEvent?: (b: AgentBindingObject, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}
