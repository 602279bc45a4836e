// RequestHistogram: cumulative buckets, sum and count in the shape the Prometheus registry prints.
import { type Metric, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestHistogram } from '../../api/observability/request-histogram.ts';

describe('RequestHistogram', () => {
  it('prints cumulative buckets, +Inf, sum and count per route and status', async () => {
    const h = new RequestHistogram({ name: 'req_seconds', help: 'latency', buckets: [0.1, 0.01, 1] });
    h.observe('GET', '/a', 200, 0.005);
    h.observe('GET', '/a', 200, 0.05);
    h.observe('GET', '/a', 200, 5);
    h.observe('GET', '/a', 404, 0.01);
    const registry = new Registry();
    registry.registerMetric(h as unknown as Metric);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE req_seconds histogram');
    expect(text).toContain('req_seconds_bucket{method="GET",route="/a",status_code="200",le="0.01"} 1');
    expect(text).toContain('req_seconds_bucket{method="GET",route="/a",status_code="200",le="0.1"} 2');
    expect(text).toContain('req_seconds_bucket{method="GET",route="/a",status_code="200",le="1"} 2');
    expect(text).toContain('req_seconds_bucket{method="GET",route="/a",status_code="200",le="+Inf"} 3');
    expect(text).toContain('req_seconds_count{method="GET",route="/a",status_code="200"} 3');
    expect(text).toContain('req_seconds_sum{method="GET",route="/a",status_code="200"} 5.055');
    expect(text).toContain('req_seconds_bucket{method="GET",route="/a",status_code="404",le="0.01"} 1');
  });
});
