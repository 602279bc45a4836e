import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';

const [variant = 'default', target = 'colony', nArg = '0', path = '/api/v1/pricing'] = process.argv.slice(2);
const config = loadConfig({
  COLONY_DATA_DIR: mkdtempSync(join(tmpdir(), 'x-')),
  LOG_LEVEL: 'warn',
  COLONY_API_RATE_LIMIT: '1000000000',
});
const colony = await buildServer(config, {
  ...(variant === 'nolog' ? { logger: false } : {}),
  runJobs: false,
});
await colony.ready();
const res = await colony.inject({ url: path });
const bare = Fastify({ logger: false });
bare.get(path.split('?')[0] ?? path, async (_q, reply) =>
  reply
    .headers({ 'content-type': String(res.headers['content-type']), etag: String(res.headers.etag) })
    .send(res.rawPayload),
);
await bare.ready();
const app = target === 'colony' ? colony : bare;
for (let i = 0; i < 3000; i++) await app.inject({ url: path });
const n = Number(nArg);
for (let i = 0; i < n; i++) await app.inject({ url: path });
process.exit(0);
