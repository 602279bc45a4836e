// Embeddings from an OpenAI-compatible API (POST {url}/embeddings), for vector retrieval.
import { type CircuitBreaker, circuitBreaker } from '../shared/circuit-breaker.ts';

export interface Embedder {
  readonly model: string;
  /** One vector per text, in order; rejects when the API does not answer as specified. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

const BATCH = 64;
const TIMEOUT_MS = 15_000;

export interface EmbedderOptions {
  url: string;
  model: string;
  apiKey: string | undefined;
  timeoutMs?: number;
  /** Shared by every call; the default opens after 3 consecutive failures for a minute, so a hung API
   * costs three requests a timeout each, and the next minute's are stored without vectors at once. */
  breaker?: CircuitBreaker;
}

export function openAiEmbedder(opts: EmbedderOptions): Embedder {
  const breaker = opts.breaker ?? circuitBreaker();
  async function batch(input: readonly string[]): Promise<Float32Array[]> {
    const res = await fetch(`${opts.url}/embeddings`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: opts.model, input }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`embeddings API answered ${res.status}`);
    const body = (await res.json()) as { data?: { index?: number; embedding?: unknown }[] };
    const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    if (data.length !== input.length || !data.every((d) => Array.isArray(d.embedding))) {
      throw new Error('embeddings API answered without one embedding per input');
    }
    return data.map((d) => Float32Array.from(d.embedding as number[]));
  }
  return {
    model: opts.model,
    async embed(texts) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        const slice = texts.slice(i, i + BATCH);
        out.push(...(await breaker.run(() => batch(slice))));
      }
      return out;
    },
  };
}

/** Float32 little-endian bytes, the column format on both databases. */
export function vectorToBytes(v: Float32Array): Uint8Array {
  const bytes = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => {
    bytes.writeFloatLE(x, i * 4);
  });
  return bytes;
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const v = new Float32Array(Math.floor(bytes.byteLength / 4));
  for (let i = 0; i < v.length; i++) v[i] = view.getFloat32(i * 4, true);
  return v;
}
