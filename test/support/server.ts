// Boots the real server (in-process, no port) on a throwaway database for route tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { openStorage } from '../../api/app-storage.ts';
import { loadConfig } from '../../api/config.ts';
import { type BuildOptions, buildServer } from '../../api/server.ts';
import type { DisposableTarget } from './storage-targets.ts';

export interface TestServer {
  app: FastifyInstance;
  dataDir: string;
  close(): Promise<void>;
}

export const TEST_BASE_URL = 'http://colony.test';

export async function startTestServer(
  env: Record<string, string> = {},
  opts: BuildOptions & { dataDir?: string } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'colony-test-'));
  const config = loadConfig({
    COLONY_DATA_DIR: dataDir,
    COLONY_BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: 'silent',
    COLONY_JOB_POLL_MS: '50',
    ...env,
  });
  const app = await buildServer(config, { validateResponses: true, ...opts });
  await app.ready();
  return {
    app,
    dataDir,
    async close() {
      await app.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The test server on a fresh database of the given kind; closing it drops the database too. */
export async function startTestServerOn(
  target: DisposableTarget,
  env: Record<string, string> = {},
  opts: BuildOptions = {},
): Promise<TestServer> {
  const made = await target.create();
  const storage = await openStorage(made.target);
  const server = await startTestServer(env, { ...opts, storage });
  return {
    ...server,
    async close() {
      await server.close();
      await storage.close();
      await made.dispose();
    },
  };
}

/** A free TCP port on loopback (the base URL must be known before the server is built). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface ListeningServer extends TestServer {
  baseUrl: string;
}

/**
 * The real server on a real port, for clients that speak HTTP themselves (openid-client, the MCP
 * SDK, a browser), on a fresh database of the given kind.
 */
export async function startListeningServer(
  target: DisposableTarget,
  env: Record<string, string> = {},
  opts: BuildOptions = {},
): Promise<ListeningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await startTestServerOn(target, { COLONY_BASE_URL: baseUrl, ...env }, opts);
  await server.app.listen({ port, host: '127.0.0.1' });
  return { ...server, baseUrl };
}
