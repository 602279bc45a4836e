// Child process of the public-read bench: Colony's real server and a bare Fastify route serving the
// same bytes, on loopback. Prints one JSON line with both addresses, then serves until killed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';

// The paths to mirror on the bare route come from the parent as JSON in argv[2].
const paths = JSON.parse(process.argv[2] ?? '[]') as string[];

const config = loadConfig({
  COLONY_DATA_DIR: mkdtempSync(join(tmpdir(), 'colony-bench-')),
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  // The limiter still runs on every request; the budget is just large enough not to refuse the load.
  COLONY_API_RATE_LIMIT: '1000000000',
  HOST: '127.0.0.1',
});
const colony = await buildServer(config);
const colonyUrl = await colony.listen({ port: 0, host: '127.0.0.1' });

// The bare route answers with the very bytes Colony sends: the same body and the same headers, so
// the comparison measures the work behind a response, not the size of it.
const PASSED_HEADERS = [
  'content-type',
  'etag',
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];
const bare = Fastify({ logger: false });
for (const path of paths) {
  const res = await colony.inject({ method: 'GET', url: path });
  const bytes = res.rawPayload;
  const headers = Object.fromEntries(PASSED_HEADERS.map((h) => [h, String(res.headers[h] ?? '')]));
  const route = path.split('?')[0] ?? path;
  bare.get(route, async (_request, reply) => reply.headers(headers).send(bytes));
}
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

process.stdout.write(`${JSON.stringify({ colonyUrl, bareUrl, logLevel: config.logLevel })}\n`);
// The parent reads this process's CPU time around each load run to get server CPU per request.
process.on('message', () => process.send?.(process.cpuUsage()));
process.on('SIGTERM', async () => {
  await Promise.all([colony.close(), bare.close()]);
  process.exit(0);
});
