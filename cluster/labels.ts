// Label and annotation keys Colony puts on the objects it owns.
export const LABEL_OFFICE = 'colony.ai/office';
export const LABEL_AGENT = 'colony.ai/agent';
export const LABEL_INTEGRATION = 'colony.ai/integration';
export const LABEL_INSTANCE = 'colony.ai/instance';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'colony';
/** On a pod template: changes whenever an injected credential changes, so the agent rolls. */
export const ANNOTATION_CHECKSUM = 'colony.ai/credentials-checksum';
/** On a per-office service Deployment: hash of the rendered objects, to skip no-op applies. */
export const ANNOTATION_SPEC_HASH = 'colony.ai/spec-hash';
/** On an agent workload: the env var names Colony injected, comma-separated. */
export const ANNOTATION_INJECTED = 'colony.ai/injected-env';
/** On an agent workload: hash of everything Colony applied to it (env, volumes, init container). */
export const ANNOTATION_APPLIED = 'colony.ai/applied-hash';
/** On an agent workload: comma-separated roles, for the members layer's requiredRoles. */
export const ANNOTATION_ROLES = 'colony.ai/roles';
/** On a Secret Colony generates (credential files, database credentials); the API's Secrets lack it. */
export const LABEL_GENERATED = 'colony.ai/generated';
/** On an agent workload: which container receives the env vars (default: the first). */
export const ANNOTATION_AGENT_CONTAINER = 'colony.ai/agent-container';
export const FIELD_MANAGER = 'colony-controller';

export function officeNamespace(officeId: string): string {
  return `office-${officeId}`;
}
