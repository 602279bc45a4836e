// A stand-in Colony API on a loopback port for the CLI's table-driven test: one canned answer per
// operation of the SDK's table (shaped like /openapi.json's components), and a log of the requests.
import { createServer, type Server } from 'node:http';
import { type OperationId, operations } from '../../../cli/sdk/operations.ts';

const at = '2026-11-26T00:00:00.000Z';
const registration = {
  Name: 'Slack',
  ID: 'slack',
  Status: 'active',
  SecretName: 'slack',
  Capabilities: [],
  AgentEnvVars: ['SLACK_TOKEN'],
};
const task = {
  id: 'task_0123456789abcdef0123',
  officeId: 'acme',
  title: 'Report',
  prompt: 'Summarise the week',
  status: 'open',
  source: null,
  createdAt: at,
  updatedAt: at,
};
const parts = { resources: { status: 'completed' }, database: { status: 'skipped', detail: 'none' } };
const snapshot = {
  id: 'snap_0123456789abcdef01234567',
  office: 'acme',
  status: 'completed',
  trigger: 'manual',
  description: null,
  sizeBytes: 1000,
  parts: { ...parts, volumes: { status: 'skipped' } },
  error: null,
  createdAt: at,
  completedAt: at,
};

const schedule = {
  office: 'acme',
  enabled: true,
  frequency: 'daily',
  hourUtc: 3,
  retentionDays: 30,
  nextRunAt: at,
};
const restore = {
  id: 'rst_1',
  snapshotId: snapshot.id,
  office: 'acme',
  status: 'completed',
  report: parts,
  error: null,
};

/** The answer of each operation; undefined means 204 No Content. */
export const cannedAnswers: Record<OperationId, unknown> = {
  getMe: {
    id: 'key_a',
    type: 'service_auth',
    name: 'ci',
    scopes: ['offices:read'],
    offices: ['acme'],
    credential: 'api_key',
    credentialId: 'key_a',
    account: null,
    usage: {
      period: '2026-11',
      periodStart: '2026-11-01T00:00:00.000Z',
      periodEnd: '2026-12-01T00:00:00.000Z',
      plan: 'starter',
      allowanceCredits: 1000,
      usedCredits: 1200.5,
      remainingCredits: 0,
      projectedCredits: 1500,
      projectedOverageCredits: 500,
      projectedOverageCents: 2000,
      offices: [{ officeId: 'acme', usedCredits: 1200.5 }],
    },
  },
  listApiKeys: { keys: [] },
  createApiKey: {
    id: 'key_b',
    name: 'x',
    hint: 'col_Ab…',
    scopes: [],
    offices: null,
    createdAt: at,
    lastUsedAt: null,
    expiresAt: null,
    key: 'col_the-secret-key',
  },
  revokeApiKey: undefined,
  listIntegrations: { integrations: [] },
  getIntegration: {
    id: 'slack',
    name: 'Slack',
    description: 'Chat',
    category: 'communication',
    aliases: [],
    verified: true,
    wizard: 'guide',
    requiredSecrets: [],
    agentEnvVars: ['SLACK_TOKEN'],
    multiInstance: false,
    officeLevel: false,
    layers: [],
    dependsOn: [],
    composedWith: [],
    guideUrl: 'https://colony.test/guide',
  },
  putOffice: { officeId: 'acme', namespace: 'acme' },
  deleteOffice: undefined,
  listOfficeIntegrations: {
    officeId: 'acme',
    recommendations: [],
    integrations: [
      {
        integrationId: 'slack',
        instanceLabel: null,
        registration,
        conditions: [],
        connection: null,
        agents: [{ agentName: 'support', enabled: true, conditions: [] }],
      },
    ],
  },
  saveIntegrationSecret: {
    officeId: 'acme',
    integrationId: 'slack',
    instanceLabel: null,
    registration,
    savedKeys: ['SLACK_TOKEN'],
  },
  deleteIntegrationSecret: undefined,
  toggleAgentIntegration: {
    officeId: 'acme',
    integrationId: 'slack',
    instanceLabel: null,
    agentName: 'support',
    enabled: true,
    secretName: 'slack',
    conditions: [],
  },
  connectIntegration: { connectUrl: 'https://colony.test/connect/slack?office=acme' },
  listOfficeMembers: { officeId: 'acme', members: [] },
  putOfficeMember: {
    officeId: 'acme',
    accountId: 'acct_1',
    email: 'ada@example.com',
    name: 'Ada',
    role: 'operator',
    addedAt: at,
  },
  deleteOfficeMember: undefined,
  listOfficeTasks: { tasks: [], nextCursor: null },
  createOfficeTask: task,
  getOfficeTask: task,
  updateOfficeTask: { ...task, status: 'done' },
  listSnapshots: { data: [], nextCursor: null },
  createSnapshot: snapshot,
  getSnapshot: snapshot,
  deleteSnapshot: undefined,
  getSnapshotSchedule: schedule,
  putSnapshotSchedule: schedule,
  restoreSnapshot: restore,
  getSnapshotRestore: restore,
};

const patterns = Object.entries(operations).map(([id, op]) => ({
  id: id as OperationId,
  method: op.method,
  pattern: new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}$`),
}));

export interface CannedApi {
  url: string;
  /** `METHOD /path` of each request, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startCannedApi(): Promise<CannedApi> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(`${req.method} ${path}`);
    req.resume();
    if (path === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: '9.9.9' }));
      return;
    }
    const op = patterns.find((p) => p.method === req.method && p.pattern.test(path));
    if (!op) {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(
        JSON.stringify({
          type: 'about:blank',
          title: 'Not Found',
          status: 404,
          code: 'not_found',
          detail: path,
        }),
      );
      return;
    }
    const answer = cannedAnswers[op.id];
    if (answer === undefined) res.writeHead(204).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
