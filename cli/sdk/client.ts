// The typed SDK the CLI is built on: `new ColonyClient({ endpoint, apiKey })`, or `{ endpoint, auth }`
// with the login `colony login` stored. Errors are the API's problem+json documents, thrown as
// ColonyApiError; an endpoint that does not answer, as ColonyNetworkError. Requests are built from
// the operations table (operations.ts), the answers typed in api-types.ts.
import type {
  AgentIntegration,
  ApiKey,
  CreateApiKeyInput,
  CreatedApiKey,
  IntegrationDefinition,
  Me,
  Office,
  OfficeIntegrations,
  OfficeMember,
  OfficeTask,
  SavedIntegration,
  Snapshot,
  SnapshotRestore,
  SnapshotSchedule,
} from './api-types.ts';
import { type OperationId, operationPath, operations } from './operations.ts';

export type {
  AgentIntegration,
  ApiKey,
  Condition,
  CreateApiKeyInput,
  CreatedApiKey,
  IntegrationDefinition,
  Me,
  Membership,
  Office,
  OfficeIntegration,
  OfficeIntegrations,
  OfficeMember,
  OfficeTask,
  Registration,
  SavedIntegration,
  Snapshot,
  SnapshotRestore,
  SnapshotSchedule,
  Usage,
} from './api-types.ts';
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
  /** The answer's Retry-After, in seconds, when it carried one (429, 503). */
  readonly retryAfterSeconds: number | undefined;

  constructor(problem: Problem, retryAfterSeconds?: number) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The endpoint did not answer at all (refused, unknown host, reset). */
export class ColonyNetworkError extends Error {
  override readonly name = 'ColonyNetworkError';
}

/** An answer and how long the server asks the client to wait before asking again. */
export interface Polled<T> {
  value: T;
  retryAfterSeconds: number | undefined;
}

/** Retry-After in seconds (an HTTP date counts from now); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, nowMs = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
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

type Params = Record<string, string>;
type Query = Record<string, string | number | undefined>;

export class ColonyClient {
  readonly endpoint: string;
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
      throw new ColonyNetworkError(`cannot reach ${this.endpoint} (${cause})`, { cause: err });
    });
  }

  /** One operation of the table: its answer, and the Retry-After the server sent with it. */
  private async exchange<T>(
    id: OperationId,
    opts: { params?: Params; query?: Query; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Polled<T>> {
    const { method } = operations[id];
    const path = operationPath(id, opts.params, opts.query);
    const headers = opts.headers ?? {};
    const bearer = this.apiKey ?? (await this.auth?.token());
    let res = await this.send(method, path, opts.body, headers, bearer);
    // A stored login's token may have been revoked or expired early: renew it once and retry.
    if (res.status === 401 && this.auth && bearer) {
      const renewed = await this.auth.renew(bearer);
      if (renewed) res = await this.send(method, path, opts.body, headers, renewed);
    }
    const text = await res.text();
    const parsed = parseBody(text);
    const wait = retryAfterSeconds(res.headers.get('retry-after'));
    if (!res.ok) throw new ColonyApiError(problemFrom(res, parsed, text), wait);
    return { value: parsed as T, retryAfterSeconds: wait };
  }

  private async call<T>(id: OperationId, opts: Parameters<ColonyClient['exchange']>[1] = {}): Promise<T> {
    return (await this.exchange<T>(id, opts)).value;
  }

  /** The profile behind the credential (`/api/v1/me`). */
  me(): Promise<Me> {
    return this.call('getMe');
  }

  /** Your active API keys, never the keys themselves (needs a login token with `keys:write`). */
  listKeys(): Promise<{ keys: ApiKey[] }> {
    return this.call('listApiKeys');
  }

  /** Creates an API key; the answer's `key` is the only time it is shown. */
  createKey(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    return this.call('createApiKey', { body: input });
  }

  /** Revokes an API key; it fails at once. */
  async revokeKey(id: string): Promise<void> {
    await this.call('revokeApiKey', { params: { id } });
  }

  listIntegrations(query: { q?: string; category?: string } = {}): Promise<{
    integrations: IntegrationDefinition[];
  }> {
    return this.call('listIntegrations', { query });
  }

  getIntegration(id: string): Promise<IntegrationDefinition> {
    return this.call('getIntegration', { params: { id } });
  }

  /** Creates an office (its namespace); an office that exists answers as it is. */
  createOffice(officeID: string): Promise<Office> {
    return this.call('putOffice', { params: { officeID } });
  }

  async deleteOffice(officeID: string): Promise<void> {
    await this.call('deleteOffice', { params: { officeID } });
  }

  officeIntegrations(officeID: string): Promise<OfficeIntegrations> {
    return this.call('listOfficeIntegrations', { params: { officeID } });
  }

  /** Like officeIntegrations, with the server's Retry-After, for waiting on a status. */
  officeIntegrationsPolled(officeID: string): Promise<Polled<OfficeIntegrations>> {
    return this.exchange('listOfficeIntegrations', { params: { officeID } });
  }

  /** Stores credentials; the answer names the saved fields, never their values. */
  saveSecret(
    officeID: string,
    integrationId: string,
    data: Record<string, string>,
    secretName?: string,
  ): Promise<SavedIntegration> {
    return this.call('saveIntegrationSecret', {
      params: { officeID, integration_id: integrationId },
      body: { data, ...(secretName ? { secretName } : {}) },
    });
  }

  async deleteSecret(officeID: string, integrationId: string, instance?: string): Promise<void> {
    await this.call('deleteIntegrationSecret', {
      params: { officeID, integration_id: integrationId },
      query: { instance },
    });
  }

  toggleAgent(
    officeID: string,
    integrationId: string,
    agentName: string,
    body: { enabled: boolean; secretName: string; config?: Record<string, string> },
  ): Promise<AgentIntegration> {
    return this.call('toggleAgentIntegration', {
      params: { officeID, integration_id: integrationId, agentName },
      body,
    });
  }

  /** The browser link a member of the office opens to connect an OAuth integration. */
  connectUrl(officeID: string, integrationId: string, instance?: string): Promise<{ connectUrl: string }> {
    return this.call('connectIntegration', {
      params: { officeID, integration_id: integrationId },
      query: { instance },
    });
  }

  listMembers(officeID: string): Promise<{ officeId: string; members: OfficeMember[] }> {
    return this.call('listOfficeMembers', { params: { officeID } });
  }

  putMember(officeID: string, body: { email: string; role?: string }): Promise<OfficeMember> {
    return this.call('putOfficeMember', { params: { officeID }, body });
  }

  async removeMember(officeID: string, accountId: string): Promise<void> {
    await this.call('deleteOfficeMember', { params: { officeID, accountId } });
  }

  listTasks(
    officeID: string,
    query: { status?: string } = {},
  ): Promise<{
    tasks: OfficeTask[];
    nextCursor: string | null;
  }> {
    return this.call('listOfficeTasks', { params: { officeID }, query });
  }

  createTask(officeID: string, body: { title: string; prompt: string }): Promise<OfficeTask> {
    return this.call('createOfficeTask', { params: { officeID }, body });
  }

  getTask(officeID: string, taskId: string): Promise<OfficeTask> {
    return this.call('getOfficeTask', { params: { officeID, taskId } });
  }

  updateTask(officeID: string, taskId: string, status: string): Promise<OfficeTask> {
    return this.call('updateOfficeTask', { params: { officeID, taskId }, body: { status } });
  }

  /** Snapshots the credential may see, newest first (`/api/snapshots`, scope backups:read). */
  listSnapshots(query: { office?: string; status?: string; limit?: number; cursor?: string } = {}): Promise<{
    data: Snapshot[];
    nextCursor: string | null;
  }> {
    return this.call('listSnapshots', { query });
  }

  getSnapshot(id: string): Promise<Snapshot> {
    return this.call('getSnapshot', { params: { id } });
  }

  /** A snapshot with the server's Retry-After while it runs. */
  snapshotPolled(id: string): Promise<Polled<Snapshot>> {
    return this.exchange('getSnapshot', { params: { id } });
  }

  /** Takes a snapshot of an office (backups:write); it runs as a job on the server. */
  createSnapshot(
    office: string,
    opts: { description?: string | undefined; idempotencyKey?: string | undefined } = {},
  ): Promise<Snapshot> {
    return this.call('createSnapshot', {
      body: { office, ...(opts.description ? { description: opts.description } : {}) },
      headers: opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {},
    });
  }

  async deleteSnapshot(id: string): Promise<void> {
    await this.call('deleteSnapshot', { params: { id } });
  }

  /** Restores an office from a snapshot (backups:admin); it runs as a job on the server. */
  restoreSnapshot(
    id: string,
    opts: { parts?: string[] | undefined; idempotencyKey?: string | undefined } = {},
  ): Promise<SnapshotRestore> {
    return this.call('restoreSnapshot', {
      params: { id },
      body: opts.parts ? { parts: opts.parts } : {},
      headers: opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {},
    });
  }

  getRestore(snapshotId: string, restoreId: string): Promise<SnapshotRestore> {
    return this.call('getSnapshotRestore', { params: { id: snapshotId, restoreId } });
  }

  restorePolled(snapshotId: string, restoreId: string): Promise<Polled<SnapshotRestore>> {
    return this.exchange('getSnapshotRestore', { params: { id: snapshotId, restoreId } });
  }

  /** An office's daily snapshot schedule and retention. */
  getSchedule(officeID: string): Promise<SnapshotSchedule> {
    return this.call('getSnapshotSchedule', { params: { officeID } });
  }

  putSchedule(
    officeID: string,
    body: { enabled: boolean; hourUtc: number; retentionDays: number },
  ): Promise<SnapshotSchedule> {
    return this.call('putSnapshotSchedule', { params: { officeID }, body });
  }
}
