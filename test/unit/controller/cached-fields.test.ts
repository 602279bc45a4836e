// The cache transforms keep exactly what the reconcilers read of each kind.
import type { V1Deployment, V1ObjectMeta, V1Pod, V1Secret, V1StatefulSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { AgentBindingObject } from '../../../cluster/objects.ts';
import {
  cachedBinding,
  cachedPod,
  cachedSecret,
  cachedService,
  cachedServiceDeployment,
  cachedWorkload,
} from '../../../controller/reconcilers/cached-fields.ts';
import { LAST_APPLIED, trimMetadata } from '../../../controller/runtime/cache-transform.ts';

// Metadata as the API server sends it: the kept fields plus what only the server and kubectl need.
const kept: V1ObjectMeta = {
  name: 'agent-1',
  namespace: 'office-a',
  uid: 'u-1',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2026-01-01T00:00:00Z' as unknown as Date,
  labels: { 'colony.ai/agent': 'agent-1' },
  annotations: { 'colony.ai/applied-hash': 'abc' },
  ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'ux' }],
  finalizers: ['colony.ai/database'],
};
const wire: V1ObjectMeta = {
  ...kept,
  annotations: { ...kept.annotations, [LAST_APPLIED]: '{"a huge":"copy"}' },
  managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
  selfLink: '/apis/apps/v1/x',
  generateName: 'agent-',
};

describe('trimMetadata', () => {
  it('keeps identity, versions, labels, annotations, owners and finalizers, and drops the rest', () => {
    expect(trimMetadata(wire)).toEqual(kept);
  });

  it('leaves absent fields absent', () => {
    expect(trimMetadata({ name: 'a' })).toStrictEqual({ name: 'a' });
    expect(trimMetadata(undefined)).toStrictEqual({});
  });
});

const template = {
  metadata: { labels: { app: 'a' }, annotations: { 'colony.ai/credentials-checksum': 'c' } },
  spec: {
    containers: [
      {
        name: 'agent',
        image: 'busybox',
        env: [{ name: 'OPENAI_API_KEY', valueFrom: { secretKeyRef: { name: 's', key: 'OPENAI_API_KEY' } } }],
        resources: { limits: { memory: '1Gi' } },
        volumeMounts: [{ name: 'v', mountPath: '/v' }],
      },
      { name: 'sidecar', image: 'envoy', args: ['--big'] },
    ],
    initContainers: [{ name: 'colony-init', image: 'node', command: ['sh', '-c', 'long script'] }],
    volumes: [{ name: 'v', emptyDir: {} }],
  },
};

describe('cachedWorkload', () => {
  it('keeps metadata, the template labels and annotations, each container name and env, and status', () => {
    const sts: V1StatefulSet = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: wire,
      spec: { replicas: 1, serviceName: 'a', selector: { matchLabels: { app: 'a' } }, template },
      status: { replicas: 1, availableReplicas: 1 },
    };
    expect(cachedWorkload(sts)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: kept,
      spec: {
        selector: { matchLabels: { app: 'a' } },
        template: {
          metadata: template.metadata,
          spec: {
            containers: [{ name: 'agent', env: template.spec.containers[0]?.env }, { name: 'sidecar' }],
          },
        },
      },
      status: { replicas: 1, availableReplicas: 1 },
    });
  });
});

describe('cachedServiceDeployment and cachedService', () => {
  it('keep metadata (the spec-hash annotation) and the Deployment status, not the pod template', () => {
    const d: V1Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: wire,
      spec: { selector: {}, template },
      status: { conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' }] },
    };
    expect(cachedServiceDeployment(d)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: kept,
      status: d.status,
    });
    expect(cachedService({ apiVersion: 'v1', kind: 'Service', metadata: wire, spec: { ports: [] } })).toEqual(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: kept,
      },
    );
  });
});

describe('cachedPod', () => {
  it('keeps metadata, the phase, the init containers outcomes and what the usage meter reads, and drops the rest', () => {
    const init = {
      name: 'colony-init',
      image: 'node',
      imageID: 'sha',
      ready: false,
      restartCount: 2,
      started: false,
      containerID: 'containerd://x',
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode: 1, message: 'colony-init: openai failed' } },
    };
    const pod: V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: wire,
      spec: {
        ...template.spec,
        containers: [
          {
            ...template.spec.containers[0],
            name: 'agent',
            resources: { requests: { cpu: '2' }, limits: { cpu: '4' } },
          },
          { name: 'sidecar', image: 'envoy' },
        ],
      },
      status: {
        phase: 'Pending',
        podIP: '10.0.0.1',
        startTime: new Date('2026-11-01T00:00:00Z'),
        conditions: [{ type: 'Ready', status: 'False' }],
        initContainerStatuses: [init],
        containerStatuses: [
          {
            name: 'agent',
            image: 'busybox',
            imageID: 'x',
            ready: false,
            restartCount: 0,
            state: {
              terminated: { exitCode: 1, reason: 'Error', finishedAt: new Date('2026-11-01T01:00:00Z') },
            },
          },
          {
            name: 'sidecar',
            image: 'envoy',
            imageID: 'y',
            ready: true,
            restartCount: 0,
            state: { running: {} },
          },
        ],
      },
    };
    const { started: _s, containerID: _c, ...keptInit } = init;
    expect(cachedPod(pod)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: kept,
      spec: { containers: [{ name: 'agent', resources: { requests: { cpu: '2' } } }, { name: 'sidecar' }] },
      status: {
        phase: 'Pending',
        startTime: new Date('2026-11-01T00:00:00Z'),
        initContainerStatuses: [keptInit],
        containerStatuses: [
          { name: 'agent', state: { terminated: { finishedAt: new Date('2026-11-01T01:00:00Z') } } },
          { name: 'sidecar' },
        ],
      },
    });
  });
});

describe('cachedSecret and cachedBinding', () => {
  it('keep the Secret data and type, and the binding spec and status', () => {
    const s: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: wire,
      type: 'Opaque',
      data: { K: 'dg==' },
    };
    expect(cachedSecret(s)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: kept,
      type: 'Opaque',
      data: s.data,
    });
    const b: AgentBindingObject = {
      apiVersion: 'colony.ai/v1alpha1',
      kind: 'AgentBinding',
      metadata: wire,
      spec: { agentName: 'a', integrationId: 'openai', secretName: 's', enabled: true },
      status: { observedGeneration: 3, conditions: [] },
    };
    expect(cachedBinding(b)).toEqual({ ...b, metadata: kept });
  });
});
