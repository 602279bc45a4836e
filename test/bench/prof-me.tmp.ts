// @ts-nocheck
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { OAuthTestClient } from '../support/oauth-client.ts';
import { sqliteTarget } from '../support/storage-targets.ts';
import { colonyOn } from './bare-oidc-provider.ts';
import { load } from './load.ts';
if (process.argv[2] === 'serve') {
  const s = await colonyOn(sqliteTarget, { COLONY_API_RATE_LIMIT: '1000000000', COLONY_SIGNIN_RATE_LIMIT: '100000', LOG_LEVEL: process.env.LL ?? 'warn' });
  const { default: Fastify } = await import('fastify');
  const bare = Fastify({ logger: false });
  const meLike = JSON.stringify({ id: 'acct_x', type: 'user', scopes: ['memory:read'], account: null });
  bare.get('/bare', async (_req, reply) => reply.type('application/json').send(meLike));
  const bareUrl = `${await bare.listen({ port: 0, host: '127.0.0.1' })}/bare`;
  process.send?.({ base: s.baseUrl, bareUrl });
  process.on('message', () => process.send?.((process as any).threadCpuUsage()));
  process.on('SIGTERM', async () => { await s.close(); process.exit(0); });
} else {
  const child = spawn(process.execPath, [...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/meprof'] : []), new URL(import.meta.url).pathname, 'serve'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  child.stdout!.resume();
  const { base, bareUrl } = await new Promise<any>((r) => child.once('message', r));
  const oauth = await OAuthTestClient.register(base);
  const person = await oauth.person('Bench');
  const t = await oauth.tokens({ scope: 'keys:write memory:read', resource: base }, person);
  const res = await fetch(`${base}/api/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${t.access_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', scopes: ['memory:read'], offices: null, expiresInDays: null }) });
  const key = ((await res.json()) as { key: string }).key;
  const cpu = () => new Promise<number>((r) => { child.once('message', (m: any) => r(m.user + m.system)); child.send('cpu'); });
  const which = process.argv[2] ?? 'key';
  const headers = which === 'key' ? { authorization: `Bearer ${key}` } : which === 'token' ? { authorization: `Bearer ${t.access_token}` } : {};
  const url = which === 'bare' ? bareUrl : which === 'anon' ? `${base}/api/v1/pricing` : which === 'health' ? `${base}/healthz` : which === 'v1' ? `${base}/api/v1` : `${base}/api/v1/me`;
  await load(url, { seconds: 2, connections: 32, method: 'GET', headers });
  for (let i = 0; i < 3; i++) {
    const c0 = await cpu();
    const f = await load(url, { seconds: Number(process.env.SECS ?? 4), connections: 32, method: 'GET', headers });
    const c1 = await cpu();
    console.log(which, Math.round(f.rps), 'req/s', Math.round((c1 - c0) / f.total), 'µs/req main thread', f.non2xx, 'non2xx');
  }
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}
