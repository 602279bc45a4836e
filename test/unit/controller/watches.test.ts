// Which informer events enqueue which requests: for each watched kind and event, the agents and
// Integrations queued, and whether they wait behind real changes (a periodic resync).
import type { V1Deployment, V1Pod, V1Secret, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { AgentBindingObject, IntegrationObject } from '../../../cluster/objects.ts';
import { type ClusterView, indexClusterView } from '../../../controller/reconcilers/cluster-view.ts';
import { wireEvents } from '../../../controller/watches.ts';
import { FakeInformer } from './fake-informer.ts';

const ns = 'office-acme';
const meta = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  namespace: ns,
  generation: 1,
  resourceVersion: '1',
  ...extra,
});

const binding = (name: string, agentName: string, secretName: string): AgentBindingObject => ({
  metadata: meta(name),
  spec: { agentName, secretName, integrationId: 'slack', enabled: true },
});
const integration = (name: string, secretName: string): IntegrationObject => ({
  metadata: meta(name),
  spec: { integrationId: 'slack', officeId: 'acme', secretName },
});
const secret = (name: string, extra: Record<string, unknown> = {}): V1Secret => ({
  metadata: meta(name, extra),
  data: { TOKEN: 'eA==' },
});
const agentLabel = (agent: string) => ({ labels: { 'colony.ai/agent': agent } });
const serviceLabels = (instance?: string) => ({
  labels: {
    'app.kubernetes.io/managed-by': 'colony',
    'colony.ai/integration': 'slack',
    ...(instance ? { 'colony.ai/instance': instance } : {}),
  },
});
const replicaFailure = {
  conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'forbidden' }],
};
const initExit = (exitCode: number): V1Pod['status'] => ({
  initContainerStatuses: [
    {
      name: 'colony-init',
      image: 'i',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { terminated: { exitCode } },
    },
  ],
});

/** A small office: two agents share the slack Secret, which two Integrations use. */
function office() {
  const view = {
    bindings: new FakeInformer<AgentBindingObject>(),
    integrations: new FakeInformer<IntegrationObject>(),
    secrets: new FakeInformer<V1Secret>(),
    deployments: new FakeInformer<V1Deployment>(),
    statefulSets: new FakeInformer<V1StatefulSet>(),
    serviceDeployments: new FakeInformer<V1Deployment>(),
    services: new FakeInformer<V1Service>(),
    pods: new FakeInformer<V1Pod>(),
  } satisfies ClusterView;
  indexClusterView(view);
  view.bindings.seed(binding('alice-slack', 'alice', 'slack-acme'));
  view.bindings.seed(binding('bob-slack', 'bob', 'slack-acme'));
  view.bindings.seed(binding('carol-mail', 'carol', 'mail-acme'));
  view.integrations.seed(integration('slack', 'slack-acme'));
  view.integrations.seed(integration('slack-copy', 'slack-acme'));
  view.integrations.seed(integration('mail', 'mail-acme'));
  view.secrets.seed(secret('slack-acme'));
  view.deployments.seed({ metadata: meta('alice-app', agentLabel('alice')) });
  view.statefulSets.seed({ metadata: meta('bob-app', agentLabel('bob')) });
  view.pods.seed({ metadata: meta('alice-app-0', agentLabel('alice')), status: initExit(0) });
  view.serviceDeployments.seed({ metadata: meta('slack', serviceLabels()) });
  view.services.seed({ metadata: meta('slack', serviceLabels()) });
  const queued = { agents: [] as string[], integrations: [] as string[], low: [] as boolean[] };
  const queue = (into: string[]) => ({
    add(key: string, lowPriority = false) {
      into.push(key);
      queued.low.push(lowPriority);
    },
  });
  wireEvents(view, { agents: queue(queued.agents), integrations: queue(queued.integrations) });
  return { view, queued };
}

type View = ReturnType<typeof office>['view'];
const k = (name: string) => `${ns}/${name}`;
const both = { a: ['alice', 'bob'], i: ['slack', 'slack', 'slack-copy'] };

// [event, what happens, agents queued, Integrations queued, queued for later]
const cases: Array<[string, (v: View) => void, string[], string[], boolean?]> = [
  // AgentBinding: its own agent and the Integrations of its Secret; status-only updates are skipped.
  [
    'binding added',
    (v) => v.bindings.add(binding('dan-slack', 'dan', 'slack-acme')),
    ['dan'],
    ['slack', 'slack-copy'],
  ],
  [
    'binding spec changed',
    (v) =>
      v.bindings.update({
        ...binding('alice-slack', 'alice', 'slack-acme'),
        metadata: meta('alice-slack', { generation: 2 }),
      }),
    ['alice', 'alice'],
    ['slack', 'slack-copy', 'slack', 'slack-copy'],
  ],
  [
    'binding status changed',
    (v) =>
      v.bindings.update({ ...binding('alice-slack', 'alice', 'slack-acme'), status: { injectedEnv: ['X'] } }),
    [],
    [],
  ],
  [
    'binding moved to another agent and Secret',
    (v) =>
      v.bindings.update({
        ...binding('alice-slack', 'carol', 'mail-acme'),
        metadata: meta('alice-slack', { generation: 2 }),
      }),
    ['carol', 'alice'],
    ['mail', 'slack', 'slack-copy'],
  ],
  [
    'binding resynced',
    (v) => v.bindings.resync(k('alice-slack')),
    ['alice', 'alice'],
    ['slack', 'slack-copy', 'slack', 'slack-copy'],
    true,
  ],
  [
    'binding deleted',
    (v) => v.bindings.delete(binding('alice-slack', 'alice', 'slack-acme')),
    ['alice'],
    ['slack', 'slack-copy'],
  ],
  // Integration: itself, the Integrations sharing its Secret and that Secret's agents.
  [
    'Integration added',
    (v) => v.integrations.add(integration('slack-eu', 'slack-acme')),
    both.a,
    ['slack-eu', 'slack', 'slack-copy', 'slack-eu'],
  ],
  [
    'Integration labels changed',
    (v) =>
      v.integrations.update({
        ...integration('slack', 'slack-acme'),
        metadata: meta('slack', { labels: { x: 'y' } }),
      }),
    both.a,
    both.i,
  ],
  [
    'Integration credential check changed (status)',
    (v) =>
      v.integrations.update({
        ...integration('slack', 'slack-acme'),
        status: {
          credentialCheck: { ok: true, message: 'ok', secretVersion: '1', checkedAt: '2026-01-01T00:00:00Z' },
        },
      }),
    both.a,
    both.i,
  ],
  [
    'Integration conditions changed (status)',
    (v) =>
      v.integrations.update({ ...integration('slack', 'slack-acme'), status: { enabledAgents: ['alice'] } }),
    [],
    [],
  ],
  ['Integration resynced', (v) => v.integrations.resync(k('mail')), ['carol'], ['mail', 'mail'], true],
  [
    'Integration deleted',
    (v) => v.integrations.delete(integration('slack', 'slack-acme')),
    both.a,
    ['slack', 'slack-copy'],
  ],
  // Secret: the users of the Secret, or of the Secret a generated one derives from, and its binding.
  ['Secret added', (v) => v.secrets.add(secret('mail-acme')), ['carol'], ['mail']],
  [
    'Secret changed',
    (v) => v.secrets.update({ ...secret('slack-acme'), data: { TOKEN: 'eQ==' } }),
    both.a,
    ['slack', 'slack-copy'],
  ],
  ['Secret resynced', (v) => v.secrets.resync(k('slack-acme')), both.a, ['slack', 'slack-copy'], true],
  [
    'generated credential-files Secret added',
    (v) => v.secrets.add(secret('slack-acme-files', { labels: { 'colony.ai/generated': 'true' } })),
    both.a,
    ['slack', 'slack-copy'],
  ],
  ['ungenerated Secret named like files', (v) => v.secrets.add(secret('slack-acme-files')), [], []],
  [
    'Secret owned by an AgentBinding deleted',
    (v) =>
      v.secrets.delete(
        secret('db-alice', {
          labels: { 'colony.ai/generated': 'true' },
          ownerReferences: [
            { apiVersion: 'colony.ai/v1alpha1', kind: 'AgentBinding', name: 'alice-slack', uid: 'u' },
          ],
        }),
      ),
    ['alice'],
    [],
  ],
  [
    'Secret owned by a deleted AgentBinding',
    (v) =>
      v.secrets.add(
        secret('db-gone', {
          ownerReferences: [
            { apiVersion: 'colony.ai/v1alpha1', kind: 'AgentBinding', name: 'gone', uid: 'u' },
          ],
        }),
      ),
    [],
    [],
  ],
  // Agent workloads: the agent their label names; status counts only when pods cannot be created.
  [
    'agent Deployment added',
    (v) => v.deployments.add({ metadata: meta('dan-app', agentLabel('dan')) }),
    ['dan'],
    [],
  ],
  [
    'agent Deployment status changed',
    (v) =>
      v.deployments.update({ metadata: meta('alice-app', agentLabel('alice')), status: { replicas: 2 } }),
    [],
    [],
  ],
  [
    'agent Deployment cannot create pods',
    (v) => v.deployments.update({ metadata: meta('alice-app', agentLabel('alice')), status: replicaFailure }),
    ['alice'],
    [],
  ],
  [
    'agent Deployment annotated',
    (v) =>
      v.deployments.update({
        metadata: meta('alice-app', { ...agentLabel('alice'), annotations: { a: 'b' } }),
      }),
    ['alice'],
    [],
  ],
  ['agent Deployment resynced', (v) => v.deployments.resync(k('alice-app')), ['alice'], [], true],
  [
    'agent Deployment deleted',
    (v) => v.deployments.delete({ metadata: meta('alice-app', agentLabel('alice')) }),
    ['alice'],
    [],
  ],
  [
    'agent StatefulSet added',
    (v) => v.statefulSets.add({ metadata: meta('erin-app', agentLabel('erin')) }),
    ['erin'],
    [],
  ],
  [
    'agent StatefulSet spec changed',
    (v) => v.statefulSets.update({ metadata: meta('bob-app', { ...agentLabel('bob'), generation: 2 }) }),
    ['bob'],
    [],
  ],
  [
    'agent StatefulSet status changed',
    (v) => v.statefulSets.update({ metadata: meta('bob-app', agentLabel('bob')), status: { replicas: 1 } }),
    [],
    [],
  ],
  // Agent pods: only the colony-init container's outcome counts.
  [
    'agent pod added',
    (v) => v.pods.add({ metadata: meta('alice-app-1', agentLabel('alice')) }),
    ['alice'],
    [],
  ],
  [
    'agent pod phase changed',
    (v) =>
      v.pods.update({
        metadata: meta('alice-app-0', agentLabel('alice')),
        status: { ...initExit(0), phase: 'Running' },
      }),
    [],
    [],
  ],
  [
    'agent pod init failed',
    (v) => v.pods.update({ metadata: meta('alice-app-0', agentLabel('alice')), status: initExit(3) }),
    ['alice'],
    [],
  ],
  ['agent pod resynced', (v) => v.pods.resync(k('alice-app-0')), ['alice'], [], true],
  [
    'agent pod deleted',
    (v) => v.pods.delete({ metadata: meta('alice-app-0', agentLabel('alice')) }),
    ['alice'],
    [],
  ],
  // Per-office service: its Integration on every change; a change in whether it can create pods also
  // concerns the agents using the Integration's Secret.
  [
    'service Deployment added',
    (v) => v.serviceDeployments.add({ metadata: meta('slack-eu', serviceLabels('eu')) }),
    [],
    ['slack-eu'],
  ],
  [
    'service Deployment status changed',
    (v) =>
      v.serviceDeployments.update({ metadata: meta('slack', serviceLabels()), status: { readyReplicas: 1 } }),
    [],
    ['slack'],
  ],
  [
    'service Deployment cannot create pods',
    (v) => v.serviceDeployments.update({ metadata: meta('slack', serviceLabels()), status: replicaFailure }),
    both.a,
    both.i,
  ],
  ['service Deployment resynced', (v) => v.serviceDeployments.resync(k('slack')), both.a, both.i, true],
  [
    'service Deployment deleted',
    (v) => v.serviceDeployments.delete({ metadata: meta('slack', serviceLabels()) }),
    [],
    ['slack'],
  ],
  [
    'Service added',
    (v) => v.services.add({ metadata: meta('slack-eu', serviceLabels('eu')) }),
    [],
    ['slack-eu'],
  ],
  [
    'Service changed',
    (v) => v.services.update({ metadata: meta('slack', serviceLabels()), spec: { ports: [] } }),
    [],
    ['slack'],
  ],
  ['Service resynced', (v) => v.services.resync(k('slack')), [], ['slack'], true],
  ['Service deleted', (v) => v.services.delete({ metadata: meta('slack', serviceLabels()) }), [], ['slack']],
];

describe('wireEvents', () => {
  it.each(cases)('%s', (_event, happen, agents, integrations, later = false) => {
    const { view, queued } = office();
    happen(view);
    expect([...queued.agents].sort()).toEqual(agents.map(k).sort());
    expect([...queued.integrations].sort()).toEqual(integrations.map(k).sort());
    expect(new Set(queued.low)).toEqual(new Set(queued.low.length > 0 ? [later] : []));
  });
});
