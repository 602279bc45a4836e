// Issue 5 benchmark. Memory: recall p50/p95 at 10k and 100k memories on SQLite and PostgreSQL
// against a primary-key read on the same store, and recall@5 / MRR on a generated labelled corpus.
// HTTP: token verification (/api/v1/me), introspection and the token endpoint (refresh grant), each
// against a bare Fastify route in the same process and run.
import Fastify from 'fastify';
import { openStorage } from '../../api/app-storage.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { OAuthTestClient } from '../support/oauth-client.ts';
import { startListeningServer } from '../support/server.ts';
import { type DisposableTarget, postgresTarget, sqliteTarget } from '../support/storage-targets.ts';
import { formatRow, load, percentile } from './load.ts';
import { corpusAccount, retrievalQuality } from './memory-corpus.ts';
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

async function httpTable(opts: { seconds: number; connections: number }): Promise<boolean> {
  const s = await startListeningServer(
    sqliteTarget,
    { COLONY_API_RATE_LIMIT: '1000000000', COLONY_SIGNIN_RATE_LIMIT: '100000' },
    { validateResponses: false, runJobs: false },
  );
  const bare = Fastify({ logger: false });
  const meLike = JSON.stringify({ id: 'acct_x', type: 'user', scopes: ['memory:read'], account: null });
  bare.get('/bare', async (_req, reply) => reply.type('application/json').send(meLike));
  bare.post('/bare', async (_req, reply) => reply.type('application/json').send(meLike));
  bare.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  const bareUrl = `${await bare.listen({ port: 0, host: '127.0.0.1' })}/bare`;
  try {
    const oauth = await OAuthTestClient.register(s.baseUrl);
    const person = await oauth.person('Bench');
    // A token for the base URL reaches both /api/v1/me and /mcp; one for /mcp would not reach /me.
    const resource = s.baseUrl;
    const t = await oauth.tokens({ scope: 'memory:read memory:write offline_access', resource }, person);
    const auth = { authorization: `Bearer ${t.access_token}` };
    const clientId = oauth.config.clientMetadata().client_id;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cases = [
      { name: 'GET /api/v1/me (verify token)', method: 'GET', url: `${s.baseUrl}/api/v1/me`, headers: auth },
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
    const widths = [32, 8, 9, 8, 8, 10];
    console.log(formatRow(['operation', 'target', 'req/s', 'p50 ms', 'p99 ms', 'rps ratio'], widths));
    for (const c of cases) {
      const shape = { method: c.method, headers: c.headers, ...('body' in c ? { body: c.body } : {}) };
      const colony = await load(c.url, { ...opts, ...shape });
      const baseline = await load(bareUrl, { ...opts, ...shape });
      if (colony.non2xx > 0 || colony.errors > 0) throw new Error(`${c.name}: ${colony.non2xx} non-2xx`);
      for (const [name, f] of [
        ['bare', baseline],
        ['colony', colony],
      ] as const) {
        const ratio = name === 'colony' ? (colony.rps / baseline.rps).toFixed(2) : '1.00';
        console.log(
          formatRow([c.name, name, f.rps.toFixed(0), f.p50.toFixed(2), f.p99.toFixed(2), ratio], widths),
        );
      }
    }
    // The token endpoint: every worker rotates its own refresh token, one grant after another.
    const refresh: string[] = [];
    for (let i = 0; i < 8; i++) {
      const grant = await oauth.tokens({ scope: 'memory:read offline_access', resource }, person);
      refresh.push(grant.refresh_token ?? '');
    }
    const grant = await chained(8, opts.seconds, async (w) => {
      const res = await fetch(`${s.baseUrl}/oauth/token`, {
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
    });
    const bareGrant = await chained(8, opts.seconds, async () => {
      await (await fetch(bareUrl, { method: 'POST', headers: form, body: 'grant_type=x' })).text();
    });
    console.log(
      formatRow(
        [
          'POST /oauth/token (refresh, 8 chains)',
          'bare',
          bareGrant.rps.toFixed(0),
          bareGrant.p50.toFixed(2),
          '-',
          '1.00',
        ],
        widths,
      ),
    );
    console.log(
      formatRow(
        [
          'POST /oauth/token (refresh, 8 chains)',
          'colony',
          grant.rps.toFixed(0),
          grant.p50.toFixed(2),
          '-',
          (grant.rps / bareGrant.rps).toFixed(2),
        ],
        widths,
      ),
    );
    return true;
  } finally {
    await bare.close();
    await s.close();
  }
}

export async function benchIdentity(opts: {
  seconds: number;
  connections: number;
  memorySizes: number[];
  queries: number;
  vectorMemories: number;
}): Promise<boolean> {
  await memoryTable(opts.memorySizes, opts.queries);
  await vectorTable(opts.vectorMemories, opts.queries);
  const ran = await httpTable(opts);
  console.log('\n(no pass/fail target is set for identity: the figures and ratios are the result)');
  return ran;
}
