// Issue 19 benchmark: MCP tools/call on Colony's /mcp (a public tool, and cortex_recall with an
// OAuth token) against a bare server built with the official MCP SDK serving the same public tool
// statelessly over Streamable HTTP, and against a bare Fastify route, in the same run. Goal: Colony
// at least 2x the bare SDK server on both. Servers run in a child process (serve-mcp.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { OAuthTestClient } from '../support/oauth-client.ts';
import { atLeast, type GoalRow } from './goals.ts';
import { formatRow, type LoadFigures, load } from './load.ts';

export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

export const toolCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

const SWEEP = [1, 8, 32, 64];
const GOAL = 2;

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

type Figures = LoadFigures & { cpuUs: number };

function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m: { user: number; system: number }) => resolve(m.user + m.system));
    child.send('cpu');
  });
}

/** One load run, with the server process's CPU per request: steadier than req/s on a busy machine. */
async function run(
  child: ChildProcess,
  target: Target,
  opts: { seconds: number; connections: number },
): Promise<Figures> {
  const before = await serverCpu(child);
  const f = await load(target.url, { ...opts, method: 'POST', headers: target.headers, body: target.body });
  const cpuUs = ((await serverCpu(child)) - before) / Math.max(1, f.total);
  if (f.errors > 0 || f.non2xx > 0)
    throw new Error(`${target.name}: ${f.errors} errors, ${f.non2xx} non-2xx`);
  return { ...f, cpuUs };
}

/** Short rounds alternating between the targets, medians kept: that cancels most of a busy neighbour. */
async function measure(
  child: ChildProcess,
  targets: Target[],
  opts: { seconds: number; connections: number; rounds: number },
) {
  const runs = new Map<string, Figures[]>(targets.map((t) => [t.name, []]));
  // Warm-up, discarded: until the JIT has compiled every path, the first round measures the compiler.
  for (const t of targets) await run(child, t, { ...opts, seconds: Math.min(opts.seconds, 2) });
  for (let round = 0; round < opts.rounds; round++) {
    const order = round % 2 ? [...targets].reverse() : targets;
    for (const t of order) runs.get(t.name)?.push(await run(child, t, opts));
  }
  const of = (fs: Figures[], key: 'rps' | 'p50' | 'p99' | 'cpuUs') => median(fs.map((f) => f[key]));
  return new Map(
    [...runs].map(([name, fs]) => [
      name,
      { rps: of(fs, 'rps'), p50: of(fs, 'p50'), p99: of(fs, 'p99'), cpuUs: of(fs, 'cpuUs') },
    ]),
  );
}

async function startServers(): Promise<{
  child: ChildProcess;
  colonyBase: string;
  sdkUrl: string;
  bareUrl: string;
}> {
  const child = spawn(process.execPath, [new URL('./serve-mcp.ts', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    if (!child.stdout) return reject(new Error('bench server has no stdout'));
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(first) as { colonyBase: string; sdkUrl: string; bareUrl: string }) };
}

/** A person's memory:read token for /mcp, and one memory for cortex_recall to find. */
async function memoryCaller(colonyBase: string): Promise<Record<string, string>> {
  const oauth = await OAuthTestClient.register(colonyBase);
  const person = await oauth.person('Bench');
  const { access_token } = await oauth.tokens(
    { scope: 'memory:read memory:write', resource: `${colonyBase}/mcp` },
    person,
  );
  const headers = { ...MCP_HEADERS, authorization: `Bearer ${access_token}` };
  const stored = await fetch(`${colonyBase}/mcp`, {
    method: 'POST',
    headers,
    body: toolCall('cortex_remember', { text: 'The bench deploys on Fridays.' }),
  });
  if (!(await stored.text()).includes('"ids"')) throw new Error('cortex_remember did not store the memory');
  return headers;
}

export async function benchMcp(opts: {
  seconds: number;
  connections: number;
  rounds: number;
}): Promise<GoalRow[]> {
  const { child, colonyBase, sdkUrl, bareUrl } = await startServers();
  try {
    const memoryHeaders = await memoryCaller(colonyBase);
    const pricing = toolCall('get_pricing', {});
    const targets = {
      sdk: { name: 'bare SDK server', url: sdkUrl, headers: MCP_HEADERS, body: pricing },
      bare: { name: 'bare route', url: bareUrl, headers: MCP_HEADERS, body: pricing },
      public: { name: 'colony get_pricing', url: `${colonyBase}/mcp`, headers: MCP_HEADERS, body: pricing },
      memory: {
        name: 'colony cortex_recall',
        url: `${colonyBase}/mcp`,
        headers: memoryHeaders,
        body: toolCall('cortex_recall', { query: 'when does the bench deploy' }),
      },
    } satisfies Record<string, Target>;

    console.log(
      `\n## MCP tools/call (2025-era client, stateless; ${opts.connections} connections, ${opts.rounds} x ${opts.seconds}s per target, alternating, medians)\n`,
    );
    const figures = await measure(child, Object.values(targets), opts);
    const get = (t: Target) => figures.get(t.name) ?? { rps: 0, p50: 0, p99: 0, cpuUs: 0 };
    const vsSdk = (t: Target) => get(t).rps / get(targets.sdk).rps;
    const widths = [22, 8, 8, 8, 13, 11, 12, 13];
    const head = [
      'target',
      'req/s',
      'p50 ms',
      'p99 ms',
      'server µs/req',
      'x bare SDK',
      'x bare route',
      'cpu x SDK',
    ];
    console.log(formatRow(head, widths));
    for (const t of Object.values(targets)) {
      const f = get(t);
      const cells = [t.name, f.rps.toFixed(0), f.p50.toFixed(2), f.p99.toFixed(2), f.cpuUs.toFixed(0)];
      const ratios = [vsSdk(t), f.rps / get(targets.bare).rps, get(targets.sdk).cpuUs / f.cpuUs];
      console.log(formatRow([...cells, ...ratios.map((r) => r.toFixed(2))], widths));
    }
    console.log(
      '(cpu x SDK: the capacity ratio from server CPU alone, steadier than req/s on a busy machine)',
    );

    console.log('\n### The ratio to the bare SDK server from 1 to 64 connections (one run each)\n');
    console.log(
      formatRow(['connections', 'bare SDK', 'get_pricing', 'x SDK', 'cortex_recall', 'x SDK'], widths),
    );
    for (const connections of SWEEP) {
      const at = { seconds: opts.seconds, connections };
      const sdk = await run(child, targets.sdk, at);
      const pub = await run(child, targets.public, at);
      const mem = await run(child, targets.memory, at);
      const [x, ratio] = [(n: number) => n.toFixed(0), (n: number) => (n / sdk.rps).toFixed(2)];
      const cells = [connections, x(sdk.rps), x(pub.rps), ratio(pub.rps), x(mem.rps), ratio(mem.rps)];
      console.log(formatRow(cells, widths));
    }

    return [
      atLeast('MCP get_pricing vs bare SDK server', vsSdk(targets.public), GOAL, '× bare SDK'),
      atLeast('MCP cortex_recall vs bare SDK server', vsSdk(targets.memory), GOAL, '× bare SDK'),
    ];
  } finally {
    child.kill('SIGTERM');
  }
}
