// @ts-nocheck
import { spawn } from 'node:child_process';
import { load } from './load.ts';
const me = new URL('./prof-me.tmp.ts', import.meta.url).pathname;
async function start(ll: string) {
  const child = spawn(process.execPath, [me, 'serve'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, LL: ll } });
  child.stdout.resume();
  const { base } = await new Promise<any>((r) => child.once('message', r));
  const cpu = () => new Promise<number>((r) => { child.once('message', (m: any) => r(m.user + m.system)); child.send('cpu'); });
  return { child, base, cpu, ll };
}
const servers = [await start('warn'), await start('info')];
const path = process.argv[2] ?? '/api/v1/pricing';
const res: Record<string, number[]> = { warn: [], info: [] };
for (const s of servers) await load(s.base + path, { seconds: 2, connections: 32, method: 'GET' });
for (let round = 0; round < Number(process.env.ROUNDS ?? 6); round++) {
  for (const s of round % 2 ? [...servers].reverse() : servers) {
    const c0 = await s.cpu();
    const f = await load(s.base + path, { seconds: 3, connections: 32, method: 'GET' });
    res[s.ll].push((await s.cpu() - c0) / f.total);
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log('warn', res.warn.map(Math.round).join(' '), 'median', med(res.warn).toFixed(1));
console.log('info', res.info.map(Math.round).join(' '), 'median', med(res.info).toFixed(1), 'ratio', (med(res.info) / med(res.warn)).toFixed(3));
for (const s of servers) s.child.kill('SIGTERM');
