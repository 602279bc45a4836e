// Vector recall through a real OpenAI-compatible HTTP endpoint, on both databases. The endpoint is
// a stand-in the test starts (no embedding model ships in any package we can install here): it maps
// words to a few "concepts", so a question can be close to a memory it shares no word with.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccountId } from '../../api/identity/accounts/account.ts';
import { openAiEmbedder } from '../../api/memory/embedder.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { openStorage, type Storage } from '../../api/storage/storage.ts';
import { storageTargets } from '../support/storage-targets.ts';

const CONCEPTS = [
  ['staging', 'test', 'testing', 'environment', 'preproduction'],
  ['frankfurt', 'germany', 'hosted', 'region', 'europe'],
  ['lunch', 'food', 'eat', 'canteen'],
];

function conceptVector(text: string): number[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  return CONCEPTS.map((c) => words.filter((w) => c.includes(w)).length + 0.01);
}

function embeddingsServer(state: { down: boolean; calls: number }): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      state.calls++;
      if (state.down || req.url !== '/v1/embeddings') {
        res.writeHead(503).end();
        return;
      }
      const { input, model } = JSON.parse(body) as { input: string[]; model: string };
      const data = input.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: conceptVector(text),
      }));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', model, data }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe.each(storageTargets)('vector recall on $name', (target) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let server: Server;
  let memory: MemoryService;
  const state = { down: false, calls: 0 };
  const errors: Error[] = [];
  const ada = newAccountId();

  beforeAll(async () => {
    server = await embeddingsServer(state);
    const made = await target.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    memory = new MemoryService({
      repo: storage.identity.memories,
      dialect: storage.kind,
      now: Date.now,
      embedder: openAiEmbedder({ url, model: 'concepts', apiKey: undefined }),
      onEmbeddingError: (err) => errors.push(err),
    });
    await storage.identity.accounts.create({
      id: ada,
      email: `${ada}@example.com`,
      name: 'a',
      passwordHash: 'x',
      createdAt: 1,
      updatedAt: 1,
    });
  });
  afterAll(async () => {
    server.close();
    await storage.close();
    await dispose();
  });

  it('recalls a memory that shares no word with the question, through its vector', async () => {
    const staging = await memory.remember(ada, 'Staging is hosted in Frankfurt.');
    await memory.remember(ada, 'The canteen serves lunch at noon.');
    const hits = await memory.recall(ada, 'where does the preproduction environment live? germany?', 2);
    expect(hits[0]?.id).toBe(staging.ids[0]);
    const status = await memory.status(ada);
    expect(status.vectors).toMatchObject({ enabled: true, model: 'concepts', embedded: 2 });
  });

  it('keeps storing and recalling by full text when the embeddings API is down', async () => {
    state.down = true;
    const stored = await memory.remember(ada, 'Invoices are archived every quarter.');
    const hits = await memory.recall(ada, 'archived invoices', 3);
    expect(hits[0]?.id).toBe(stored.ids[0]);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect((await memory.status(ada)).vectors).toMatchObject({ embedded: 2 });
    state.down = false;
  });
});
