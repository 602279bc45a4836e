// The API's answers as the SDK types them, each with the list of its fields at run time, so
// test/unit/cli/sdk-openapi.test.ts can hold every type to its /openapi.json component.

/** `required` fields the API always sends; `optional` ones it may leave out. */
type Fields<T> = { readonly [K in keyof Required<T>]: undefined extends T[K] ? 'optional' : 'required' };

export interface Membership {
  officeId: string;
  role: 'owner' | 'operator';
}

/** GET /api/v1/me: the credential and, for a person's credential, their account. */
export interface Me {
  id: string;
  type: 'user' | 'service_auth';
  name: string;
  email?: string | undefined;
  scopes: string[];
  offices: string[] | '*';
  credential: 'bootstrap_token' | 'api_key' | 'oauth_access_token';
  credentialId?: string | undefined;
  clientId?: string | undefined;
  resource?: string | undefined;
  account: { id: string; email: string; name: string; createdAt: string; memberships: Membership[] } | null;
  /** The account's metered credits this period; null when nothing is metered or it has no plan nor office. */
  usage?: Usage | null | undefined;
}

/** An account's credits this period (a UTC calendar month) against its plan's allowance. */
export interface Usage {
  period: string;
  periodStart: string;
  periodEnd: string;
  plan: string | null;
  allowanceCredits: number;
  usedCredits: number;
  remainingCredits: number;
  projectedCredits: number;
  projectedOverageCredits: number;
  projectedOverageCents: number | null;
  offices: { officeId: string; usedCredits: number }[];
}

export interface ApiKey {
  id: string;
  name: string;
  /** The prefix and first characters; never enough to use the key. */
  hint: string;
  scopes: string[];
  offices: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

export interface CreatedApiKey extends ApiKey {
  /** The key itself, answered this once. */
  key: string;
}

export interface CreateApiKeyInput {
  name: string;
  scopes?: string[];
  offices?: string[] | null;
  expiresInDays?: number | null;
}

export interface CredentialField {
  key: string;
  label: string;
  type: 'text' | 'password';
  required: boolean;
  hint: string | null;
  helpUrl: string | null;
  helpLabel: string;
}

/** The fields of an integration definition the CLI reads (the API sends more). */
export interface IntegrationDefinition {
  id: string;
  name: string;
  description: string;
  category: 'llm' | 'communication' | 'services';
  aliases: string[];
  verified: boolean;
  wizard: 'guide' | 'interactive' | 'oauth' | 'auto';
  requiredSecrets: CredentialField[];
  agentEnvVars: string[];
  multiInstance: boolean;
  officeLevel: boolean;
  layers: string[];
  dependsOn: string[];
  composedWith: string[];
  guideUrl: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number | undefined;
}

/** The registration entry, field names as the interface spec spells them. */
export interface Registration {
  Name: string;
  ID: string;
  Status: 'pending' | 'configured' | 'active' | 'error';
  SecretName: string;
  Capabilities: string[];
  AgentEnvVars: string[];
}

export interface OfficeIntegration {
  integrationId: string;
  instanceLabel: string | null;
  registration: Registration;
  conditions: Condition[];
  connection: { status: 'connected' | 'refresh_failed'; message: string | null } | null;
  agents: { agentName: string; enabled: boolean; conditions: Condition[] }[];
}

export interface OfficeIntegrations {
  officeId: string;
  integrations: OfficeIntegration[];
  recommendations: { integrationId: string; name: string; recommendedBy: string[] }[];
}

export interface SavedIntegration {
  officeId: string;
  integrationId: string;
  instanceLabel: string | null;
  registration: Registration;
  /** Names of the stored fields, never their values. */
  savedKeys: string[];
}

export interface AgentIntegration {
  officeId: string;
  integrationId: string;
  instanceLabel: string | null;
  agentName: string;
  enabled: boolean;
  secretName: string;
  conditions: Condition[];
}

export interface Office {
  officeId: string;
  namespace: string;
}

export interface OfficeMember {
  officeId: string;
  accountId: string;
  email: string;
  name: string;
  role: 'owner' | 'operator';
  addedAt: string;
}

export interface OfficeTask {
  id: string;
  officeId: string;
  title: string;
  prompt: string;
  status: 'open' | 'in_progress' | 'done' | 'canceled';
  source: { integrationId: string; template: string; scheduledFor: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

export type PartReport = { status: string; detail?: string };

export interface Snapshot {
  id: string;
  office: string;
  status: 'pending' | 'running' | 'completed' | 'failed' | 'deleted';
  trigger: 'manual' | 'schedule';
  description: string | null;
  sizeBytes: number;
  parts: Record<'resources' | 'database' | 'volumes', PartReport>;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  deletedAt: string | null;
  links: { self: string; restore: string };
}

export interface SnapshotRestore {
  id: string;
  snapshotId: string;
  office: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  report: Partial<Record<'resources' | 'database' | 'volumes', PartReport>>;
  error: string | null;
  createdAt: string;
  completedAt: string | null;
  links: { self: string; snapshot: string };
}

export interface SnapshotSchedule {
  office: string;
  enabled: boolean;
  frequency: 'daily';
  hourUtc: number;
  retentionDays: number;
  nextRunAt: string | null;
}

/** The OpenAPI component each SDK type stands for, and its fields. */
export const sdkShapes = {
  Account: {
    id: 'required',
    type: 'required',
    name: 'required',
    email: 'optional',
    scopes: 'required',
    offices: 'required',
    credential: 'required',
    credentialId: 'optional',
    clientId: 'optional',
    resource: 'optional',
    account: 'required',
    usage: 'optional',
  } satisfies Fields<Me>,
  Usage: {
    period: 'required',
    periodStart: 'required',
    periodEnd: 'required',
    plan: 'required',
    allowanceCredits: 'required',
    usedCredits: 'required',
    remainingCredits: 'required',
    projectedCredits: 'required',
    projectedOverageCredits: 'required',
    projectedOverageCents: 'required',
    offices: 'required',
  } satisfies Fields<Usage>,
  ApiKey: {
    id: 'required',
    name: 'required',
    hint: 'required',
    scopes: 'required',
    offices: 'required',
    createdAt: 'required',
    lastUsedAt: 'required',
    expiresAt: 'required',
  } satisfies Fields<ApiKey>,
  Condition: {
    type: 'required',
    status: 'required',
    reason: 'required',
    message: 'required',
    lastTransitionTime: 'required',
    observedGeneration: 'optional',
  } satisfies Fields<Condition>,
  Registration: {
    Name: 'required',
    ID: 'required',
    Status: 'required',
    SecretName: 'required',
    Capabilities: 'required',
    AgentEnvVars: 'required',
  } satisfies Fields<Registration>,
  OfficeIntegrations: {
    officeId: 'required',
    integrations: 'required',
    recommendations: 'required',
  } satisfies Fields<OfficeIntegrations>,
  SavedIntegration: {
    officeId: 'required',
    integrationId: 'required',
    instanceLabel: 'required',
    registration: 'required',
    savedKeys: 'required',
  } satisfies Fields<SavedIntegration>,
  AgentIntegration: {
    officeId: 'required',
    integrationId: 'required',
    instanceLabel: 'required',
    agentName: 'required',
    enabled: 'required',
    secretName: 'required',
    conditions: 'required',
  } satisfies Fields<AgentIntegration>,
  Office: { officeId: 'required', namespace: 'required' } satisfies Fields<Office>,
  OfficeMember: {
    officeId: 'required',
    accountId: 'required',
    email: 'required',
    name: 'required',
    role: 'required',
    addedAt: 'required',
  } satisfies Fields<OfficeMember>,
  OfficeTask: {
    id: 'required',
    officeId: 'required',
    title: 'required',
    prompt: 'required',
    status: 'required',
    source: 'required',
    createdAt: 'required',
    updatedAt: 'required',
  } satisfies Fields<OfficeTask>,
  Snapshot: {
    id: 'required',
    office: 'required',
    status: 'required',
    trigger: 'required',
    description: 'required',
    sizeBytes: 'required',
    parts: 'required',
    error: 'required',
    createdAt: 'required',
    startedAt: 'required',
    completedAt: 'required',
    deletedAt: 'required',
    links: 'required',
  } satisfies Fields<Snapshot>,
  SnapshotRestore: {
    id: 'required',
    snapshotId: 'required',
    office: 'required',
    status: 'required',
    report: 'required',
    error: 'required',
    createdAt: 'required',
    completedAt: 'required',
    links: 'required',
  } satisfies Fields<SnapshotRestore>,
  SnapshotSchedule: {
    office: 'required',
    enabled: 'required',
    frequency: 'required',
    hourUtc: 'required',
    retentionDays: 'required',
    nextRunAt: 'required',
  } satisfies Fields<SnapshotSchedule>,
  IntegrationDefinition: {
    id: 'required',
    name: 'required',
    description: 'required',
    category: 'required',
    aliases: 'required',
    verified: 'required',
    wizard: 'required',
    requiredSecrets: 'required',
    agentEnvVars: 'required',
    multiInstance: 'required',
    officeLevel: 'required',
    layers: 'required',
    dependsOn: 'required',
    composedWith: 'required',
    guideUrl: 'required',
  } satisfies Fields<IntegrationDefinition>,
} as const;
