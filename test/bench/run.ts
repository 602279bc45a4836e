// `npm run bench`: prints each benchmark's figures with a same-run baseline and the ratio.
// Set BENCH_SECONDS, BENCH_CONNECTIONS and BENCH_ROUNDS to trade precision for time.
import { benchPublicRead } from './public-read.bench.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);

const results: Record<string, boolean> = {};
results['public-read'] = await benchPublicRead({ seconds, connections, rounds });

console.log('\n## Summary');
for (const [name, ok] of Object.entries(results))
  console.log(`${name}: ${ok ? 'target met' : 'target not met'}`);
