// Vector recall with a real embedding model, on both databases: all-MiniLM-L6-v2 served by the
// global setup (test/support/embedder/, TEST_EMBEDDINGS_URL) behind the OpenAI embeddings API. A
// paraphrase sharing no word with the memory is found through its vector while full text misses it;
// cortex_status reports the vectors, through the MCP SDK client too.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { newAccountId } from '../../api/identity/accounts/account.ts';
import { openAiEmbedder } from '../../api/memory/embedder.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { addAccount } from '../support/accounts.ts';
import { EMBEDDER_MODEL } from '../support/embedder.ts';
import { callTool, type Json, memoryClient } from '../support/mcp-client.ts';
import { freePort, type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const embeddingsUrl = (): string => {
  const url = process.env.TEST_EMBEDDINGS_URL;
  if (!url) throw new Error('TEST_EMBEDDINGS_URL is not set: the global setup starts the test embedder');
  return url;
};

const MEMORIES = [
  'The staging cluster runs in Frankfurt.',
  'The canteen serves lunch at noon.',
  'Invoices are archived every quarter.',
  'Our chief executive prefers email over phone calls.',
];
// Shares no word (nor stem) with the staging memory.
const PARAPHRASE = 'Where is our pre-production environment hosted? Germany?';

describe.each(storageTargets)('vector recall with a real embedding model on $name', (target) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let memory: MemoryService;
  let fullTextOnly: MemoryService;
  const errors: Error[] = [];
  const ada = newAccountId();
  const ids: string[] = [];

  beforeAll(async () => {
    const made = await target.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
    const common = { repo: storage.identity.memories, dialect: storage.kind, now: Date.now };
    memory = new MemoryService({
      ...common,
      embedder: openAiEmbedder({ url: embeddingsUrl(), model: EMBEDDER_MODEL, apiKey: undefined }),
      onEmbeddingError: (err) => errors.push(err),
    });
    fullTextOnly = new MemoryService(common);
    await addAccount(storage, ada);
    for (const text of MEMORIES) ids.push(...(await memory.remember(ada, text)).ids);
  });
  afterAll(async () => {
    await storage.close();
    await dispose();
  });

  it('recalls a paraphrase sharing no word with the memory through its vector; full text alone misses it', async () => {
    expect((await fullTextOnly.recall(ada, PARAPHRASE, 4)).map((h) => h.id)).not.toContain(ids[0]);
    const hits = await memory.recall(ada, PARAPHRASE, 2);
    expect(hits[0]?.id).toBe(ids[0]);
    expect(errors).toEqual([]);
  });

  it('ranks each paraphrase to its own memory', async () => {
    const questions = [
      'When can I get something to eat at midday?',
      'How often do we store bills for safekeeping?',
      'Does the boss like to be contacted by mail?',
    ];
    for (const [i, q] of questions.entries()) {
      expect((await memory.recall(ada, q, 1))[0]?.id).toBe(ids[i + 1]);
    }
  });

  it('stores real 384-dimension unit vectors and reports them in status', async () => {
    const [stored] = await storage.identity.memories.recentEmbeddings(ada, 1);
    expect(stored?.bytes.byteLength).toBe(384 * 4);
    expect((await memory.status(ada)).vectors).toEqual({
      enabled: true,
      model: EMBEDDER_MODEL,
      embedded: MEMORIES.length,
    });
  });

  it('keeps storing and recalling by full text when the embeddings API is down', async () => {
    const down = new MemoryService({
      repo: storage.identity.memories,
      dialect: storage.kind,
      now: Date.now,
      embedder: openAiEmbedder({
        url: `http://127.0.0.1:${await freePort()}/v1`,
        model: EMBEDDER_MODEL,
        apiKey: undefined,
      }),
      onEmbeddingError: (err) => errors.push(err),
    });
    const stored = await down.remember(ada, 'Invoices of the Dublin office are archived monthly.');
    const hits = await down.recall(ada, 'Dublin invoices archived', 3);
    expect(hits[0]?.id).toBe(stored.ids[0]);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect((await down.status(ada)).vectors).toMatchObject({ embedded: MEMORIES.length });
  });
});

describe.each(storageTargets)('cortex tools with a real embedding model on $name', (target) => {
  let s: ListeningServer;
  let client: Client;

  beforeAll(async () => {
    s = await startListeningServer(target, {
      COLONY_API_RATE_LIMIT: '10000',
      COLONY_SIGNIN_RATE_LIMIT: '10000',
      COLONY_EMBEDDINGS_URL: embeddingsUrl(),
      COLONY_EMBEDDINGS_MODEL: EMBEDDER_MODEL,
    });
    client = await memoryClient(s.baseUrl);
  });
  afterAll(async () => {
    await client.close();
    await s.close();
  });

  const call = (name: string, args: Json = {}) => callTool(client, name, args);

  it('recalls and answers a paraphrase through vectors, and status reports the vector index', async () => {
    const ids: string[] = [];
    for (const text of MEMORIES) ids.push(...(await call('cortex_remember', { text, source: 'notes' })).ids);
    const staging = ids[0];
    expect((await call('cortex_recall', { query: PARAPHRASE, limit: 1 })).memories[0].id).toBe(staging);
    const asked = await call('cortex_ask', { question: PARAPHRASE, limit: 2 });
    expect(asked.memories[0].id).toBe(staging);
    const status = await call('cortex_status');
    expect(status.vectors).toEqual({ enabled: true, model: EMBEDDER_MODEL, embedded: MEMORIES.length });
    expect(status.fullText.healthy).toBe(true);
    expect(status.retrieval).toMatch(/vector/);
    expect((await call('cortex_manifest')).memories).toBe(MEMORIES.length);
  });
});
