// Prometheus metrics of one server instance (its own registry, so tests can run several servers).
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import { RequestHistogram } from './request-histogram.ts';

export interface Metrics {
  registry: Registry;
  httpDuration: RequestHistogram;
  jobOutcomes: Counter<'type' | 'outcome'>;
  rateLimited: Counter<'surface'>;
  /** 1 while an optional shared dependency answers, 0 during its outage. */
  dependencyUp: Gauge<'dependency'>;
  rateLimitFailOpen: Counter<'bucket'>;
  /** 1 on the replica that runs the cluster-wide pollers (all of them without a poller Lease). */
  pollerLeader: Gauge;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'colony_' });
  const httpDuration = new RequestHistogram({
    name: 'colony_http_request_duration_seconds',
    help: 'HTTP request latency by route template and status code',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  });
  registry.registerMetric(httpDuration as unknown as Metric);
  return {
    registry,
    httpDuration,
    jobOutcomes: new Counter({
      name: 'colony_job_attempts_total',
      help: 'Job attempts by type and outcome (completed, retrying, failed)',
      labelNames: ['type', 'outcome'],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'colony_rate_limited_requests_total',
      help: 'Requests refused by a rate limiter, by surface',
      labelNames: ['surface'],
      registers: [registry],
    }),
    dependencyUp: new Gauge({
      name: 'colony_dependency_up',
      help: 'Whether a shared dependency answers (1) or is failing (0), by dependency',
      labelNames: ['dependency'],
      registers: [registry],
    }),
    rateLimitFailOpen: new Counter({
      name: 'colony_rate_limit_fail_open_total',
      help: 'Requests let through uncounted because the rate-limit store failed or timed out, by bucket',
      labelNames: ['bucket'],
      registers: [registry],
    }),
    pollerLeader: new Gauge({
      name: 'colony_poller_leader',
      help: 'Whether this replica runs the cluster-wide background pollers (1) or leaves them to the leader (0)',
      registers: [registry],
    }),
  };
}

/**
 * Times every request by its route template (never the raw URL, which would explode cardinality).
 * Each route gets its own hook with its template bound when it is added: reading the template from
 * `request.routeOptions` on every response builds a dozen-field object per request. Call this before
 * any route is added. Requests no route matched are timed as `unmatched`.
 */
export function observeRequests(app: FastifyInstance, metrics: Metrics): void {
  const { httpDuration } = metrics;
  app.addHook('onRoute', (route) => {
    const url = route.url;
    const methods = [route.method].flat();
    // A route with one method (nearly all) binds its series now; one serving several looks it up.
    const single = methods.length === 1 ? httpDuration.timer(String(methods[0]), url) : undefined;
    const observe: onResponseHookHandler = (request, reply, done) => {
      const seconds = reply.elapsedTime / 1000;
      if (single) single.observe(reply.statusCode, seconds);
      else httpDuration.observe(request.method, url, reply.statusCode, seconds);
      done();
    };
    route.onResponse = [...hooksOf(route.onResponse), observe];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) {
      httpDuration.observe(request.method, 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    }
    done();
  });
}

function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/** Request timing plus the /metrics route that serves the registry. */
export function instrumentRequests(app: FastifyInstance, metrics: Metrics): void {
  observeRequests(app, metrics);
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
