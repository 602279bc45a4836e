// The test embedding model itself (test/support/embedder/server.py, all-MiniLM-L6-v2 in numpy)
// through its OpenAI-compatible API: upstream's published similarities, the wire shape, bad input.
import { describe, expect, it } from 'vitest';
import { openAiEmbedder } from '../../api/memory/embedder.ts';
import { cosine } from '../../api/memory/fuse.ts';
import { EMBEDDER_MODEL } from '../support/embedder.ts';

const url = (): string => {
  const u = process.env.TEST_EMBEDDINGS_URL;
  if (!u) throw new Error('TEST_EMBEDDINGS_URL is not set: the global setup starts the test embedder');
  return u;
};

const post = (body: unknown) =>
  fetch(`${url()}/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('the test embedding model', () => {
  it('reproduces the similarities sentence-transformers publishes for all-MiniLM-L6-v2', async () => {
    const embedder = openAiEmbedder({ url: url(), model: EMBEDDER_MODEL, apiKey: undefined });
    const [weather, sunny, stadium] = await embedder.embed([
      'The weather is lovely today.',
      "It's so sunny outside!",
      'He drove to the stadium.',
    ]);
    if (!weather || !sunny || !stadium) throw new Error('missing vectors');
    expect(weather).toHaveLength(384);
    expect(cosine(weather, weather)).toBeCloseTo(1, 4);
    expect(cosine(weather, sunny)).toBeCloseTo(0.666, 3);
    expect(cosine(weather, stadium)).toBeCloseTo(0.1046, 3);
    expect(cosine(sunny, stadium)).toBeCloseTo(0.1411, 3);
  });

  it('puts a paraphrase closer than an unrelated sentence, whatever the batch', async () => {
    const embedder = openAiEmbedder({ url: url(), model: EMBEDDER_MODEL, apiKey: undefined });
    const [memory, paraphrase, unrelated] = await embedder.embed([
      'The staging cluster runs in Frankfurt.',
      'Where is our pre-production environment hosted?',
      'The canteen serves lunch at noon.',
    ]);
    const [alone] = await embedder.embed(['The staging cluster runs in Frankfurt.']);
    if (!memory || !paraphrase || !unrelated || !alone) throw new Error('missing vectors');
    expect(cosine(memory, paraphrase)).toBeGreaterThan(cosine(memory, unrelated) + 0.2);
    // Padding to the batch's longest input must not change a vector.
    expect(cosine(memory, alone)).toBeCloseTo(1, 5);
  });

  it('answers the OpenAI shape for a single string, with token usage', async () => {
    const res = await post({ input: 'hello world', model: 'm' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ object: 'list', model: 'm', usage: { prompt_tokens: 4, total_tokens: 4 } });
    expect(body.data).toEqual([{ object: 'embedding', index: 0, embedding: expect.any(Array) }]);
  });

  it('cuts inputs past 256 tokens instead of failing', async () => {
    const res = await post({ input: ['word '.repeat(2000)], model: 'm' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(256);
  });

  it.each([
    ['non-JSON', '{not json'],
    ['no input', { model: 'm' }],
    ['an empty array', { input: [] }],
    ['token arrays', { input: [[1, 2, 3]] }],
    ['an array body', [1]],
  ])('refuses %s with 400 and an OpenAI error object', async (_label, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const payload = (await res.json()) as { error: { message: string; type: string } };
    expect(payload.error.type).toBe('invalid_request_error');
    expect(payload.error.message.length).toBeGreaterThan(0);
  });
});
