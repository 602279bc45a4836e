// `npm run bench`: prints each benchmark's figures with a same-run baseline and the ratio.
// BENCH_ONLY=<name>[,<name>] runs a subset. BENCH_SECONDS, BENCH_CONNECTIONS and BENCH_ROUNDS trade
// precision for time on the HTTP benchmarks; BENCH_CONTROLLER_OFFICES, _AGENTS (per office),
// _LARGE_OFFICES (its memory step: 1,000 offices, 10,000 bindings) and _TOGGLES size the controller
// benchmark; BENCH_MEMORY_SIZES (comma-separated) and BENCH_MEMORY_QUERIES size the identity
// benchmark's memory part (BENCH_MEMORY_VECTOR_SIZE its full-text vs hybrid comparison with the
// test embedder); BENCH_INTEGRATIONS_OFFICES,
// _AGENTS and _TOGGLES the integrations one; BENCH_BACKUPS_MB and _ROUNDS the backups one (with
// BENCH_DATABASE_URL or TEST_DATABASE_URL); BENCH_GUARDS_REQUESTS (per server) the input-guards one.
// real-node (the local cluster's real node against its kwok nodes: node cold and warm start, helm
// install to Ready, enable/disable to a new agent process) RECREATES the local cluster (down.sh, up.sh,
// images loaded again) when KUBECONFIG is its; it waits for tests using it (colony.ai/test namespaces)
// unless BENCH_REAL_NODE_FORCE=1. BENCH_REAL_NODE_TOGGLES (default 20) sizes its toggle figure.
// BENCH_METERING_OFFICES and _AGENTS (per office) size the metering one (1,000 agent pods on kwok).
import { benchBackups } from './backups.bench.ts';
import { benchCheckout } from './checkout.bench.ts';
import { benchCli } from './cli.bench.ts';
import { benchController } from './controller.bench.ts';
import { allMet, type BenchOutcome, summaryTable } from './goals.ts';
import { benchIdentity } from './identity.bench.ts';
import { benchInputGuards } from './input-guards.bench.ts';
import { benchIntegrations } from './integrations.bench.ts';
import { benchMcp } from './mcp.bench.ts';
import { benchMetering } from './metering.ts';
import { benchPollers } from './pollers.bench.ts';
import { benchPublicRead } from './public-read.bench.ts';
import { benchRealNode } from './real-node.bench.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const seconds = env('BENCH_SECONDS', 3);
const connections = env('BENCH_CONNECTIONS', 32);
const rounds = env('BENCH_ROUNDS', 6);

const benches: Record<string, () => Promise<BenchOutcome>> = {
  'public-read': () => benchPublicRead({ seconds, connections, rounds }),
  'input-guards': () => benchInputGuards({ requests: env('BENCH_GUARDS_REQUESTS', 5_000) }),
  checkout: () => benchCheckout({ seconds, connections, rounds: Math.min(rounds, 3) }),
  controller: () =>
    benchController({
      offices: env('BENCH_CONTROLLER_OFFICES', 100),
      agentsPerOffice: env('BENCH_CONTROLLER_AGENTS', 10),
      largeOffices: env('BENCH_CONTROLLER_LARGE_OFFICES', 1_000),
      toggles: env('BENCH_CONTROLLER_TOGGLES', 200),
    }),
  backups: () =>
    benchBackups({ megabytes: env('BENCH_BACKUPS_MB', 50), rounds: env('BENCH_BACKUPS_ROUNDS', 5) }),
  integrations: () =>
    benchIntegrations({
      offices: env('BENCH_INTEGRATIONS_OFFICES', 100),
      agentsPerOffice: env('BENCH_INTEGRATIONS_AGENTS', 10),
      rounds: rounds,
      toggles: env('BENCH_INTEGRATIONS_TOGGLES', 10),
    }),
  identity: () =>
    benchIdentity({
      seconds,
      connections,
      memorySizes: (process.env.BENCH_MEMORY_SIZES ?? '10000,100000').split(',').map(Number),
      queries: env('BENCH_MEMORY_QUERIES', 300),
      vectorMemories: env('BENCH_MEMORY_VECTOR_SIZE', 1500),
    }),
  mcp: () => benchMcp({ seconds, connections, rounds }),
  cli: () => benchCli({ rounds: env('BENCH_CLI_ROUNDS', 20) }),
  pollers: () => benchPollers(),
  metering: () =>
    benchMetering({
      offices: env('BENCH_METERING_OFFICES', 100),
      agentsPerOffice: env('BENCH_METERING_AGENTS', 10),
      rounds: Math.max(rounds, 3),
    }),
  'real-node': () => benchRealNode({ toggles: env('BENCH_REAL_NODE_TOGGLES', 20) }),
};

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const unknown = only?.filter((name) => !(name in benches)) ?? [];
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`);
  process.exit(64);
}

const results: Record<string, BenchOutcome> = {};
for (const [name, run] of Object.entries(benches)) {
  if (!only || only.includes(name)) results[name] = await run();
}

console.log('\n## Summary\n');
console.log(summaryTable(results));
const met = allMet(results);
console.log(`\n${met ? 'every goal met' : 'some goals NOT met'}`);
// Non-zero when a goal is missed, so a script or CI step can tell.
process.exitCode = met ? 0 : 1;
