// Issue 5 benchmark. Memory: recall p50/p95 at 10k and 100k memories on SQLite and PostgreSQL
// against a primary-key read on the same store, and recall@5 / MRR on a generated labelled corpus.
// HTTP (issue 19): /api/v1/me with an API key and with an OAuth access token against a bare Fastify
// route sending the same answer (goal: at least 0.7 of it), at 1 to 64 connections; introspection and the refresh grant against
// a bare oidc-provider over the same database (their ceiling; goal: at least 0.8, docs/decisions.md).
// All in the same process and run; MCP is mcp.bench.ts. BENCH_IDENTITY_HTTP_ONLY=1 skips the memory
// tables (minutes of corpus loading) and runs only the HTTP figures, which carry the goals.
import Fastify from 'fastify';
import { openStorage } from '../../api/app-storage.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { OAuthTestClient } from '../support/oauth-client.ts';
import { type DisposableTarget, postgresTarget, sqliteTarget } from '../support/storage-targets.ts';
import { captureAnswer, mirrorRoute } from './bare-mirror.ts';
import { bareOidcProvider, colonyOn } from './bare-oidc-provider.ts';
import { atLeast, type GoalRow } from './goals.ts';
import { formatRow, type LoadFigures, load, percentile } from './load.ts';
import { corpusAccount, retrievalQuality } from './memory-corpus.ts';
import { crowdTable } from './memory-crowd.ts';
import { vectorTable } from './memory-vectors.bench.ts';

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await fn();
  return [performance.now() - started, value];
}

async function benchRecall(target: DisposableTarget, size: number, queries: number) {
  const made = await target.create();
  const storage = await openStorage(made.target);
  try {
    const { accountId, records, labelled } = await corpusAccount(storage, size, queries);
    const [loadMs] = await timed(async () => {
      for (let i = 0; i < records.length; i += 5000)
        await storage.identity.memories.insertMany(records.slice(i, i + 5000));
    });
    const memory = new MemoryService({
      repo: storage.identity.memories,
      dialect: storage.kind,
      now: Date.now,
    });
    const indexOf = new Map(records.map((r, i) => [r.id, i]));
    const recallMs: number[] = [];
    const readMs: number[] = [];
    const rankings: number[][] = [];
    for (const q of labelled.slice(0, 20)) await memory.recall(accountId, q.query, 10); // warm-up
    for (const [i, q] of labelled.entries()) {
      const [ms, hits] = await timed(() => memory.recall(accountId, q.query, 10));
      recallMs.push(ms);
      rankings.push(hits.map((h) => indexOf.get(h.id) ?? -1));
      const id = records[(i * 7919) % records.length]?.id ?? '';
      readMs.push((await timed(() => storage.identity.memories.get(accountId, [id])))[0]);
    }
    const quality = retrievalQuality(
      rankings,
      labelled.map((q) => q.answer),
      5,
    );
    return {
      loadMs,
      recall: { p50: percentile(recallMs, 50), p95: percentile(recallMs, 95) },
      read: { p50: percentile(readMs, 50), p95: percentile(readMs, 95) },
      quality,
    };
  } finally {
    await storage.close();
    await made.dispose();
  }
}

async function memoryTable(sizes: number[], queries: number): Promise<void> {
  console.log(
    `\n## Memory recall (${queries} labelled queries per store and size; baseline: a primary-key read)\n`,
  );
  const widths = [9, 8, 10, 10, 10, 11, 11, 10, 9, 7];
  const head = [
    'store',
    'memories',
    'load s',
    'recall p50',
    'recall p95',
    'pk read p50',
    'pk read p95',
    'p50 ratio',
    'recall@5',
    'MRR',
  ];
  console.log(formatRow(head, widths));
  const targets = process.env.TEST_DATABASE_URL ? [sqliteTarget, postgresTarget] : [sqliteTarget];
  for (const target of targets) {
    for (const size of sizes) {
      const r = await benchRecall(target, size, queries);
      console.log(
        formatRow(
          [
            target.name,
            size,
            (r.loadMs / 1000).toFixed(1),
            r.recall.p50.toFixed(2),
            r.recall.p95.toFixed(2),
            r.read.p50.toFixed(3),
            r.read.p95.toFixed(3),
            (r.recall.p50 / r.read.p50).toFixed(1),
            r.quality.recallAtK.toFixed(3),
            r.quality.mrr.toFixed(3),
          ],
          widths,
        ),
      );
    }
  }
  if (!process.env.TEST_DATABASE_URL) console.log('(PostgreSQL skipped: TEST_DATABASE_URL is not set)');
}

/** /me against a bare route: the goal, at every connection count. */
const ME_GOAL = 0.7;
/** Introspection and the refresh grant against bare oidc-provider (docs/decisions.md). */
const PROVIDER_GOAL = 0.8;
const SCALING_CONNECTIONS = [1, 8, 32, 64];

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/**
 * Short rounds alternate between the targets and the median rps of each is kept, after a discarded
 * warm-up: on a shared, noisy machine that cancels most of what the neighbours do.
 */
async function alternating<K extends string>(
  runs: Record<K, () => Promise<{ rps: number; p50: number }>>,
  rounds: number,
): Promise<Record<K, { rps: number; p50: number }>> {
  const names = Object.keys(runs) as K[];
  for (const name of names) await runs[name]();
  const seen = Object.fromEntries(names.map((n) => [n, [] as { rps: number; p50: number }[]])) as Record<
    K,
    { rps: number; p50: number }[]
  >;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...names].reverse() : names;
    for (const name of order) seen[name].push(await runs[name]());
  }
  const out = {} as Record<K, { rps: number; p50: number }>;
  for (const name of names)
    out[name] = { rps: median(seen[name].map((f) => f.rps)), p50: median(seen[name].map((f) => f.p50)) };
  return out;
}

/** A load run that must answer 2xx only: a refused token would measure the refusal. */
async function loadOk(name: string, url: string, opts: Parameters<typeof load>[1]): Promise<LoadFigures> {
  const f = await load(url, opts);
  if (f.non2xx > 0 || f.errors > 0) throw new Error(`${name}: ${f.non2xx} non-2xx, ${f.errors} errors`);
  return f;
}

/** Requests that each depend on the previous answer (a rotating refresh token) can't be canned. */
async function chained(
  workers: number,
  seconds: number,
  step: (worker: number) => Promise<void>,
): Promise<{ rps: number; p50: number }> {
  const deadline = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (performance.now() < deadline) latencies.push((await timed(() => step(w)))[0]);
    }),
  );
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50) };
}

async function httpTable(opts: { seconds: number; connections: number; rounds: number }): Promise<GoalRow[]> {
  const s = await colonyOn(sqliteTarget, {
    COLONY_API_RATE_LIMIT: '1000000000',
    COLONY_SIGNIN_RATE_LIMIT: '100000',
  });
  const provider = await bareOidcProvider(s.storage, s.baseUrl);
  const bare = Fastify({ logger: false });
  // The POST route stands beside introspection and the refresh grant, whose goal is oidc-provider.
  const small = JSON.stringify({
    active: true,
    scope: 'memory:read',
    client_id: 'bench',
    token_type: 'Bearer',
  });
  bare.post('/bare', async (_req, reply) => reply.type('application/json').send(small));
  bare.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  const rows: GoalRow[] = [];
  try {
    const oauth = await OAuthTestClient.register(s.baseUrl);
    const person = await oauth.person('Bench');
    const apiKey = await createApiKey(s.baseUrl, oauth, person);
    // A token for the base URL (the /api/v1 resource).
    const resource = s.baseUrl;
    const t = await oauth.tokens({ scope: 'memory:read memory:write offline_access', resource }, person);
    // /me's baseline for each credential: a bare route sending the very answer /me sends it.
    const me = `${s.baseUrl}/api/v1/me`;
    mirrorRoute(bare, '/bare/me-key', await captureAnswer(me, { authorization: `Bearer ${apiKey}` }));
    mirrorRoute(
      bare,
      '/bare/me-token',
      await captureAnswer(me, { authorization: `Bearer ${t.access_token}` }),
    );
    const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });
    const bareUrl = `${bareBase}/bare`;
    const clientId = oauth.config.clientMetadata().client_id;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cases = [
      {
        name: 'POST /oauth/introspect',
        method: 'POST',
        url: `${s.baseUrl}/oauth/introspect`,
        headers: form,
        body: new URLSearchParams({ token: t.access_token, client_id: clientId }).toString(),
      },
    ] as const;
    console.log(
      `\n## Identity HTTP (${opts.connections} connections, ${opts.seconds}s each, same process as the server)\n`,
    );
    const widths = [38, 16, 9, 8, 10];
    console.log(formatRow(['operation', 'target', 'req/s', 'p50 ms', 'rps ratio'], widths));
    const print = (name: string, target: string, f: { rps: number; p50: number }, base: number) =>
      console.log(
        formatRow([name, target, f.rps.toFixed(0), f.p50.toFixed(2), (f.rps / base).toFixed(2)], widths),
      );
    for (const c of cases) {
      const shape = {
        ...opts,
        method: c.method,
        headers: c.headers,
        ...('body' in c ? { body: c.body } : {}),
      };
      const m = await alternating(
        {
          bare: () => loadOk(`${c.name} bare`, bareUrl, shape),
          colony: () => loadOk(c.name, c.url, shape),
          ...(c.url.endsWith('/oauth/introspect')
            ? { provider: () => loadOk(`${c.name} provider`, `${provider.url}/oauth/introspect`, shape) }
            : {}),
        } as Record<'bare' | 'colony' | 'provider', () => Promise<LoadFigures>>,
        opts.rounds,
      );
      print(c.name, 'bare route', m.bare, m.bare.rps);
      if (m.provider) {
        print(c.name, 'bare oidc-prov.', m.provider, m.bare.rps);
        print(c.name, 'colony ÷ oidc', m.colony, m.provider.rps);
        rows.push(
          atLeast('introspection ÷ bare oidc-provider', m.colony.rps / m.provider.rps, PROVIDER_GOAL, '×'),
        );
      }
      print(c.name, 'colony ÷ bare', m.colony, m.bare.rps);
    }

    const meRows = await meScaling(s.baseUrl, bareBase, { apiKey, accessToken: t.access_token }, opts);
    rows.unshift(...meRows);

    // The token endpoint: every worker rotates its own refresh token, one grant after another, on
    // Colony and on the bare provider (which shares Colony's database, so its tokens work there).
    const chains = 8;
    const refreshTokens = async () => {
      const out: string[] = [];
      for (let i = 0; i < chains; i++) {
        const grant = await oauth.tokens({ scope: 'memory:read offline_access', resource }, person);
        out.push(grant.refresh_token ?? '');
      }
      return out;
    };
    const rotate = (base: string, refresh: string[]) => async (w: number) => {
      const res = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: form,
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refresh[w] ?? '',
          client_id: clientId,
        }),
      });
      if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}`);
      refresh[w] = ((await res.json()) as { refresh_token: string }).refresh_token;
    };
    const colonyChains = await refreshTokens();
    const providerChains = await refreshTokens();
    const grant = await alternating(
      {
        bare: () =>
          chained(chains, opts.seconds, async () => {
            await (await fetch(bareUrl, { method: 'POST', headers: form, body: 'grant_type=x' })).text();
          }),
        provider: () => chained(chains, opts.seconds, rotate(provider.url, providerChains)),
        colony: () => chained(chains, opts.seconds, rotate(s.baseUrl, colonyChains)),
      },
      opts.rounds,
    );
    const name = `POST /oauth/token (refresh, ${chains} chains)`;
    print(name, 'bare route', grant.bare, grant.bare.rps);
    print(name, 'bare oidc-prov.', grant.provider, grant.bare.rps);
    print(name, 'colony ÷ oidc', grant.colony, grant.provider.rps);
    print(name, 'colony ÷ bare', grant.colony, grant.bare.rps);
    rows.push(
      atLeast(
        'refresh grant ÷ bare oidc-provider',
        grant.colony.rps / grant.provider.rps,
        PROVIDER_GOAL,
        '×',
      ),
    );
    return rows;
  } finally {
    await bare.close();
    await provider.close();
    await s.close();
  }
}

/** An API key of the bench person's, created with an OAuth token allowed to manage keys. */
async function createApiKey(
  baseUrl: string,
  oauth: OAuthTestClient,
  person: Awaited<ReturnType<OAuthTestClient['person']>>,
): Promise<string> {
  const t = await oauth.tokens({ scope: 'keys:write', resource: baseUrl }, person);
  const res = await fetch(`${baseUrl}/api/v1/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: ['memory:read'], offices: null, expiresInDays: null }),
  });
  if (res.status !== 201) throw new Error(`creating an API key answered ${res.status}`);
  return ((await res.json()) as { key: string }).key;
}

/** /api/v1/me with each credential against its bare mirror, at 1 to 64 connections; the goal rows at `connections`. */
async function meScaling(
  baseUrl: string,
  bareBase: string,
  tokens: { apiKey: string; accessToken: string },
  opts: { seconds: number; connections: number; rounds: number },
): Promise<GoalRow[]> {
  console.log(
    `\n## GET /api/v1/me against a bare route sending the same answer (${opts.seconds}s rounds, median of ${opts.rounds})\n`,
  );
  const widths = [11, 14, 14, 9, 14, 14, 9];
  console.log(
    formatRow(
      ['connections', 'bare (key)', 'API key req/s', 'ratio', 'bare (OAuth)', 'OAuth req/s', 'ratio'],
      widths,
    ),
  );
  const me = `${baseUrl}/api/v1/me`;
  const rows: GoalRow[] = [];
  const counts = [...new Set([...SCALING_CONNECTIONS, opts.connections])].sort((a, b) => a - b);
  for (const connections of counts) {
    const shape = { seconds: opts.seconds, connections };
    const bearer = (token: string) => ({ ...shape, headers: { authorization: `Bearer ${token}` } });
    const m = await alternating(
      {
        bareKey: () => loadOk('bare route (key answer)', `${bareBase}/bare/me-key`, shape),
        key: () => loadOk('/me with an API key', me, bearer(tokens.apiKey)),
        bareOauth: () => loadOk('bare route (OAuth answer)', `${bareBase}/bare/me-token`, shape),
        oauth: () => loadOk('/me with an OAuth token', me, bearer(tokens.accessToken)),
      },
      opts.rounds,
    );
    const key = m.key.rps / m.bareKey.rps;
    const oauth = m.oauth.rps / m.bareOauth.rps;
    console.log(
      formatRow(
        [
          connections,
          m.bareKey.rps.toFixed(0),
          m.key.rps.toFixed(0),
          key.toFixed(2),
          m.bareOauth.rps.toFixed(0),
          m.oauth.rps.toFixed(0),
          oauth.toFixed(2),
        ],
        widths,
      ),
    );
    if (connections === opts.connections) {
      rows.push(atLeast(`/me, API key ÷ bare route (${connections} conn.)`, key, ME_GOAL, '×'));
      rows.push(atLeast(`/me, OAuth token ÷ bare route (${connections} conn.)`, oauth, ME_GOAL, '×'));
    }
  }
  return rows;
}

export async function benchIdentity(opts: {
  seconds: number;
  connections: number;
  memorySizes: number[];
  queries: number;
  vectorMemories: number;
}): Promise<GoalRow[]> {
  if (process.env.BENCH_IDENTITY_HTTP_ONLY !== '1') {
    await memoryTable(opts.memorySizes, opts.queries);
    await crowdTable(
      process.env.TEST_DATABASE_URL ? [sqliteTarget, postgresTarget] : [sqliteTarget],
      opts.memorySizes,
      opts.queries,
    );
    await vectorTable(opts.vectorMemories, opts.queries);
  }
  // run.ts passes no rounds here; BENCH_ROUNDS still trades precision for time, at most 3 per figure.
  const rounds = Math.max(1, Math.min(3, Number(process.env.BENCH_ROUNDS ?? 3)));
  // The memory tables have no goal of their own: their figures are printed above, not compared.
  return httpTable({ seconds: opts.seconds, connections: opts.connections, rounds });
}
