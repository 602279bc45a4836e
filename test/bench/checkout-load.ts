// The checkout bench's load: one kind of request (an Op) driven by autocannon, summarised as req/s and
// latency percentiles; a run with any error or non-2xx answer fails rather than reporting a figure.
import autocannon from 'autocannon';

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

type Setup = (req: autocannon.Request, n: number) => autocannon.Request;

export interface Op {
  url: string;
  request: autocannon.Request;
  setup?: Setup;
}

export interface RunOptions {
  seconds: number;
  connections: number;
  /** A fixed offered load (req/s over all connections) instead of as fast as answers come. */
  rate?: number;
}

export async function run(op: Op, opts: RunOptions): Promise<Figures> {
  let n = 0;
  const { url, request, setup } = op;
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    requests: [
      {
        ...request,
        setupRequest: (req: autocannon.Request) => {
          n += 1;
          return setup ? setup(req, n) : req;
        },
      } as autocannon.Request,
    ],
  });
  if (r.errors + r.timeouts > 0 || r.non2xx > 0) {
    throw new Error(`${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  }
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** The median of each figure over several runs of one op. */
export function medians(runs: readonly Figures[]): Figures {
  return {
    rps: median(runs.map((f) => f.rps)),
    p50: median(runs.map((f) => f.p50)),
    p99: median(runs.map((f) => f.p99)),
  };
}

export const JSON_HEADERS = { 'content-type': 'application/json' };

export const CREATE_BODY = JSON.stringify({
  line_items: [{ item: { id: 'plan_pro_monthly' } }, { item: { id: 'addon_backups' } }],
});

/** The requests autocannon drives against Colony and the bare route; `ids` are sessions to complete. */
export function checkoutOps(colonyUrl: string, bareUrl: string, runId: string, ids: readonly string[]) {
  const withNewKey: Setup = (req, n) => ({
    ...req,
    headers: { ...req.headers, 'idempotency-key': `${runId}-${n}-${Math.random()}` },
  });
  return {
    create: {
      url: colonyUrl,
      request: { method: 'POST', path: '/checkout_sessions', headers: JSON_HEADERS, body: CREATE_BODY },
      setup: withNewKey,
    },
    // Completing a session already handed off is allowed and writes a new revision each time.
    complete: {
      url: colonyUrl,
      request: { method: 'POST', path: '/checkout_sessions/x/complete', headers: JSON_HEADERS, body: '{}' },
      setup: (req, n) => ({ ...req, path: `/checkout_sessions/${ids[n % ids.length]}/complete` }),
    },
    // The same request as a create, key included, built the same way: the load generator's own work
    // per request (it shares the machine) is then the same for both.
    bare: {
      url: bareUrl,
      request: { method: 'POST', path: '/bare', headers: JSON_HEADERS, body: CREATE_BODY },
      setup: withNewKey,
    },
  } satisfies Record<string, Op>;
}

/** Sessions created one by one before the load, for the runs that read or complete existing ones. */
export async function existingSessions(colonyUrl: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${colonyUrl}/checkout_sessions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: CREATE_BODY,
    });
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
}
