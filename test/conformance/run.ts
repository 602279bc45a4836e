// The conformance command: `npm run conformance -- <conformance folder> [--url <base URL>]`.
// Drives a full checkout for every ACP version and every UCP version over real HTTP and validates each
// response against the official schemas in the folder, then, for every ACP version, the order webhook
// bodies a registered agent platform receives. Without --url it starts Colony itself (embedded SQLite in
// a temporary folder) on a loopback port; with --url the service must accept agent profiles over http on
// loopback (COLONY_UCP_ALLOW_INSECURE_PROFILES=true) and allow the requests (rate limit), and the
// webhook flows run only given its --bootstrap-token (they register platforms).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { freePort } from '../support/server.ts';
import { startAgentProfileServer } from './agent-profile-server.ts';
import { ConformanceRun } from './flows.ts';
import { loadConformance } from './schema-validators.ts';
import { WebhookConformance } from './webhook-flows.ts';

interface Colony {
  url: string;
  /** The operator credential the webhook flows register platforms with. */
  bootstrapToken: string | undefined;
  stop(): Promise<void>;
}

async function startColony(): Promise<Colony> {
  const dataDir = mkdtempSync(join(tmpdir(), 'colony-conformance-'));
  const bootstrapToken = randomBytes(24).toString('hex');
  // The owner's pages check that forms come from the base URL: it must be the address served.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    COLONY_DATA_DIR: dataDir,
    COLONY_BASE_URL: url,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    COLONY_CHECKOUT_RATE_LIMIT: '100000',
    COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true',
    COLONY_BOOTSTRAP_TOKEN: bootstrapToken,
  });
  // The job runner delivers the order webhooks.
  const app = await buildServer(config);
  await app.listen({ port, host: '127.0.0.1' });
  return {
    url,
    bootstrapToken,
    stop: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { url: { type: 'string' }, 'bootstrap-token': { type: 'string' } },
    allowPositionals: true,
  });
  const folder = positionals[0];
  if (!folder || !existsSync(join(folder, 'acp')) || !existsSync(join(folder, 'ucp'))) {
    process.stderr.write(
      'usage: npm run conformance -- <conformance folder with acp/ and ucp/> [--url <base URL> [--bootstrap-token <token>]]\n',
    );
    return 64;
  }
  const schemas = loadConformance(resolve(folder));
  const agents = await startAgentProfileServer();
  const colony: Colony = values.url
    ? { url: values.url.replace(/\/+$/, ''), bootstrapToken: values['bootstrap-token'], stop: async () => {} }
    : await startColony();
  try {
    const results = await new ConformanceRun(colony.url, schemas).all(agents);
    if (colony.bootstrapToken)
      results.push(...(await new WebhookConformance(colony.url, colony.bootstrapToken, schemas).all()));
    else process.stdout.write('ACP order webhooks not checked: --url needs --bootstrap-token for them\n');
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
