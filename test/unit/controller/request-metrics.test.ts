// How the controller names its Kubernetes API requests and records reconciles in Prometheus.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createControllerMetrics } from '../../../controller/metrics.ts';
import { worthReconciling } from '../../../controller/runtime/predicates.ts';
import { requestLabels } from '../../../controller/runtime/request-labels.ts';

const base = 'https://127.0.0.1:6443';

describe('requestLabels', () => {
  it.each([
    ['GET', '/apis/colony.ai/v1alpha1/agentbindings?limit=500', 'list', 'agentbindings'],
    ['GET', '/apis/colony.ai/v1alpha1/agentbindings?watch=true&resourceVersion=5', 'watch', 'agentbindings'],
    ['GET', '/api/v1/namespaces/office-acme/secrets/openai-acme', 'get', 'secrets'],
    ['GET', '/api/v1/namespaces/office-acme', 'get', 'namespaces'],
    ['GET', '/api/v1/namespaces', 'list', 'namespaces'],
    ['POST', '/apis/events.k8s.io/v1/namespaces/x/events', 'create', 'events'],
    [
      'PUT',
      '/apis/coordination.k8s.io/v1/namespaces/colony-system/leases/colony-controller',
      'update',
      'leases',
    ],
    [
      'PATCH',
      '/apis/colony.ai/v1alpha1/namespaces/x/integrations/openai/status',
      'patch',
      'integrations/status',
    ],
    ['DELETE', '/apis/apps/v1/namespaces/x/deployments/tailscale', 'delete', 'deployments'],
    ['GET', '/apis/apps/v1', 'get', 'discovery'],
  ])('%s %s is %s %s', (method, path, verb, resource) => {
    expect(requestLabels(method, `${base}${path}`)).toEqual({ verb, resource });
  });

  it('tells a server-side apply from other patches by its content type', () => {
    const url = `${base}/apis/apps/v1/namespaces/x/deployments/agent`;
    expect(requestLabels('PATCH', url, 'application/apply-patch+yaml').verb).toBe('apply');
    expect(requestLabels('PATCH', url, 'application/merge-patch+json').verb).toBe('patch');
  });

  it('keeps paths outside the resource API apart', () => {
    expect(requestLabels('GET', `${base}/version`)).toEqual({ verb: 'other', resource: '/version' });
  });
});

describe('createControllerMetrics', () => {
  it('counts reconcile errors per queue next to the duration histogram', async () => {
    const registry = new Registry();
    const metrics = createControllerMetrics(registry);
    metrics.observeReconcile('agents', 0.02, true);
    metrics.observeReconcile('agents', 0.5, false);
    metrics.observeReconcile('integrations', 0.01, false);
    const text = await registry.metrics();
    expect(text).toMatch(/reconcile_errors_total\{queue="agents"\} 1/);
    expect(text).toMatch(/reconcile_errors_total\{queue="integrations"\} 1/);
    expect(text).toMatch(/reconcile_duration_seconds_count\{queue="agents",result="success"\} 1/);
    expect(text).toMatch(/reconcile_duration_seconds_count\{queue="agents",result="error"\} 1/);
  });
});

describe('worthReconciling', () => {
  const base = {
    metadata: { name: 'a', generation: 2, labels: { x: '1' }, annotations: { y: '1' }, resourceVersion: '7' },
  };
  it('skips status-only updates and keeps spec, label, annotation and deletion changes', () => {
    const statusOnly = {
      ...base,
      metadata: { ...base.metadata, resourceVersion: '8' },
      status: { ok: true },
    };
    expect(worthReconciling(statusOnly, base)).toBe(false);
    expect(worthReconciling({ metadata: { ...base.metadata, generation: 3 } }, base)).toBe(true);
    expect(worthReconciling({ metadata: { ...base.metadata, labels: { x: '2' } } }, base)).toBe(true);
    expect(worthReconciling({ metadata: { ...base.metadata, annotations: {} } }, base)).toBe(true);
    expect(worthReconciling({ metadata: { ...base.metadata, deletionTimestamp: new Date(0) } }, base)).toBe(
      true,
    );
    // A periodic resync hands over the same object: it always counts.
    expect(worthReconciling(base, base)).toBe(true);
  });
});
