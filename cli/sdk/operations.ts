// Every API operation the SDK calls: its method, path template and the /openapi.json component it
// answers. The client builds its requests from this table and a test holds it to /openapi.json.

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** The component of the success answer; null for 204 or an answer the SDK does not type. */
  answers: string | null;
}

export const operations = {
  getMe: { method: 'GET', path: '/api/v1/me', answers: 'Account' },
  listApiKeys: { method: 'GET', path: '/api/v1/keys', answers: 'ApiKeys' },
  createApiKey: { method: 'POST', path: '/api/v1/keys', answers: 'CreatedApiKey' },
  revokeApiKey: { method: 'DELETE', path: '/api/v1/keys/{id}', answers: null },
  listIntegrations: { method: 'GET', path: '/api/v1/integrations', answers: null },
  getIntegration: { method: 'GET', path: '/api/v1/integrations/{id}', answers: 'IntegrationDefinition' },
  putOffice: { method: 'PUT', path: '/api/v1/offices/{officeID}', answers: 'Office' },
  deleteOffice: { method: 'DELETE', path: '/api/v1/offices/{officeID}', answers: null },
  listOfficeIntegrations: {
    method: 'GET',
    path: '/api/v1/offices/{officeID}/integrations',
    answers: 'OfficeIntegrations',
  },
  saveIntegrationSecret: {
    method: 'POST',
    path: '/api/v1/offices/{officeID}/integrations/{integration_id}/secret',
    answers: 'SavedIntegration',
  },
  deleteIntegrationSecret: {
    method: 'DELETE',
    path: '/api/v1/offices/{officeID}/integrations/{integration_id}/secret',
    answers: null,
  },
  toggleAgentIntegration: {
    method: 'POST',
    path: '/api/v1/offices/{officeID}/integrations/{integration_id}/agents/{agentName}',
    answers: 'AgentIntegration',
  },
  connectIntegration: {
    method: 'POST',
    path: '/api/v1/offices/{officeID}/integrations/{integration_id}/connect',
    answers: 'ConnectLink',
  },
  listOfficeMembers: { method: 'GET', path: '/api/v1/offices/{officeID}/members', answers: 'OfficeMembers' },
  putOfficeMember: { method: 'PUT', path: '/api/v1/offices/{officeID}/members', answers: 'OfficeMember' },
  deleteOfficeMember: {
    method: 'DELETE',
    path: '/api/v1/offices/{officeID}/members/{accountId}',
    answers: null,
  },
  listOfficeTasks: { method: 'GET', path: '/api/v1/offices/{officeID}/tasks', answers: null },
  createOfficeTask: { method: 'POST', path: '/api/v1/offices/{officeID}/tasks', answers: 'OfficeTask' },
  getOfficeTask: { method: 'GET', path: '/api/v1/offices/{officeID}/tasks/{taskId}', answers: 'OfficeTask' },
  updateOfficeTask: {
    method: 'PATCH',
    path: '/api/v1/offices/{officeID}/tasks/{taskId}',
    answers: 'OfficeTask',
  },
  listSnapshots: { method: 'GET', path: '/api/snapshots', answers: 'SnapshotList' },
  createSnapshot: { method: 'POST', path: '/api/snapshots', answers: 'Snapshot' },
  getSnapshot: { method: 'GET', path: '/api/snapshots/{id}', answers: 'Snapshot' },
  deleteSnapshot: { method: 'DELETE', path: '/api/snapshots/{id}', answers: null },
  restoreSnapshot: { method: 'POST', path: '/api/snapshots/{id}/restore', answers: 'SnapshotRestore' },
  getSnapshotRestore: {
    method: 'GET',
    path: '/api/snapshots/{id}/restores/{restoreId}',
    answers: 'SnapshotRestore',
  },
  getSnapshotSchedule: {
    method: 'GET',
    path: '/api/snapshots/schedules/{officeID}',
    answers: 'SnapshotSchedule',
  },
  putSnapshotSchedule: {
    method: 'PUT',
    path: '/api/snapshots/schedules/{officeID}',
    answers: 'SnapshotSchedule',
  },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof operations;

/** The path of an operation with its parameters filled in (each one URL-encoded) and a query. */
export function operationPath(
  id: OperationId,
  params: Record<string, string> = {},
  query: Record<string, string | number | undefined> = {},
): string {
  const path = operations[id].path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${id}: missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const qs = new URLSearchParams(
    Object.entries(query)
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]): [string, string] => [k, String(v)]),
  );
  return qs.size ? `${path}?${qs}` : path;
}
