// A PostgreSQL that accepts connections but never answers fails queries within the connect timeout
// rather than hanging the requests that wait on it.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDriver } from '../../api/storage/postgres-driver.ts';

describe('PostgreSQL that never answers', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let port = 0;
  beforeAll(async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('fails the query once the connect timeout is over', async () => {
    const driver = new PostgresDriver({
      url: `postgres://colony@127.0.0.1:${port}/colony`,
      connectTimeoutMs: 300,
    });
    const started = performance.now();
    await expect(driver.query('SELECT 1')).rejects.toThrow(/timeout/i);
    // A bound on a failure mode (without it, the query never settles), not a performance figure.
    expect(performance.now() - started).toBeLessThan(3_000);
    await driver.close();
  });
});
