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
  private readonly series: Series[] = [];
  private readonly timers = new Map<string, RouteTimer>();

  constructor(opts: { name: string; help: string; buckets: readonly number[] }) {
    this.name = opts.name;
    this.help = opts.help;
    this.buckets = [...opts.buckets].sort((a, b) => a - b);
  }

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    this.timer(method, route).observe(statusCode, seconds);
  }

  /**
   * The series of one method and route, resolved once: a route binds its timer when it is added, so
   * a request pays a lookup by status code and a bucket search, with no label strings built.
   */
  timer(method: string, route: string): RouteTimer {
    const key = `${method} ${route}`;
    let timer = this.timers.get(key);
    if (!timer) {
      timer = new RouteTimer(method, route, this.buckets, this.series);
      this.timers.set(key, timer);
    }
    return timer;
  }

  /** The prom-client metric shape, so the registry formats it with everything else. */
  async get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const s of this.series) {
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

/** Observations of one method and route, by status code. */
export class RouteTimer {
  private readonly byStatus = new Map<number, Series>();
  private readonly method: string;
  private readonly route: string;
  private readonly buckets: readonly number[];
  private readonly all: Series[];

  constructor(method: string, route: string, buckets: readonly number[], all: Series[]) {
    this.method = method;
    this.route = route;
    this.buckets = buckets;
    this.all = all;
  }

  observe(statusCode: number, seconds: number): void {
    let s = this.byStatus.get(statusCode);
    if (!s) {
      s = {
        labels: { method: this.method, route: this.route, status_code: String(statusCode) },
        counts: new Float64Array(this.buckets.length + 1),
        sum: 0,
        count: 0,
      };
      this.byStatus.set(statusCode, s);
      this.all.push(s);
    }
    const buckets = this.buckets;
    let i = 0;
    while (i < buckets.length && seconds > (buckets[i] as number)) i++;
    s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += seconds;
    s.count++;
  }
}
