// Child process of the checkout bench: Colony's real server on one database (argv[2]: sqlite or a
// PostgreSQL URL) and a bare Fastify route that does one INSERT into the same database, on loopback.
// Prints one JSON line with both addresses (and the SQLite file, for seeding), then serves until killed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { openStorage } from '../../api/app-storage.ts';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { PostgresDriver } from '../../api/storage/postgres-driver.ts';
import type { SqlDriver } from '../../api/storage/sql-driver.ts';
import { SqliteDriver } from '../../api/storage/sqlite-driver.ts';

const target = process.argv[2] ?? 'sqlite';
const schema = process.argv[3];
const dataDir = mkdtempSync(join(tmpdir(), 'colony-checkout-bench-'));
const config = loadConfig({
  COLONY_DATA_DIR: dataDir,
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  COLONY_CHECKOUT_RATE_LIMIT: '1000000000',
  HOST: '127.0.0.1',
  ...(target === 'sqlite' ? {} : { DATABASE_URL: target }),
});
const dbFile = join(dataDir, 'colony.db');
const storage = await openStorage(
  target === 'sqlite'
    ? { kind: 'sqlite', file: dbFile }
    : { kind: 'postgres', url: target, ...(schema ? { schema } : {}) },
);
const colony = await buildServer(config, { storage, runJobs: false });
const colonyUrl = await colony.listen({ port: 0, host: '127.0.0.1' });

// The baseline: one parameterised INSERT of a row the size of a session, through the same driver.
const driver: SqlDriver =
  target === 'sqlite'
    ? new SqliteDriver(dbFile)
    : new PostgresDriver({ url: target, ...(schema ? { schema } : {}) });
await driver.query(
  'CREATE TABLE IF NOT EXISTS bench_bare (id TEXT PRIMARY KEY, data TEXT NOT NULL, created_at BIGINT NOT NULL)',
);
const sample = (
  await colony.inject({
    method: 'POST',
    url: '/checkout_sessions',
    payload: { line_items: [{ item: { id: 'plan_pro_monthly' } }] },
  })
).body;
let counter = 0;
const bare = Fastify({ logger: false });
bare.post('/bare', async (_request, reply) => {
  counter += 1;
  await driver.query('INSERT INTO bench_bare (id, data, created_at) VALUES ($1, $2, $3)', [
    `b_${process.pid}_${counter}`,
    sample,
    Date.now(),
  ]);
  return reply.code(201).type('application/json').send(sample);
});
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

process.stdout.write(`${JSON.stringify({ colonyUrl, bareUrl, dbFile })}\n`);
process.on('SIGTERM', async () => {
  await Promise.all([colony.close(), bare.close()]);
  await driver.close();
  await storage.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
