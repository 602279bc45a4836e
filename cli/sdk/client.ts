// The typed SDK the CLI is built on: `new ColonyClient({ endpoint, apiKey })`, or `{ endpoint, auth }`
// with the login `colony login` stored. Errors are the API's problem+json documents, thrown as
// ColonyApiError.
/** Where the SDK client gets its bearer token when it has no API key. */
export interface BearerSource {
  /** The token to send now. */
  token(): Promise<string>;
  /** After a 401 for `rejected`: a fresh token to retry with, or undefined to give up. */
  renew(rejected: string): Promise<string | undefined>;
}

export interface ColonyClientOptions {
  /** Address of the Colony API (or the office-manager listener), e.g. https://colony.example.com */
  endpoint: string;
  /** An API key (col_…) or operator token, sent as a bearer token. */
  apiKey?: string | undefined;
  /** Used when there is no apiKey: a refreshing token source such as the stored CLI login. */
  auth?: BearerSource | undefined;
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

/** Why fetch failed (ECONNREFUSED, ENOTFOUND…), where it only says "fetch failed"; else undefined. */
export function networkCause(err: unknown): string | undefined {
  if (!(err instanceof TypeError)) return undefined;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? err.message;
}

/** A problem document for an answer that carried none (a proxy's HTML error page, say). */
function problemFrom(res: Response, parsed: unknown, text: string): Problem {
  const p = parsed as Partial<Problem> | null;
  if (p && typeof p === 'object' && typeof p.status === 'number' && typeof p.code === 'string')
    return p as Problem;
  return {
    type: 'about:blank',
    title: res.statusText || `HTTP ${res.status}`,
    status: res.status,
    code: `http_${res.status}`,
    detail: text.slice(0, 200) || res.statusText || 'no detail given',
  };
}

function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** GET /api/v1/me: the credential and, for a person's credential, their account. */
export interface Me {
  id: string;
  type: 'user' | 'service_auth' | 'anonymous';
  name: string;
  email?: string;
  scopes: string[];
  offices: string[] | '*';
  credential: string;
  credentialId?: string;
  clientId?: string;
  resource?: string;
  account: {
    id: string;
    email: string;
    name: string;
    createdAt: string;
    memberships: { officeId: string; role: string }[];
  } | null;
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

export interface Snapshot {
  id: string;
  office: string;
  status: 'pending' | 'running' | 'completed' | 'failed' | 'deleted';
  trigger: 'manual' | 'schedule';
  description: string | null;
  sizeBytes: number;
  parts: Record<
    'resources' | 'database' | 'volumes',
    { status: string; detail?: string; [k: string]: unknown }
  >;
  error: string | null;
  createdAt: string;
  completedAt: string | null;
  [field: string]: unknown;
}

export interface SnapshotRestore {
  id: string;
  snapshotId: string;
  office: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  report: Record<string, { status: string; detail?: string; [k: string]: unknown }>;
  error: string | null;
  [field: string]: unknown;
}

export class ColonyClient {
  private readonly endpoint: string;
  private readonly apiKey: string | undefined;
  private readonly auth: BearerSource | undefined;
  private readonly fetcher: typeof fetch;

  constructor(opts: ColonyClientOptions) {
    this.endpoint = opts.endpoint.replace(/\/+$/, '');
    this.apiKey = opts.apiKey;
    this.auth = opts.apiKey ? undefined : opts.auth;
    this.fetcher = opts.fetch ?? fetch;
  }

  private send(
    method: string,
    path: string,
    body: unknown,
    extraHeaders: Record<string, string>,
    bearer: string | undefined,
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.fetcher(`${this.endpoint}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }).catch((err: unknown) => {
      const cause = networkCause(err);
      if (!cause) throw err;
      throw new Error(`cannot reach ${this.endpoint} (${cause})`, { cause: err });
    });
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<T> {
    const bearer = this.apiKey ?? (await this.auth?.token());
    let res = await this.send(method, path, body, extraHeaders, bearer);
    // A stored login's token may have been revoked or expired early: renew it once and retry.
    if (res.status === 401 && this.auth && bearer) {
      const renewed = await this.auth.renew(bearer);
      if (renewed) res = await this.send(method, path, body, extraHeaders, renewed);
    }
    const text = await res.text();
    const parsed = parseBody(text);
    if (!res.ok) throw new ColonyApiError(problemFrom(res, parsed, text));
    return parsed as T;
  }

  /** The profile behind the credential (`/api/v1/me`). */
  me(): Promise<Me> {
    return this.call('GET', '/api/v1/me');
  }

  /** Your active API keys, never the keys themselves (needs a login token with `keys:write`). */
  listKeys(): Promise<{ keys: ApiKey[] }> {
    return this.call('GET', '/api/v1/keys');
  }

  /** Creates an API key; the answer's `key` is the only time it is shown. */
  createKey(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    return this.call('POST', '/api/v1/keys', input);
  }

  /** Revokes an API key; it fails at once. */
  async revokeKey(id: string): Promise<void> {
    await this.call('DELETE', `/api/v1/keys/${encodeURIComponent(id)}`);
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

  /** Snapshots the key may see, newest first (`/api/snapshots`, scope backups:read). */
  listSnapshots(query?: { office?: string; status?: string; limit?: number; cursor?: string }): Promise<{
    data: Snapshot[];
    nextCursor: string | null;
  }> {
    const params = new URLSearchParams(
      Object.entries(query ?? {})
        .filter(([, v]) => v !== undefined)
        .map(([k, v]): [string, string] => [k, String(v)]),
    );
    return this.call('GET', `/api/snapshots${params.size ? `?${params}` : ''}`);
  }

  getSnapshot(id: string): Promise<Snapshot> {
    return this.call('GET', `/api/snapshots/${encodeURIComponent(id)}`);
  }

  /** Takes a snapshot of an office (backups:write); it runs as a job: poll getSnapshot. */
  createSnapshot(
    office: string,
    opts: { description?: string; idempotencyKey?: string } = {},
  ): Promise<Snapshot> {
    return this.call(
      'POST',
      '/api/snapshots',
      { office, ...(opts.description ? { description: opts.description } : {}) },
      opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {},
    );
  }

  /** Restores an office from a snapshot (backups:admin); poll getRestore. */
  restoreSnapshot(
    id: string,
    opts: { parts?: string[]; idempotencyKey?: string } = {},
  ): Promise<SnapshotRestore> {
    return this.call(
      'POST',
      `/api/snapshots/${encodeURIComponent(id)}/restore`,
      opts.parts ? { parts: opts.parts } : {},
      opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {},
    );
  }

  getRestore(snapshotId: string, restoreId: string): Promise<SnapshotRestore> {
    return this.call(
      'GET',
      `/api/snapshots/${encodeURIComponent(snapshotId)}/restores/${encodeURIComponent(restoreId)}`,
    );
  }
}
