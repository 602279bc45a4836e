// @ts-nocheck
import Fastify from 'fastify';
import { OAuthTestClient } from '../support/oauth-client.ts';
import { sqliteTarget } from '../support/storage-targets.ts';
import { colonyOn } from './bare-oidc-provider.ts';
const s = await colonyOn(sqliteTarget, { COLONY_API_RATE_LIMIT: '1000000000', COLONY_SIGNIN_RATE_LIMIT: '100000', LOG_LEVEL: process.env.LL ?? 'warn' });
const base = s.baseUrl;
const oauth = await OAuthTestClient.register(base);
const person = await oauth.person('Bench');
const t = await oauth.tokens({ scope: 'keys:write memory:read', resource: base }, person);
const res = await fetch(`${base}/api/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${t.access_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', scopes: ['memory:read'], offices: null, expiresInDays: null }) });
const key = ((await res.json()) as { key: string }).key;
const bare = Fastify({ logger: false });
const meLike = JSON.stringify({ id: 'acct_x', type: 'user', scopes: ['memory:read'], account: null });
bare.get('/bare', async (_req, reply) => reply.type('application/json').send(meLike));
await bare.ready();
const cases: [string, any, string, Record<string, string>][] = [
  ['bare', bare, '/bare', {}],
  ['healthz', s.app, '/healthz', {}],
  ['api/v1', s.app, '/api/v1', {}],
  ['pricing', s.app, '/api/v1/pricing', {}],
  ['me 401', s.app, '/api/v1/me', {}],
  ['me key', s.app, '/api/v1/me', { authorization: `Bearer ${key}` }],
  ['me token', s.app, '/api/v1/me', { authorization: `Bearer ${t.access_token}` }],
];
for (let round = 0; round < 2; round++) for (const [name, app, url, headers] of cases) {
  const one = () => app.inject({ method: 'GET', url, headers, remoteAddress: '127.0.0.1' });
  for (let i = 0; i < 300; i++) await one();
  const c0 = (process as any).threadCpuUsage(); let n = 0; const t0 = Date.now();
  while (Date.now() - t0 < 1000) { await Promise.all([one(), one(), one(), one(), one(), one(), one(), one()]); n += 8; }
  const c = (process as any).threadCpuUsage(c0);
  const r = await one();
  if (round) console.log(name.padEnd(10), ((c.user + c.system) / n).toFixed(1), 'µs', r.statusCode);
}
await s.close();
