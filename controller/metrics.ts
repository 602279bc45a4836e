// The controller's Prometheus metrics. They register into whichever registry serves /metrics: the
// controller's own (`npm run controller`) or the API's when the controller runs in-process.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RequestLabels } from './runtime/request-labels.ts';

export interface ControllerMetrics {
  /** One observation per reconcile, labelled by queue and result (`success` or `error`). */
  observeReconcile(queue: string, seconds: number, ok: boolean): void;
  countRequest(labels: RequestLabels): void;
}

export interface ControllerState {
  queueDepth(queue: 'agents' | 'integrations'): number;
  isLeader(): boolean;
  writes(): number;
  cachedObjects(): number;
}

export function createControllerMetrics(registry: Registry): ControllerMetrics {
  const duration = new Histogram({
    name: 'colony_controller_reconcile_duration_seconds',
    help: 'Time to reconcile one key, by queue and result',
    labelNames: ['queue', 'result'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'colony_controller_reconcile_errors_total',
    help: 'Reconciles that failed and were requeued with backoff, by queue',
    labelNames: ['queue'],
    registers: [registry],
  });
  const requests = new Counter({
    name: 'colony_controller_kubernetes_requests_total',
    help: 'Requests the controller made to the Kubernetes API, by verb and resource',
    labelNames: ['verb', 'resource'],
    registers: [registry],
  });
  return {
    observeReconcile(queue, seconds, ok) {
      duration.observe({ queue, result: ok ? 'success' : 'error' }, seconds);
      if (!ok) errors.inc({ queue });
    },
    countRequest(labels) {
      requests.inc({ verb: labels.verb, resource: labels.resource });
    },
  };
}

/** Gauges read at scrape time from the running controller. */
export function registerControllerGauges(registry: Registry, state: ControllerState): void {
  new Gauge({
    name: 'colony_controller_queue_depth',
    help: 'Keys waiting in each work queue',
    labelNames: ['queue'],
    registers: [registry],
    collect() {
      this.set({ queue: 'agents' }, state.queueDepth('agents'));
      this.set({ queue: 'integrations' }, state.queueDepth('integrations'));
    },
  });
  new Gauge({
    name: 'colony_controller_leader',
    help: '1 while this replica holds the leader Lease',
    registers: [registry],
    collect() {
      this.set(state.isLeader() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'colony_controller_cached_objects',
    help: 'Objects held in the informer caches',
    registers: [registry],
    collect() {
      this.set(state.cachedObjects());
    },
  });
  new Gauge({
    name: 'colony_controller_api_writes',
    help: 'API writes (applies and status writes) in the current leadership term',
    registers: [registry],
    collect() {
      this.set(state.writes());
    },
  });
}
