// The conformance command: `npm run conformance -- <conformance folder> [--url <base URL>]`.
// Drives a full checkout for every ACP version and every UCP version over real HTTP and validates each
// response against the official schemas in the folder. Without --url it starts Colony itself (embedded
// SQLite in a temporary folder) on a loopback port; with --url the service must accept agent profiles
// over http on loopback (COLONY_UCP_ALLOW_INSECURE_PROFILES=true) and allow the requests (rate limit).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { startAgentProfileServer } from './agent-profile-server.ts';
import { ConformanceRun } from './flows.ts';
import { loadConformance } from './schema-validators.ts';

async function startColony(): Promise<{ url: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'colony-conformance-'));
  const config = loadConfig({
    COLONY_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PORT: '0',
    HOST: '127.0.0.1',
    COLONY_CHECKOUT_RATE_LIMIT: '100000',
    COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true',
  });
  const app = await buildServer(config, { runJobs: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: address,
    stop: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { url: { type: 'string' } }, allowPositionals: true });
  const folder = positionals[0];
  if (!folder || !existsSync(join(folder, 'acp')) || !existsSync(join(folder, 'ucp'))) {
    process.stderr.write(
      'usage: npm run conformance -- <conformance folder with acp/ and ucp/> [--url <base URL>]\n',
    );
    return 64;
  }
  const schemas = loadConformance(resolve(folder));
  const agents = await startAgentProfileServer();
  const colony = values.url
    ? { url: values.url.replace(/\/+$/, ''), stop: async () => {} }
    : await startColony();
  try {
    const results = await new ConformanceRun(colony.url, schemas).all(agents);
    for (const r of results) {
      process.stdout.write(`${r.problems.length === 0 ? 'ok  ' : 'FAIL'} ${r.name}\n`);
      for (const p of r.problems) process.stdout.write(`       ${p}\n`);
    }
    const failed = results.filter((r) => r.problems.length > 0).length;
    process.stdout.write(`conformance: ${results.length - failed} passed, ${failed} failed\n`);
    return failed === 0 ? 0 : 1;
  } finally {
    await colony.stop();
    await agents.close();
  }
}

process.exitCode = await main();
