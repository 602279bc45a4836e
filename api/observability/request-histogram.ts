// A latency histogram for the request hot path: observing is an array increment per request, and
// the cumulative buckets Prometheus wants are computed only when /metrics is scraped.
// (prom-client's Histogram re-hashes the label set on every observe, a cost every request paid.)

interface Series {
  labels: Record<string, string>;
  counts: Float64Array;
  sum: number;
  count: number;
}

export class RequestHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly buckets: readonly number[];
  private readonly series = new Map<string, Series>();

  constructor(opts: { name: string; help: string; buckets: readonly number[] }) {
    this.name = opts.name;
    this.help = opts.help;
    this.buckets = [...opts.buckets].sort((a, b) => a - b);
  }

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    const key = `${method} ${statusCode} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        labels: { method, route, status_code: String(statusCode) },
        counts: new Float64Array(this.buckets.length + 1),
        sum: 0,
        count: 0,
      };
      this.series.set(key, s);
    }
    let i = 0;
    while (i < this.buckets.length && seconds > (this.buckets[i] ?? Number.POSITIVE_INFINITY)) i++;
    s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += seconds;
    s.count++;
  }

  /** The prom-client metric shape, so the registry formats it with everything else. */
  async get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i] ?? 0;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
