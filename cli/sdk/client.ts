// The typed SDK the CLI is built on: `new ColonyClient({ endpoint, apiKey })`. Errors are the API's
// problem+json documents, thrown as ColonyApiError.

export interface ColonyClientOptions {
  /** Address of the Colony API (or the office-manager listener), e.g. https://colony.example.com */
  endpoint: string;
  /** An API key (col_…) or operator token, sent as a bearer token. */
  apiKey?: string | undefined;
  fetch?: typeof fetch;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  [extension: string]: unknown;
}

export class ColonyApiError extends Error {
  override readonly name = 'ColonyApiError';
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.problem = problem;
  }
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
  [field: string]: unknown;
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

export class ColonyClient {
  private readonly endpoint: string;
  private readonly apiKey: string | undefined;
  private readonly fetcher: typeof fetch;

  constructor(opts: ColonyClientOptions) {
    this.endpoint = opts.endpoint.replace(/\/+$/, '');
    this.apiKey = opts.apiKey;
    this.fetcher = opts.fetch ?? fetch;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fetcher(`${this.endpoint}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : null;
    if (!res.ok) throw new ColonyApiError(parsed as Problem);
    return parsed as T;
  }

  listIntegrations(query?: {
    q?: string;
    category?: string;
  }): Promise<{ integrations: IntegrationDefinition[] }> {
    const params = new URLSearchParams(
      Object.entries(query ?? {}).filter(([, v]) => v) as [string, string][],
    );
    return this.call('GET', `/api/v1/integrations${params.size ? `?${params}` : ''}`);
  }

  getIntegration(id: string): Promise<IntegrationDefinition> {
    return this.call('GET', `/api/v1/integrations/${encodeURIComponent(id)}`);
  }

  officeIntegrations(officeId: string): Promise<{ integrations: unknown[]; recommendations: unknown[] }> {
    return this.call('GET', `/api/v1/offices/${encodeURIComponent(officeId)}/integrations`);
  }

  saveSecret(officeId: string, id: string, data: Record<string, string>): Promise<unknown> {
    return this.call(
      'POST',
      `/api/v1/offices/${encodeURIComponent(officeId)}/integrations/${encodeURIComponent(id)}/secret`,
      { data },
    );
  }

  toggleAgent(
    officeId: string,
    id: string,
    agentName: string,
    body: { enabled: boolean; secretName: string; config?: Record<string, string> },
  ): Promise<unknown> {
    return this.call(
      'POST',
      `/api/v1/offices/${encodeURIComponent(officeId)}/integrations/${encodeURIComponent(id)}/agents/${encodeURIComponent(agentName)}`,
      body,
    );
  }

  /** The browser link a member of the office opens to connect an OAuth integration. */
  connectUrl(officeId: string, id: string, instance?: string): Promise<{ connectUrl: string }> {
    const qs = instance ? `?instance=${encodeURIComponent(instance)}` : '';
    return this.call(
      'POST',
      `/api/v1/offices/${encodeURIComponent(officeId)}/integrations/${encodeURIComponent(id)}/connect${qs}`,
    );
  }

  listTasks(
    officeId: string,
    query?: { status?: string },
  ): Promise<{ tasks: OfficeTask[]; nextCursor: string | null }> {
    const qs = query?.status ? `?status=${encodeURIComponent(query.status)}` : '';
    return this.call('GET', `/api/v1/offices/${encodeURIComponent(officeId)}/tasks${qs}`);
  }
}
