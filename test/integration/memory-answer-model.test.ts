// cortex_ask with an OpenAI-compatible chat model, on both databases: the model path, its fallbacks
// to the extractive answer, and the same through the MCP SDK client against the real server. The
// chat model is a STAND-IN (test/support/chat-model-stand-in.ts): no chat model is installable here.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { newAccountId } from '../../api/identity/accounts/account.ts';
import { openAiChatModel } from '../../api/memory/chat-model.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { type CircuitBreaker, circuitBreaker } from '../../api/shared/circuit-breaker.ts';
import { addAccount } from '../support/accounts.ts';
import { type ChatStandIn, quoteBestBlock, startChatStandIn } from '../support/chat-model-stand-in.ts';
import { callTool, type Json, memoryClient } from '../support/mcp-client.ts';
import { freePort, type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const API_KEY = 'sk-answer-model-secret-0123456789';

describe.each(storageTargets)('cortex_ask with an answer model on $name', (target) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let model: ChatStandIn;
  let memory: MemoryService;
  const errors: Error[] = [];
  const ada = newAccountId();
  let staging: string;
  let backups: string;

  // The memory with the stand-in as its answer model; a breaker of the test's own when given.
  const answering = (breaker?: CircuitBreaker) =>
    new MemoryService({
      repo: storage.identity.memories,
      dialect: storage.kind,
      now: Date.now,
      answerModel: openAiChatModel({
        url: model.url,
        model: 'stand-in-chat',
        apiKey: API_KEY,
        timeoutMs: 300,
        ...(breaker ? { breaker } : {}),
      }),
      onAnswerModelError: (err) => errors.push(err),
    });

  beforeAll(async () => {
    model = await startChatStandIn();
    const made = await target.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
    memory = answering();
    await addAccount(storage, ada);
    staging = (
      await memory.remember(ada, 'The staging cluster runs in Frankfurt.', {
        source: 'ops notes',
        occurredAt: Date.parse('2026-03-01T09:00:00Z'),
      })
    ).ids[0] as string;
    backups = (await memory.remember(ada, 'Backups of the staging cluster run nightly at two.'))
      .ids[0] as string;
  });
  afterAll(async () => {
    await model.close();
    await storage.close();
    await dispose();
  });
  beforeEach(() => {
    model.script = quoteBestBlock;
    model.requests.length = 0;
    errors.length = 0;
  });

  it('answers through the model, citing memory blocks by id, source and time', async () => {
    const result = await memory.ask(ada, 'Where does the staging cluster run? Frankfurt?');
    expect(result).toMatchObject({
      mode: 'model',
      model: 'stand-in-chat',
      answer: 'From your notes: The staging cluster runs in Frankfurt. [1]',
    });
    expect(result.fallback).toBeUndefined();
    expect(result.citations).toEqual([
      expect.objectContaining({
        n: 1,
        id: staging,
        source: 'ops notes',
        occurredAt: '2026-03-01T09:00:00.000Z',
      }),
    ]);
    expect(result.citations[0]?.createdAt).toMatch(/^\d{4}-/);
    const [sent] = model.requests;
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.body.model).toBe('stand-in-chat');
    const prompt = sent?.body.messages?.[1]?.content ?? '';
    expect(prompt).toContain('The staging cluster runs in Frankfurt.');
    expect(prompt).toContain('Backups of the staging cluster run nightly at two.');
  });

  it('drops citations naming no block and keeps the rest', async () => {
    model.script = () => ({ text: 'Nightly at two [2][7], in Frankfurt [1].' });
    const result = await memory.ask(ada, 'staging cluster');
    expect(result.mode).toBe('model');
    const order = result.memories.map((m) => m.id);
    expect(result.citations.map((c) => c.id)).toEqual([order[1], order[0]]);
    expect(result.answer).toBe('Nightly at two [1], in Frankfurt [2].');
    expect(new Set([staging, backups])).toEqual(new Set(order));
  });

  it('makes no model call when nothing is retrieved', async () => {
    const result = await memory.ask(ada, 'quarterly invoices archive');
    expect(result).toMatchObject({ mode: 'extractive', citations: [], memories: [] });
    expect(result.fallback).toBeUndefined();
    expect(model.requests).toHaveLength(0);
  });

  it.each([
    ['an error status', () => ({ status: 500, body: '{"error":{"message":"overloaded"}}' }), /with an error/],
    ['a non-JSON body', () => ({ status: 200, body: '<html>gateway</html>' }), /malformed/],
    ['a completion without text', () => ({ status: 200, body: '{"choices":[]}' }), /malformed/],
    [
      'a reply cut short',
      () => ({ text: 'The staging cluster runs in', finishReason: 'length' }),
      /cut short/,
    ],
    ['a reply citing nothing', () => ({ text: 'It runs in Frankfurt.' }), /cited none/],
    ['no reply in time', () => ({ delayMs: 1500, text: 'Frankfurt [1]' }), /in time/],
  ] as const)('falls back to the extractive answer on %s, and says so', async (_label, script, reason) => {
    model.script = script;
    const result = await memory.ask(ada, 'Is the staging cluster in Frankfurt?');
    expect(result.mode).toBe('extractive');
    expect(result.fallback?.reason).toMatch(reason);
    expect(result.answer).toContain('Frankfurt');
    expect(result.citations[0]?.id).toBe(staging);
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(result)).not.toContain(API_KEY);
    for (const err of errors) expect(`${err.message} ${String(err.cause)}`).not.toContain(API_KEY);
  });

  it('falls back when the model cannot be reached', async () => {
    const gone = new MemoryService({
      repo: storage.identity.memories,
      dialect: storage.kind,
      now: Date.now,
      answerModel: openAiChatModel({
        url: `http://127.0.0.1:${await freePort()}/v1`,
        model: 'm',
        apiKey: API_KEY,
        timeoutMs: 2000,
      }),
    });
    const result = await gone.ask(ada, 'Is the staging cluster in Frankfurt?');
    expect(result).toMatchObject({
      mode: 'extractive',
      fallback: { reason: expect.stringMatching(/reached/) },
    });
    expect(result.citations[0]?.id).toBe(staging);
  });

  it('skips a model that failed three times in a row until one probe after the cool-down succeeds', async () => {
    const clock = { now: 0 };
    const resting = answering(circuitBreaker({ failures: 3, coolDownMs: 60_000, now: () => clock.now }));
    const question = 'Is the staging cluster in Frankfurt?';
    model.script = () => ({ status: 503, body: '{"error":{"message":"overloaded"}}' });
    for (let i = 0; i < 3; i++) await resting.ask(ada, question);
    expect(model.requests).toHaveLength(3);

    const skipped = await resting.ask(ada, question);
    expect(model.requests).toHaveLength(3);
    expect(skipped).toMatchObject({
      mode: 'extractive',
      fallback: { reason: expect.stringMatching(/skipped/) },
    });
    expect(skipped.citations[0]?.id).toBe(staging);

    model.script = quoteBestBlock;
    clock.now += 60_000;
    expect(await resting.ask(ada, question)).toMatchObject({ mode: 'model' });
    expect(model.requests).toHaveLength(4);
  });
});

describe.each(storageTargets)('cortex_ask through MCP with an answer model on $name', (target) => {
  let s: ListeningServer;
  let model: ChatStandIn;
  let client: Client;
  const logLines: string[] = [];

  beforeAll(async () => {
    model = await startChatStandIn();
    s = await startListeningServer(
      target,
      {
        COLONY_API_RATE_LIMIT: '10000',
        COLONY_SIGNIN_RATE_LIMIT: '10000',
        COLONY_ANSWER_MODEL_URL: `${model.url}/`,
        COLONY_ANSWER_MODEL: 'stand-in-chat',
        COLONY_ANSWER_MODEL_API_KEY: API_KEY,
        COLONY_ANSWER_MODEL_TIMEOUT_MS: '2000',
      },
      { logger: { level: 'trace', stream: { write: (line: string) => logLines.push(line) } } },
    );
    client = await memoryClient(s.baseUrl);
  });
  afterAll(async () => {
    await client.close();
    await s.close();
    await model.close();
  });

  const call = (name: string, args: Json = {}) => callTool(client, name, args);

  it('answers with the model, falls back when it fails, and never logs its key', async () => {
    const fact = await call('cortex_remember', {
      text: 'Expense reports are due on the fifth.',
      source: 'handbook',
    });
    const answered = await call('cortex_ask', { question: 'When are expense reports due?' });
    expect(answered).toMatchObject({ mode: 'model', model: 'stand-in-chat' });
    expect(answered.answer).toBe('From your notes: Expense reports are due on the fifth. [1]');
    expect(answered.citations).toEqual([
      expect.objectContaining({ n: 1, id: fact.ids[0], source: 'handbook' }),
    ]);
    expect(model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect((await call('cortex_status')).answers).toEqual({ mode: 'model', model: 'stand-in-chat' });

    model.script = () => ({ status: 503, body: 'upstream down' });
    const fallback = await call('cortex_ask', { question: 'When are expense reports due?' });
    expect(fallback).toMatchObject({
      mode: 'extractive',
      fallback: { reason: expect.stringMatching(/error/) },
    });
    expect(fallback.answer).toBe('Expense reports are due on the fifth. [1]');

    const calls = model.requests.length;
    expect((await call('cortex_ask', { question: 'What colour is the office cat?' })).citations).toEqual([]);
    expect(model.requests).toHaveLength(calls);

    const logs = logLines.join('');
    expect(logs).toContain('answer model failed');
    expect(logs).not.toContain(API_KEY);
  });
});
