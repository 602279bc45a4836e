// An embeddings API that accepts requests and never answers: after three timeouts the breaker opens,
// memories are stored and recalled without vectors at once (the API is not called), and after the
// cool-down one probe finds the API back and vectors resume. On SQLite and PostgreSQL.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { newAccountId } from '../../api/identity/accounts/account.ts';
import { openAiEmbedder } from '../../api/memory/embedder.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { circuitBreaker } from '../../api/shared/circuit-breaker.ts';
import { addAccount } from '../support/accounts.ts';
import { storageTargets } from '../support/storage-targets.ts';

/** Hangs every request until told to answer; then answers each input with a fixed 3-dimensional vector. */
function embeddingsApi() {
  const api = { hanging: true, requests: 0, held: [] as ServerResponse[] };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    api.requests += 1;
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (api.hanging) return void api.held.push(res);
      const input = (JSON.parse(body) as { input: string[] }).input;
      const data = input.map((_, index) => ({ index, embedding: [1, 0, index] }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data }));
    });
  });
  return { api, server };
}

describe.each(storageTargets)('memory on $name when the embeddings API hangs', (target) => {
  const { api, server } = embeddingsApi();
  const clock = { now: 0 };
  const errors: Error[] = [];
  const ada = newAccountId();
  let storage: Storage;
  let dispose: () => Promise<void>;
  let memory: MemoryService;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const made = await target.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
    await addAccount(storage, ada);
    memory = new MemoryService({
      repo: storage.identity.memories,
      dialect: storage.kind,
      now: Date.now,
      embedder: openAiEmbedder({
        url: `http://127.0.0.1:${port}`,
        model: 'stand-in',
        apiKey: undefined,
        timeoutMs: 200,
        breaker: circuitBreaker({ failures: 3, coolDownMs: 60_000, now: () => clock.now }),
      }),
      onEmbeddingError: (err) => errors.push(err),
    });
  });
  afterAll(async () => {
    for (const res of api.held) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await storage.close();
    await dispose();
  });

  it('stores without vectors, and stops calling the API after three timeouts', async () => {
    for (const text of ['one', 'two', 'three']) await memory.remember(ada, `Fact ${text}.`);
    expect(api.requests).toBe(3);
    expect(errors.map((e) => e.name)).toEqual(['TimeoutError', 'TimeoutError', 'TimeoutError']);

    const started = performance.now();
    await memory.remember(ada, 'The staging cluster runs in Frankfurt.');
    const hits = await memory.recall(ada, 'staging cluster');
    // Neither called the API (the count proves it); the bound only catches a hang.
    expect(api.requests).toBe(3);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(hits.map((h) => h.content)).toContain('The staging cluster runs in Frankfurt.');
    expect(errors.at(-1)?.name).toBe('CircuitOpenError');
    expect((await memory.status(ada)).vectors).toMatchObject({ embedded: 0 });
  });

  it('probes once after the cool-down and embeds again when the API is back', async () => {
    api.hanging = false;
    clock.now += 60_000;
    await memory.remember(ada, 'The canteen serves lunch at noon.');
    expect(api.requests).toBe(4);
    expect((await memory.status(ada)).vectors).toMatchObject({ embedded: 1 });
  });
});
