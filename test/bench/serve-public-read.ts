// Child process of the public-read bench: Colony's real server twice (the shipped default log level,
// and warn) and a bare Fastify route serving the same bytes (bare-mirror.ts), on loopback. Sends the three addresses
// to the parent over IPC, then serves until killed; its stdout (the log lines) is the parent's file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { mirrorRoute } from './bare-mirror.ts';

// The paths to mirror on the bare route come from the parent as JSON in argv[2].
const paths = JSON.parse(process.argv[2] ?? '[]') as string[];

/** Colony as shipped, except for a rate limit large enough not to refuse the load (it still runs). */
async function colonyAt(logLevel: string | undefined): Promise<{ app: FastifyInstance; level: string }> {
  const config = loadConfig({
    COLONY_DATA_DIR: mkdtempSync(join(tmpdir(), 'colony-bench-')),
    ...(logLevel ? { LOG_LEVEL: logLevel } : {}),
    COLONY_API_RATE_LIMIT: '1000000000',
    HOST: '127.0.0.1',
  });
  return { app: await buildServer(config), level: config.logLevel };
}

const shipped = await colonyAt(undefined);
const warn = await colonyAt('warn');

const bare = Fastify({ logger: false });
for (const path of paths) {
  const res = await warn.app.inject({ method: 'GET', url: path });
  const header = (name: string) => {
    const value = res.headers[name];
    return value === undefined ? undefined : String(value);
  };
  mirrorRoute(bare, path.split('?')[0] ?? path, { body: res.rawPayload, header });
}

const listen = (app: FastifyInstance) => app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({
  urls: { bare: await listen(bare), warn: await listen(warn.app), shipped: await listen(shipped.app) },
  shippedLevel: shipped.level,
});
// The parent reads this process's CPU time around each load run to get server CPU per request.
process.on('message', () => process.send?.(process.cpuUsage()));
process.on('SIGTERM', async () => {
  await Promise.all([shipped.app.close(), warn.app.close(), bare.close()]);
  process.exit(0);
});
