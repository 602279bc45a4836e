// A bounded load run on loopback with autocannon, summarised as req/s and latency percentiles.
import autocannon from 'autocannon';

export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

export async function load(
  url: string,
  opts: {
    connections: number;
    seconds: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<LoadFigures> {
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    pipelining: 1,
    ...(opts.method ? { method: opts.method } : {}),
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    total: r.requests.total,
  };
}

export function formatRow(cells: (string | number)[], widths: number[]): string {
  return cells.map((c, i) => String(c).padEnd(widths[i] ?? 12)).join(' ');
}

/** The p-th percentile (nearest rank) of a sample. */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
