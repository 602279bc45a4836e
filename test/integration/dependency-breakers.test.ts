// The model APIs behind circuit breakers, seen from outside: while an embeddings API that fails has its
// circuit open, /api/v1/status reports it degraded and /metrics reports it down, and memories are
// still stored. On SQLite and PostgreSQL.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAccount } from '../support/accounts.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('dependency breakers on $name', (target) => {
  let api: Server;
  let s: TestServer;
  let calls = 0;

  beforeAll(async () => {
    api = createServer((_req, res) => {
      calls += 1;
      res.statusCode = 500;
      res.end('{"error":"down"}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const address = api.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    s = await startTestServerOn(target, { COLONY_EMBEDDINGS_URL: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await s.close();
    await new Promise((resolve) => api.close(resolve));
  });

  const embeddings = async () => {
    const body = (await s.app.inject({ url: '/api/v1/status' })).json() as {
      services: { name: string; status: string; detail?: string }[];
    };
    return body.services.find((x) => x.name === 'embeddings');
  };
  const upMetric = async () =>
    /^colony_dependency_up\{dependency="embeddings"\} (\d)/m.exec(
      (await s.app.inject({ url: '/metrics' })).body,
    )?.[1];

  it('reports an open circuit as degraded on the status page and as down in metrics', async () => {
    expect(await embeddings()).toMatchObject({ status: 'operational', detail: 'answering' });
    expect(await upMetric()).toBe('1');

    const account = await addAccount(s.app.colony.storage);
    const memory = s.app.colony.identity.memory;
    for (const n of [1, 2, 3, 4]) await memory.remember(account, `Fact number ${n}.`);
    // Three failures opened the circuit; the fourth memory was stored without calling the API.
    expect(calls).toBe(3);
    expect((await memory.recall(account, 'fact', 10)).length).toBe(4);

    const status = await embeddings();
    expect(status?.status).toBe('degraded');
    expect(status?.detail).toMatch(/stored without vectors/);
    expect(await upMetric()).toBe('0');
  });
});
